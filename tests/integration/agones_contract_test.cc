// AgonesRestContract: a contract test of the REST calls zone_server makes to the Agones SDK
// sidecar. There is no Agones (nor Kubernetes) here: the real zone_server binary runs with
// AGONES_SDK_HTTP_PORT pointing at a small HTTP listener in this test
// (tests/cluster/fake_agones_sidecar.h), which records what arrives and when. What it checks
// is what Agones' REST gateway expects of a game server: POST /ready, /health and /shutdown with
// `{}` as JSON; Ready only once the game port accepts connections; Health repeating at
// agones.health_interval_seconds; Shutdown after SIGTERM, once the graceful stop has saved the
// characters, and nothing after it: Ready < Health* < Shutdown. Whether a real sidecar accepts
// these requests is not tested here (docker/k8s/README.md says what was and was not tested).
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "cluster/fake_agones_sidecar.h"
#include "integration/harness.h"

namespace zs::integration {
namespace {

using fakes::FakeAgonesSidecar;
using fakes::SidecarRequest;
using std::chrono::milliseconds;

constexpr double kHealthIntervalS = 0.5;
constexpr const char* kAgonesYaml = "agones: {health_interval_seconds: 0.5}\n";

// True when something accepts TCP connections on 127.0.0.1:port right now.
bool Accepts(uint16_t port) {
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket s(io);
  boost::system::error_code ec;
  s.connect({boost::asio::ip::make_address("127.0.0.1"), port}, ec);
  return !ec;
}

// What the sidecar saw of the server at the moment Ready and Shutdown arrived.
struct Observations {
  uint16_t game_port = 0;
  std::atomic<ServerProcess*> server{nullptr};
  std::atomic<int> game_port_accepted_at_ready{-1};  // -1: no Ready yet
  std::mutex mu;
  std::string log_at_shutdown;  // guarded by mu

