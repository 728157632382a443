// AgonesSdk against a fake sidecar on loopback (fake_agones_sidecar.h): the REST calls and
// their bodies, the order, retries while the sidecar is not there yet, and that a sidecar
// answering 500 or not at all never blocks the caller beyond Shutdown's own timeout.
#include "cluster/agones_sdk.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

#include "cluster/fake_agones_sidecar.h"

namespace zs::cluster {
namespace {

using fakes::FakeAgonesSidecar;
using fakes::SidecarAnswer;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

AgonesSdkOptions Options(uint16_t port) {
  return {.port = port,
          .request_timeout = milliseconds(300),
          .first_backoff = milliseconds(20),
          .max_backoff = milliseconds(200)};
}

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

TEST(AgonesSdk, ReadyIsAPostOfAnEmptyJsonObject) {
  FakeAgonesSidecar sidecar;
  AgonesSdk sdk(Options(sidecar.port()));
  sdk.Ready();
  ASSERT_TRUE(sidecar.WaitFor("/ready", 1, milliseconds(3000)));
  const auto r = sidecar.Requests().at(0);
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.target, "/ready");
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.body, "{}");
  EXPECT_TRUE(sdk.Shutdown(milliseconds(2000)));
  EXPECT_EQ(sdk.stats().ok[static_cast<size_t>(AgonesCall::kReady)], 1u);
}

TEST(AgonesSdk, PathsAreAgonesRestEndpoints) {
  EXPECT_EQ(AgonesPath(AgonesCall::kReady), "/ready");
  EXPECT_EQ(AgonesPath(AgonesCall::kHealth), "/health");
  EXPECT_EQ(AgonesPath(AgonesCall::kShutdown), "/shutdown");
}

TEST(AgonesSdk, HealthRepeatsAfterReadyAndShutdownIsLast) {
  FakeAgonesSidecar sidecar;
  AgonesSdk sdk(Options(sidecar.port()));
  sdk.Ready();
  sdk.StartHealth(milliseconds(50));
  ASSERT_TRUE(sidecar.WaitFor("/health", 5, milliseconds(5000)));
  ASSERT_TRUE(sdk.Shutdown(milliseconds(2000)));
  std::this_thread::sleep_for(milliseconds(300));  // nothing may follow Shutdown
  const auto reqs = sidecar.Requests();
  ASSERT_GE(reqs.size(), 7u);
  EXPECT_EQ(reqs.front().target, "/ready");
  EXPECT_EQ(reqs.back().target, "/shutdown");
  for (size_t i = 1; i + 1 < reqs.size(); ++i) EXPECT_EQ(reqs[i].target, "/health") << i;
  for (const auto& r : reqs) EXPECT_EQ(r.body, "{}");
  // Spaced by the interval (a timer, not a busy loop); generous for a loaded machine.
  for (size_t i = 2; i + 1 < reqs.size(); ++i) {
    EXPECT_GE(reqs[i].at - reqs[i - 1].at, milliseconds(40)) << i;
  }
}

TEST(AgonesSdk, ReadyIsRetriedUntilTheSidecarListens) {
  const uint16_t port = fakes::UnusedLoopbackPort();
  AgonesSdk sdk(Options(port));
  sdk.Ready();
  std::this_thread::sleep_for(milliseconds(400));  // refused a few times meanwhile
  FakeAgonesSidecar sidecar(port);
  ASSERT_TRUE(sidecar.WaitFor("/ready", 1, milliseconds(3000)));
  std::this_thread::sleep_for(milliseconds(100));  // the answer reaches the SDK
  const AgonesStats s = sdk.stats();
  EXPECT_GE(s.failed[static_cast<size_t>(AgonesCall::kReady)], 2u);
  EXPECT_EQ(s.ok[static_cast<size_t>(AgonesCall::kReady)], 1u);
  EXPECT_EQ(sidecar.Count("/ready"), 1u);  // acknowledged once, then never again
}

