// AgonesRestContract: a contract test of the REST calls zone_server makes to the Agones SDK
// sidecar. There is no Agones (nor Kubernetes) here: the real zone_server binary runs with
// AGONES_SDK_HTTP_PORT pointing at a small HTTP listener in this test
// (tests/agones/fake_agones_sidecar.h), which records what arrives and when. What it checks
// is what Agones' REST gateway expects of a game server: POST /ready, /health and /shutdown with
// `{}` as JSON; Ready only once the game port accepts connections; Health repeating at
// agones.health_interval_seconds; Shutdown after SIGTERM, once the graceful stop has saved the
// characters, and nothing after it: Ready < Health* < Shutdown. With cluster.public_address
// `agones`: GET /gameserver after Ready, and the GameServer's status.address and `game` port are
// what the node announces to the cluster (a real two-node cluster: nats-server and PostgreSQL
// started here, as in cluster_test.cc). Whether a real sidecar accepts these requests, and
// answers GET /gameserver as its documentation says, is not tested here (docker/k8s/README.md
// says what was and was not tested).
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>

#include "agones/fake_agones_sidecar.h"
#include "integration/harness.h"
#include "support/nats_server.h"
#include "support/postgres_suite.h"

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

// cluster.public_address `agones` asks the SDK, so it needs one: a config error elsewhere.
TEST(AgonesRestContract, APublicAddressFromAgonesOutsideAgonesIsAConfigError) {
  ServerProcess server(
      "  idle_timeout_seconds: 60\n",
      "cluster: {nats_url: \"nats://127.0.0.1:1\", node: n, public_address: agones, zones: [a]}\n",
      ZS_TEST_WORLD, 0, {.env = {{"AGONES_SDK_HTTP_PORT", ""}}, .args = {}});
  EXPECT_EQ(server.Wait(10), std::optional<int>(2));
  EXPECT_NE(server.Log().find("AGONES_SDK_HTTP_PORT is not set"), std::string::npos)
      << server.Log();
}

// A cluster node under Agones with public_address `agones`: NATS and PostgreSQL of its own per
// test, as in cluster_test.cc, and the cluster world (plaza and yard, portals both ways).
class AgonesClusterContract : public test::PostgresSuite {
 protected:
  // A node hosting `zone`; under the fake sidecar (public_address: agones) when `sidecar_port`.
  std::unique_ptr<ServerProcess> Node(const std::string& node, const std::string& zone,
                                      uint16_t sidecar_port = 0, uint16_t game_port = 0) {
    const std::string address = sidecar_port != 0 ? "agones" : "\"127.0.0.1:0\"";
    const std::string top = "storage: {backend: postgres, postgres: \"" + conninfo() + "\"}\n" +
                            "cluster: {nats_url: \"" + nats_.url() + "\", node: " + node +
                            ", public_address: " + address + ", zones: [" + zone + "]}\n" +
                            "agones: {health_interval_seconds: 0.5, address_timeout_seconds: 2}\n";
    ProcessExtras extras;
    if (sidecar_port != 0) extras = AgonesExtras(sidecar_port, game_port);
    return std::make_unique<ServerProcess>("  idle_timeout_seconds: 60\n", top, ZS_CLUSTER_WORLD, 0,
                                           extras);
  }

  test::NatsServer nats_;
};

TEST_F(AgonesClusterContract, TheNodeAnnouncesTheGameServersAddressAndGamePort) {
  const uint16_t yard_port = fakes::UnusedLoopbackPort();
  FakeAgonesSidecar sidecar;
  // "localhost": an address the server could not have made up from its own settings.
  sidecar.set_gameserver(fakes::GameServerJson("localhost", yard_port));
  auto yard = Node("yard-gs", "yard", sidecar.port(), yard_port);
  ASSERT_EQ(yard->port(), yard_port) << yard->Log();
  auto plaza = Node("plaza-a", "plaza");
  const std::string announced = "localhost:" + std::to_string(yard_port);
  EXPECT_NE(yard->Log().find("cluster: public address " + announced), std::string::npos)
      << yard->Log();

  const auto reqs = sidecar.Requests();
  ASSERT_GE(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].target, "/ready");
  EXPECT_EQ(reqs[1].method, "GET");
  EXPECT_EQ(reqs[1].target, "/gameserver");

  // What a client is told when a portal takes it to the yard: the announced address.
  TestClient c(plaza->port());
  ASSERT_TRUE(c.Login("Wanderer")) << plaza->Log();
  c.Move(1, 0, 1);
  const auto m = c.ReadUntil(
      [](const pb::ServerMessage& s) { return s.has_zone_changed() || s.has_notice(); }, 15);
  ASSERT_TRUE(m && m->has_zone_changed()) << plaza->Log() << yard->Log();
  EXPECT_EQ(m->zone_changed().server_address(), announced);
  TestClient there(yard_port);
  pb::ClientMessage hello;
  hello.mutable_hello()->set_protocol_version(wire::kProtocolVersion);
  hello.mutable_hello()->set_ticket(m->zone_changed().ticket());
  there.Send(hello);
  EXPECT_TRUE(there.ReadUntil([](const pb::ServerMessage& s) { return s.has_welcome(); }, 5))
      << yard->Log();
}

TEST_F(AgonesClusterContract, AGameServerNeverPlacedEndsStartUpWithAClearError) {
  FakeAgonesSidecar sidecar;
  sidecar.set_gameserver(fakes::GameServerJson("", 0, "Scheduled"));
  auto yard = Node("yard-gs", "yard", sidecar.port(), fakes::UnusedLoopbackPort());
  EXPECT_EQ(yard->Wait(10), std::optional<int>(1)) << yard->Log();
  EXPECT_NE(yard->Log().find("cluster: agones: no public address from GET /gameserver within "
                             "2.0 s (last: status.address is empty, state Scheduled)"),
            std::string::npos)
      << yard->Log();
  EXPECT_GE(sidecar.Count("/gameserver"), 3u);  // asked again meanwhile
}

}  // namespace
}  // namespace zs::integration