  FakeAgonesSidecar::Hook Hook() {
    return [this](const SidecarRequest& r) {
      if (r.target == "/ready" && game_port_accepted_at_ready.load() < 0) {
        game_port_accepted_at_ready = Accepts(game_port) ? 1 : 0;
      } else if (r.target == "/shutdown" && server.load() != nullptr) {
        std::lock_guard lock(mu);
        log_at_shutdown = server.load()->Log();
      }
    };
  }
};

ProcessExtras AgonesExtras(uint16_t sidecar_port, uint16_t game_port) {
  return {.env = {{"AGONES_SDK_HTTP_PORT", std::to_string(sidecar_port)}},
          .args = {"--port", std::to_string(game_port)}};
}

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// Ready first and once, Health only between, Shutdown last and once; all POST {} as JSON.
void ExpectReadyHealthShutdown(const std::vector<SidecarRequest>& reqs) {
  ASSERT_GE(reqs.size(), 2u);
  EXPECT_EQ(reqs.front().target, "/ready");
  EXPECT_EQ(reqs.back().target, "/shutdown");
  for (size_t i = 1; i + 1 < reqs.size(); ++i) EXPECT_EQ(reqs[i].target, "/health") << i;
  for (const auto& r : reqs) {
    EXPECT_EQ(r.method, "POST") << r.target;
    EXPECT_EQ(r.content_type, "application/json") << r.target;
    EXPECT_EQ(r.body, "{}") << r.target;
  }
}

TEST(AgonesRestContract, ReadyAfterListenHealthRepeatsShutdownLast) {
  Observations seen;
  seen.game_port = fakes::UnusedLoopbackPort();
  FakeAgonesSidecar sidecar(0, seen.Hook());
  ServerProcess server("  idle_timeout_seconds: 60\n", kAgonesYaml, ZS_TEST_WORLD, 0,
                       AgonesExtras(sidecar.port(), seen.game_port));
  seen.server = &server;
  ASSERT_EQ(server.port(), seen.game_port) << server.Log();

  ASSERT_TRUE(sidecar.WaitFor("/ready", 1, milliseconds(5000))) << server.Log();
  EXPECT_EQ(seen.game_port_accepted_at_ready.load(), 1) << "Ready before the game port listened";
  ASSERT_TRUE(sidecar.WaitFor("/health", 5, milliseconds(15000))) << server.Log();
  EXPECT_EQ(sidecar.Count("/shutdown"), 0u) << "Shutdown before SIGTERM";

  const auto term_at = std::chrono::steady_clock::now();
  server.Signal(SIGTERM);
  EXPECT_EQ(server.Wait(30), std::optional<int>(0)) << server.Log();
  std::this_thread::sleep_for(milliseconds(300));  // anything late would arrive by now

  const std::vector<SidecarRequest> reqs = sidecar.Requests();
  ExpectReadyHealthShutdown(reqs);
  EXPECT_EQ(sidecar.Count("/ready"), 1u);
  EXPECT_EQ(sidecar.Count("/shutdown"), 1u);
  EXPECT_GT(reqs.back().at, term_at);
  {
    std::lock_guard lock(seen.mu);
    EXPECT_NE(seen.log_at_shutdown.find("signal 15: shutting down"), std::string::npos);
    EXPECT_NE(seen.log_at_shutdown.find("characters saved"), std::string::npos)
        << "Shutdown before the graceful stop finished:\n"
        << seen.log_at_shutdown;
  }
  // Health at the interval: never bunched up, and not much slower than asked for.
  std::vector<double> gaps;
  for (size_t i = 2; i + 1 < reqs.size(); ++i) gaps.push_back(Seconds(reqs[i].at - reqs[i - 1].at));
  ASSERT_FALSE(gaps.empty());
  double sum = 0;
  for (const double g : gaps) {
    EXPECT_GE(g, kHealthIntervalS * 0.5);
    sum += g;
  }
  if (!kUnderTsan) {
    EXPECT_LE(sum / static_cast<double>(gaps.size()), kHealthIntervalS * 2);
  }
  const std::string log = server.Log();
  EXPECT_NE(log.find("agones: Ready acknowledged"), std::string::npos) << log;
  EXPECT_NE(log.find("agones: Shutdown acknowledged"), std::string::npos) << log;
}

// Agones may start the sidecar after the game server: Ready is retried until it listens.
TEST(AgonesRestContract, TheSidecarMayStartAfterTheServer) {
  const uint16_t sidecar_port = fakes::UnusedLoopbackPort();
  Observations seen;
  seen.game_port = fakes::UnusedLoopbackPort();
  ServerProcess server("  idle_timeout_seconds: 60\n", kAgonesYaml, ZS_TEST_WORLD, 0,
                       AgonesExtras(sidecar_port, seen.game_port));
  ASSERT_EQ(server.port(), seen.game_port) << server.Log();
  std::this_thread::sleep_for(milliseconds(1000));  // Ready refused meanwhile
  FakeAgonesSidecar sidecar(sidecar_port, seen.Hook());
  ASSERT_TRUE(sidecar.WaitFor("/ready", 1, milliseconds(6000))) << server.Log();
  ASSERT_TRUE(sidecar.WaitFor("/health", 1, milliseconds(5000))) << server.Log();
  server.Signal(SIGTERM);
  EXPECT_EQ(server.Wait(30), std::optional<int>(0)) << server.Log();
  ExpectReadyHealthShutdown(sidecar.Requests());
  EXPECT_EQ(sidecar.Count("/ready"), 1u);
  EXPECT_NE(server.Log().find("agones: Ready to http://127.0.0.1:"), std::string::npos)
      << "the refused attempts were not logged";
}

// A value that is not a port ends start-up with a config error naming the variable (exit 2),
// rather than a server that never becomes Ready.
TEST(AgonesRestContract, ABadPortIsAConfigError) {
  ServerProcess server("  idle_timeout_seconds: 60\n", "", ZS_TEST_WORLD, 0,
                       {.env = {{"AGONES_SDK_HTTP_PORT", "sidecar"}}, .args = {}});
  EXPECT_EQ(server.Wait(10), std::optional<int>(2));
  EXPECT_NE(server.Log().find("AGONES_SDK_HTTP_PORT"), std::string::npos) << server.Log();
}

}  // namespace
}  // namespace zs::integration
