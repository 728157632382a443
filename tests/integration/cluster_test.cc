// Zones on two zone_server processes joined through NATS (issue 9): a real nats-server with
// JetStream and a real PostgreSQL server (shared storage), both started here on loopback / a
// unix socket, and two real zone_server processes: one hosts the plaza, the other the yard
// (tests/integration/world/cluster.yaml: portals both ways).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "integration/harness.h"
#include "support/nats_server.h"
#include "support/postgres_server.h"

namespace zs::integration {
namespace {

void Sleep(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

// One NATS and one PostgreSQL server per test (each test its own world state).
class Cluster : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { postgres_ = new test::PostgresServer(); }
  static void TearDownTestSuite() {
    delete postgres_;
    postgres_ = nullptr;
  }
  void SetUp() override {
    database_ = "zs_cluster_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++);
    postgres_->CreateDatabase(database_);
  }

  // A node hosting `zone` (plaza or yard) as `node`.
  std::unique_ptr<ServerProcess> Node(const std::string& node, const std::string& zone,
                                      const std::string& extra = "") {
    const std::string top =
        "storage: {backend: postgres, postgres: \"" + postgres_->conninfo(database_) +
        "\", checkpoint_seconds: 1}\n" + "cluster: {nats_url: \"" + nats_.url() + "\", node: " +
        node + ", public_address: \"127.0.0.1:0\", zones: [" + zone +
        "], directory_ttl_seconds: 3" + extra + "}\n";
    return std::make_unique<ServerProcess>("  idle_timeout_seconds: 60\n", top, ZS_CLUSTER_WORLD);
  }

  static inline test::PostgresServer* postgres_ = nullptr;
  static inline int counter_ = 0;
  test::NatsServer nats_;
  std::string database_;
};

void HelloTicket(TestClient& c, const std::string& ticket) {
  pb::ClientMessage m;
  m.mutable_hello()->set_protocol_version(wire::kProtocolVersion);
  m.mutable_hello()->set_ticket(ticket);
  c.Send(m);
}

// Walks `c` east into the plaza's portal; returns the ZoneChanged (nullopt if none came).
std::optional<pb::ZoneChanged> WalkIntoThePortal(TestClient& c) {
  c.Move(1, 0, 1);
  const auto m = c.ReadUntil(
      [](const pb::ServerMessage& s) { return s.has_zone_changed() || s.has_notice(); }, 15);
  if (!m || !m->has_zone_changed()) return std::nullopt;
  return m->zone_changed();
}

uint16_t PortOf(const std::string& address) {
  return static_cast<uint16_t>(std::stoi(address.substr(address.rfind(':') + 1)));
}

TEST_F(Cluster, APortalToAZoneOnAnotherServerHandsThePlayerOverWithAOneTimeTicket) {
  auto plaza = Node("plaza-a", "plaza");
  auto yard = Node("yard-a", "yard");
  TestClient c(plaza->port());
  ASSERT_TRUE(c.Login("Traveller")) << plaza->Log();
  const auto z = WalkIntoThePortal(c);
  ASSERT_TRUE(z) << plaza->Log();
  EXPECT_EQ(z->zone_name(), "yard");
  EXPECT_EQ(PortOf(z->server_address()), yard->port());
  ASSERT_FALSE(z->ticket().empty());
  const auto kick = c.ReadUntilClosed(3);
  ASSERT_TRUE(kick && kick->has_kick());
  EXPECT_EQ(kick->kick().reason(), "zone_handoff");

  TestClient there(yard->port());
  HelloTicket(there, z->ticket());
  const auto w = there.ReadUntil([](const pb::ServerMessage& s) { return s.has_welcome(); }, 5);
  ASSERT_TRUE(w) << yard->Log();
  EXPECT_EQ(w->welcome().player_name(), "Traveller");
  EXPECT_EQ(w->welcome().zone_id(), 2u);
  EXPECT_EQ(w->welcome().x(), 5000) << "the portal's arrival point";
  Sleep(0.3);
  EXPECT_EQ(MetricValue(yard->HttpGet("/metrics"), "zs_players"), 1);
  EXPECT_EQ(MetricValue(plaza->HttpGet("/metrics"), "zs_players"), 0) << "in one zone only";

  for (const std::string& bad : {z->ticket(), std::string("forged-") + z->ticket()}) {
    TestClient again(yard->port());
    HelloTicket(again, bad);
    const auto last = again.ReadUntilClosed(3);
    ASSERT_TRUE(last && last->has_error()) << "replayed or forged";
    EXPECT_EQ(last->error().code(), pb::ERROR_CODE_BAD_TICKET);
  }
}

TEST_F(Cluster, ALoginIsRoutedToTheServerOfItsCharactersZone) {
  auto plaza = Node("plaza-a", "plaza");
  auto yard = Node("yard-a", "yard");
  {
    TestClient c(plaza->port());
    ASSERT_TRUE(c.Login("Roamer"));
    const auto z = WalkIntoThePortal(c);
    ASSERT_TRUE(z);
    TestClient there(yard->port());
    HelloTicket(there, z->ticket());
    ASSERT_TRUE(there.ReadUntil([](const pb::ServerMessage& s) { return s.has_welcome(); }, 5));
  }  // logs out in the yard
  Sleep(0.5);
  TestClient back(plaza->port());
  back.Hello("Roamer");  // at the plaza's server, but the character is in the yard
  const auto m = back.ReadUntil(
      [](const pb::ServerMessage& s) { return s.has_zone_changed() || s.has_welcome(); }, 5);
  ASSERT_TRUE(m && m->has_zone_changed()) << plaza->Log();
  EXPECT_EQ(PortOf(m->zone_changed().server_address()), yard->port());
  TestClient there(yard->port());
  HelloTicket(there, m->zone_changed().ticket());
  const auto w = there.ReadUntil([](const pb::ServerMessage& s) { return s.has_welcome(); }, 5);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->welcome().zone_id(), 2u);
}

TEST_F(Cluster, AZoneNobodyHostsLeavesThePlayerBesideThePortalWithANotice) {
  auto plaza = Node("plaza-a", "plaza");  // no yard node
  TestClient c(plaza->port());
  ASSERT_TRUE(c.Login("Stuck"));
  c.Move(1, 0, 1);
  const auto n = c.ReadUntil([](const pb::ServerMessage& s) { return s.has_notice(); }, 15);
  ASSERT_TRUE(n) << plaza->Log();
  EXPECT_EQ(n->notice().code(), pb::NOTICE_CODE_ZONE_UNAVAILABLE);
  EXPECT_NE(n->notice().text().find("yard"), std::string::npos) << n->notice().text();
  EXPECT_FALSE(c.closed());
  const auto tick = c.ReadUntil([](const pb::ServerMessage& s) { return s.has_tick(); }, 2);
  ASSERT_TRUE(tick) << "still in the world, still ticking";
  EXPECT_EQ(MetricValue(plaza->HttpGet("/metrics"), "zs_players"), 1);
  EXPECT_GE(MetricValue(plaza->HttpGet("/metrics"), "zs_handoffs_failed_total"), 1);
}

TEST_F(Cluster, ASecondNodeClaimingAHostedZoneRefusesToStart) {
  auto yard = Node("yard-a", "yard");
  auto rival = Node("yard-b", "yard");
  const auto code = rival->Wait(10);
  ASSERT_TRUE(code.has_value()) << "the second claimant keeps running";
  EXPECT_EQ(*code, 1);
  EXPECT_NE(rival->Log().find("already hosted by node 'yard-a'"), std::string::npos)
      << rival->Log();
  TestClient c(yard->port());
  EXPECT_TRUE(c.Login("Unbothered")) << "the first is unaffected";
}

TEST_F(Cluster, ATicketNeverUsedExpiresAndTheCharacterWaitsInStorage) {
  auto plaza = Node("plaza-a", "plaza");
  auto yard = Node("yard-a", "yard", ", ticket_seconds: 2");
  std::string ticket;
  {
    TestClient c(plaza->port());
    ASSERT_TRUE(c.Login("Dawdler"));
    const auto z = WalkIntoThePortal(c);
    ASSERT_TRUE(z);
    ticket = z->ticket();
  }  // never goes to the yard
  Sleep(3.5);
  TestClient late(yard->port());
  HelloTicket(late, ticket);
  const auto last = late.ReadUntilClosed(3);
  ASSERT_TRUE(last && last->has_error());
  EXPECT_EQ(last->error().code(), pb::ERROR_CODE_BAD_TICKET) << "expired";
  EXPECT_NE(yard->Log().find("expired unused"), std::string::npos) << yard->Log();
  TestClient again(yard->port());  // a fresh login at the yard's server finds it there
  const auto w = again.Login("Dawdler");
  ASSERT_TRUE(w) << yard->Log();
  EXPECT_EQ(w->zone_id(), 2u);
}

}  // namespace
}  // namespace zs::integration
