// AgonesSdk against a fake sidecar on loopback (fake_agones_sidecar.h): the REST calls and
// their bodies, the order, retries while the sidecar is not there yet, and that a sidecar
// answering 500 or not at all never blocks the caller beyond Shutdown's own timeout.
#include "agones/agones_sdk.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "agones/fake_agones_sidecar.h"

namespace zs::agones {
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

// PublicAddress: GET /gameserver, after Ready, until the status has the address and the port.
size_t IndexOf(const std::vector<fakes::SidecarRequest>& reqs, const std::string& target) {
  for (size_t i = 0; i < reqs.size(); ++i) {
    if (reqs[i].target == target) return i;
  }
  return reqs.size();
}

// The message of what `f` throws as std::runtime_error ("" when it returns).
template <typename F>
std::string ErrorOf(F f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(AgonesSdk, PublicAddressIsAGetOfTheGameServerAfterReady) {
  FakeAgonesSidecar sidecar;
  sidecar.set_gameserver(fakes::GameServerJson("34.89.10.7", 7342));
  sidecar.fail_first(2);  // Ready refused twice: the GET still waits for it
  AgonesSdk sdk(Options(sidecar.port()));
  sdk.Ready();
  EXPECT_EQ(sdk.PublicAddress("game", milliseconds(3000)), "34.89.10.7:7342");
  const auto reqs = sidecar.Requests();
  ASSERT_EQ(reqs.size(), 4u);
  EXPECT_EQ(reqs[2].target, "/ready");  // the acknowledged one
  EXPECT_EQ(reqs[3].method, "GET");
  EXPECT_EQ(reqs[3].target, "/gameserver");
  EXPECT_EQ(reqs[3].body, "");
  EXPECT_EQ(sdk.stats().ok[static_cast<size_t>(AgonesCall::kGameServer)], 1u);
  EXPECT_EQ(AgonesPath(AgonesCall::kGameServer), "/gameserver");
}

TEST(AgonesSdk, PublicAddressWaitsForTheStatusWhileHealthGoesOn) {
  FakeAgonesSidecar sidecar;
  sidecar.set_gameserver(fakes::GameServerJson("", 0, "Scheduled"));
  AgonesSdk sdk(Options(sidecar.port()));
  sdk.Ready();
  sdk.StartHealth(milliseconds(50));
  std::thread placer([&sidecar] {
    // Placed after a few answers and a few Health calls (Health is not held up meanwhile).
    sidecar.WaitFor("/gameserver", 4, milliseconds(5000));
    sidecar.WaitFor("/health", 3, milliseconds(5000));
    sidecar.set_gameserver(fakes::GameServerJson("10.1.2.3", 7100));
  });
  const std::string address = sdk.PublicAddress("game", milliseconds(5000));
  placer.join();
  EXPECT_EQ(address, "10.1.2.3:7100");
  const auto reqs = sidecar.Requests();
  EXPECT_EQ(reqs.front().target, "/ready");
  EXPECT_GE(sidecar.Count("/gameserver"), 5u);
  size_t last_get = 0;
  for (size_t i = 0; i < reqs.size(); ++i)
    last_get = reqs[i].target == "/gameserver" ? i : last_get;
  EXPECT_LT(IndexOf(reqs, "/gameserver"), IndexOf(reqs, "/health"));
  EXPECT_LT(IndexOf(reqs, "/health"), last_get) << "Health held up behind the GET's retries";
}

TEST(AgonesSdk, PublicAddressGivesUpAtItsTimeoutNamingWhatIsMissing) {
  FakeAgonesSidecar sidecar;
  sidecar.set_gameserver(fakes::GameServerJson("10.1.2.3", 0, "Scheduled"));
  AgonesSdk sdk(Options(sidecar.port()));
  sdk.Ready();
  const auto start = Clock::now();
  const std::string error = ErrorOf([&] { (void)sdk.PublicAddress("game", milliseconds(600)); });
  EXPECT_GE(SecondsSince(start), 0.4);
  EXPECT_LT(SecondsSince(start), 1.5);
  EXPECT_NE(error.find("no public address from GET /gameserver within 0.6 s"), std::string::npos)
      << error;
  EXPECT_NE(error.find("(last: status.ports: 'game' has no port yet, state Scheduled)"),
            std::string::npos)
      << error;
  EXPECT_GE(sidecar.Count("/gameserver"), 3u);  // retried meanwhile
}

TEST(AgonesSdk, PublicAddressWithoutASidecarSaysWhy) {
  AgonesSdk sdk(Options(fakes::UnusedLoopbackPort()));
  sdk.Ready();
  const std::string error = ErrorOf([&] { (void)sdk.PublicAddress("game", milliseconds(400)); });
  // Ready never acknowledged: the GET never went out.
  EXPECT_NE(error.find("no answer to GET /gameserver within 0.4 s"), std::string::npos) << error;
}

TEST(AgonesSdk, AMalformedGameServerIsAnErrorAtOnce) {
  FakeAgonesSidecar sidecar;
  sidecar.set_gameserver(R"({"status": {"address": "10.0.0.1", "ports": "game:7777"}})");
  AgonesSdk sdk(Options(sidecar.port()));
  sdk.Ready();
  const auto start = Clock::now();
  const std::string error = ErrorOf([&] { (void)sdk.PublicAddress("game", milliseconds(5000)); });
  EXPECT_LT(SecondsSince(start), 1.0);
  EXPECT_NE(error.find("unusable GameServer: status.ports: expected an array, got string"),
            std::string::npos)
      << error;
  EXPECT_EQ(sidecar.Count("/gameserver"), 1u);
}

TEST(AgonesSdk, AHugeAnswerIsRefusedNotBuffered) {
  FakeAgonesSidecar sidecar;
  sidecar.set_gameserver("{\"pad\": \"" + std::string(2 * kMaxGameServerBytes, 'x') + "\"}");
  AgonesSdk sdk(Options(sidecar.port()));
  sdk.Ready();
  const std::string error = ErrorOf([&] { (void)sdk.PublicAddress("game", milliseconds(500)); });
  EXPECT_NE(error.find("GET failed: answer larger than 1048576 bytes"), std::string::npos) << error;
  // The SDK goes on: Shutdown still works.
  EXPECT_TRUE(sdk.Shutdown(milliseconds(2000)));
}

TEST(AgonesSdk, ShutdownEndsAWaitForThePublicAddress) {
  FakeAgonesSidecar sidecar;  // answers {} to GET /gameserver: never placed
  AgonesSdk sdk(Options(sidecar.port()));
  sdk.Ready();
  std::string error;
  std::thread waiter(
      [&] { error = ErrorOf([&] { (void)sdk.PublicAddress("game", milliseconds(10000)); }); });
  ASSERT_TRUE(sidecar.WaitFor("/gameserver", 2, milliseconds(3000)));
  const auto start = Clock::now();
  EXPECT_TRUE(sdk.Shutdown(milliseconds(2000)));
  waiter.join();
  EXPECT_LT(SecondsSince(start), 1.0);
  EXPECT_NE(error.find("Shutdown asked for"), std::string::npos) << error;
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
}  // namespace zs::agones