TEST(AgonesSdk, A500IsAFailureAndIsRetried) {
  FakeAgonesSidecar sidecar;
  sidecar.fail_first(2);
  AgonesSdk sdk(Options(sidecar.port()));
  sdk.Ready();
  ASSERT_TRUE(sidecar.WaitFor("/ready", 3, milliseconds(3000)));
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(sidecar.Count("/ready"), 3u);
  EXPECT_EQ(sdk.stats().failed[static_cast<size_t>(AgonesCall::kReady)], 2u);
  EXPECT_EQ(sdk.stats().ok[static_cast<size_t>(AgonesCall::kReady)], 1u);
}

TEST(AgonesSdk, AFailedHealthIsCountedNotRetried) {
  FakeAgonesSidecar sidecar;
  sidecar.set_answer(SidecarAnswer::kServerError);
  AgonesSdk sdk(Options(sidecar.port()));
  sdk.StartHealth(milliseconds(100));
  ASSERT_TRUE(sidecar.WaitFor("/health", 3, milliseconds(3000)));
  // Three pings took at least two intervals: failures wait for the next one.
  const auto reqs = sidecar.Requests();
  EXPECT_GE(reqs[2].at - reqs[0].at, milliseconds(150));
  EXPECT_GE(sdk.stats().failed[static_cast<size_t>(AgonesCall::kHealth)], 2u);
  EXPECT_FALSE(sdk.Shutdown(milliseconds(300)));  // 500 to Shutdown too, until the deadline
}

TEST(AgonesSdk, AHangingSidecarBlocksNobody) {
  FakeAgonesSidecar sidecar;
  sidecar.set_answer(SidecarAnswer::kHang);
  auto start = Clock::now();
  {
    AgonesSdk sdk(Options(sidecar.port()));
    sdk.Ready();
    sdk.StartHealth(milliseconds(50));
    EXPECT_LT(SecondsSince(start), 0.1);  // neither call waits for the sidecar
    ASSERT_TRUE(sidecar.WaitFor("/ready", 2, milliseconds(3000)));  // timed out, retried
    EXPECT_EQ(sidecar.Count("/health"), 0u);                        // behind Ready: never before it
    start = Clock::now();
    EXPECT_FALSE(sdk.Shutdown(milliseconds(500)));
    EXPECT_LT(SecondsSince(start), 1.5);  // the timeout, plus one request's margin at most
    EXPECT_GE(sdk.stats().failed[static_cast<size_t>(AgonesCall::kReady)], 1u);
    start = Clock::now();
  }
  EXPECT_LT(SecondsSince(start), 0.5);  // the destructor does not wait for the sidecar
}

TEST(AgonesSdk, ShutdownWithNoSidecarGivesUpAtItsTimeout) {
  AgonesSdk sdk(Options(fakes::UnusedLoopbackPort()));
  sdk.Ready();
  const auto start = Clock::now();
  EXPECT_FALSE(sdk.Shutdown(milliseconds(400)));
  EXPECT_GE(SecondsSince(start), 0.3);  // retried meanwhile
  EXPECT_LT(SecondsSince(start), 1.5);
  EXPECT_GE(sdk.stats().failed[static_cast<size_t>(AgonesCall::kShutdown)], 2u);
  EXPECT_FALSE(sdk.Shutdown(milliseconds(400)));  // once only
}

TEST(AgonesSdk, FromEnvironment) {
  std::map<std::string, std::string> env;
  const AgonesGetEnv getenv = [&env](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  EXPECT_FALSE(AgonesSdk::FromEnvironment(getenv).has_value());  // not under Agones
  env[kEnvAgonesSdkHttpPort] = "";
  EXPECT_FALSE(AgonesSdk::FromEnvironment(getenv).has_value());
  env[kEnvAgonesSdkHttpPort] = "9358";
  const auto options = AgonesSdk::FromEnvironment(getenv);
  ASSERT_TRUE(options.has_value());
  EXPECT_EQ(options->port, 9358);
  EXPECT_EQ(options->host, "127.0.0.1");
  for (const char* bad : {"abc", "0", "65536", "-1", "9358x", " 9358", "99999999999"}) {
    env[kEnvAgonesSdkHttpPort] = bad;
    try {
      (void)AgonesSdk::FromEnvironment(getenv);
      ADD_FAILURE() << "accepted \"" << bad << "\"";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(kEnvAgonesSdkHttpPort), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace zs::cluster
