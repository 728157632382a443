// ClientRelay (host/client_relay.h) in process, against a fake RelayPort that records what it
// is asked and answers what each test sets: the node `west` of a zone split in two cells
// (zone::testing::SplitInTwo), with its directory and keeper, and time passed in by hand. A
// silent owner closes the client; a silent home lets its player go (and zs_players, which
// counts the clients here, does not move); a migrant whose client is gone is dismissed; a second
// login at the home of a player away is refused and the owner told; inputs for a player let go
// are sent on. The same behaviour across real processes: tests/integration/split_zone_relay_test.
#include "host/client_relay.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "host/character_keeper.h"
#include "host/metrics.h"
#include "host/player_directory.h"
#include "host/relay_port.h"
#include "zone/test_world.h"
#include "zone/world.h"

namespace zs::host {
namespace {

// A connection's end: how it was closed, if it was.
class ClosingSink final : public SessionSink {
 public:
  void DeliverFrame(std::string_view /*frame*/, FrameKind /*kind*/) override { ++frames_; }
  void CloseWith(std::string /*last_frame*/, CloseReason reason) override { closed_ = reason; }
  [[nodiscard]] uint32_t ProtocolVersion() const override { return 9; }
  [[nodiscard]] std::optional<CloseReason> closed() const { return closed_; }

 private:
  int frames_ = 0;
  std::optional<CloseReason> closed_;
};

// What a RelayLink would be asked, and what the other side would have done (set by the test).
class FakeRelayPort final : public RelayPort {
 public:
  struct Sent {
    RelayAddress to;    // FromHome: only .session (the local one) is set
    bool leave = true;  // else an input
  };
  bool FromHome(uint64_t session, const ClientInput* input) override {
    if (!away.contains(session)) return false;
    from_home.push_back({.to = {.session = session}, .leave = input == nullptr});
    return true;
  }
  void SendOn(const RelayAddress& to, const ClientInput* input) override {
    sent_on.push_back({.to = to, .leave = input == nullptr});
  }
  std::shared_ptr<SessionSink> SinkAtHome(const RelayAddress& to,
                                          uint32_t /*protocol_version*/) override {
    homes.push_back(to);
    auto sink = std::make_shared<ClosingSink>();
    home_sinks.push_back(sink);
    return sink;
  }
  void Away(uint64_t session, std::weak_ptr<SessionSink> /*sink*/, zone::CellRef owner) override {
    away[session] = owner;
  }
  void Back(uint64_t session) override { away.erase(session); }
  double LastFrameRelayedAt(uint64_t session) override {
    const auto it = last_frame.find(session);
    return it == last_frame.end() ? 0 : it->second;
  }
  void Hold(std::span<const uint64_t> sessions) override {
    held.emplace_back(sessions.begin(), sessions.end());
  }
  uint64_t HomeNotices(uint32_t /*zone*/, SessionKey key) override { return notices[key]; }

  std::vector<Sent> from_home, sent_on;
  std::vector<RelayAddress> homes;
  std::vector<std::shared_ptr<ClosingSink>> home_sinks;
  std::map<uint64_t, zone::CellRef> away;
  std::map<uint64_t, double> last_frame;  // by session: when its owner's last frame came
  std::vector<std::vector<uint64_t>> held;
  std::map<SessionKey, uint64_t> notices;  // by key: held notices from its home
};

constexpr uint32_t kWest = 0;
constexpr uint32_t kEast = 1;
constexpr uint64_t kSession = 5;      // a connection of the west's
constexpr uint64_t kEastSession = 7;  // a connection of the east's

class ClientRelayTest : public ::testing::Test {
 protected:
  ClientRelayTest() { relay_.Attach(&port_); }

  [[nodiscard]] uint32_t zone_id() const { return config_.zones[0].id; }

  // A batch of the west's to the east with player `id`'s migrant in it.
  [[nodiscard]] zone::GhostBatch ToTheEast(EntityId id) const {
    zone::GhostBatch batch;
    batch.zone = zone_id();
    batch.from_cell = kWest;
    batch.to_cell = kEast;
    batch.migrants.emplace_back();
    batch.migrants.back().body.id = id;
    batch.migrants.back().body.kind = zone::EntityKind::kPlayer;
    return batch;
  }

  // A player migrant of `home`'s client `session`, called `name`.
  static ClientRelay::Arriving Migrant(uint32_t raw_id, std::string name, std::string home,
                                       uint64_t session) {
    ClientRelay::Arriving a;
    a.client.entity = static_cast<EntityId>(raw_id);
    a.name = std::move(name);
    a.client.home = std::move(home);
    a.client.session = session;
    a.client.last_frame_tick = 40;
    a.client.protocol_version = 9;
    a.last_input_seq = 3;
    return a;
  }

  // Wes, a client of the west's, in the west's cell; his migrant in a batch to the east sent.
  EntityId WesGoesEast(double now) {
    EntityId id = kInvalidEntity;
    EXPECT_TRUE(world_.AddPlayer(std::nullopt, &id, "Wes").ok());
    players_.Add(SessionKey::Local(kSession),
                 {.entity = id, .sink = wes_, .name = "Wes", .account = 0});
    const zone::GhostBatch batch = ToTheEast(id);
    std::vector<MigrantClient> clients;
    relay_.SendAway(batch, &clients);
    relay_.AfterBatchSent(now);
    EXPECT_EQ(clients.size(), 1u);
    const MigrantClient* client = ClientOf(clients, id);
    EXPECT_NE(client, nullptr);
    if (client == nullptr) return id;
    EXPECT_EQ(client->home, "west");
    EXPECT_EQ(client->session, kSession);
    return id;
  }

  // Eve, a client of the east's, arriving here as a migrant with her name.
  SessionKey EveArrives(double now) {
    const ClientRelay::Arriving eve = Migrant(101, "Eve", "east", kEastSession);
    relay_.Take(0, {&eve, 1}, now);
    return SessionKey::Relayed(kEast, kEastSession);
  }

  zone::WorldConfig config_ = zone::testing::SplitInTwo();
  zone::EntityIdAllocator ids_{zone::IdsOfCell(config_.zones[0].cells, kWest)};
  std::vector<zone::HostedCell> hosted_{{.zone_id = config_.zones[0].id, .cell = kWest}};
  zone::World world_{config_, {}, &ids_, hosted_};
  Metrics metrics_;
  PlayerDirectory players_;
  CharacterKeeper keeper_{&world_,
                          &players_,
                          metrics_.keeper(),
                          nullptr,
                          nullptr,
                          {},
                          [](SessionKey, const storage::LoadResult&) {}};
  ClientRelay relay_{world_, players_, keeper_, metrics_.cells().relay};
  FakeRelayPort port_;
  std::shared_ptr<ClosingSink> wes_ = std::make_shared<ClosingSink>();
};

TEST_F(ClientRelayTest, AClientWhoseOwnerRelaysNothingForThreeSecondsIsClosed) {
  WesGoesEast(100);
  ASSERT_TRUE(players_.BySession(SessionKey::Local(kSession))->owner)
      << "away, still listed at his home";
  ASSERT_TRUE(port_.away.contains(kSession)) << "relayed once the batch went";
  relay_.Watch(102.9, false);
  EXPECT_FALSE(wes_->closed()) << "3 s have not passed since he went";
  port_.last_frame[kSession] = 102.5;  // the owner's last frame
  relay_.Watch(105.4, false);
  EXPECT_FALSE(wes_->closed()) << "2.9 s since the last frame";
  relay_.Watch(105.6, false);
  EXPECT_EQ(wes_->closed(), CloseReason::kZoneUnavailable) << "3.1 s since the last frame";
  ASSERT_EQ(port_.from_home.size(), 1u);
  EXPECT_TRUE(port_.from_home[0].leave) << "the owner, should it live, lets him go";
  EXPECT_EQ(players_.BySession(SessionKey::Local(kSession)), nullptr);
  EXPECT_FALSE(port_.away.contains(kSession));
}

TEST_F(ClientRelayTest, AHomeTellsTheOwnersOfItsPlayersAwayThatItHoldsThem) {
  WesGoesEast(100);
  relay_.Watch(100.1, false);
  relay_.Watch(100.3, false);  // within the hold period: nothing more
  relay_.Watch(100.7, false);
  ASSERT_EQ(port_.held.size(), 2u);
  EXPECT_EQ(port_.held[0], std::vector<uint64_t>{kSession});
}

TEST_F(ClientRelayTest, APlayerRelayedForWhoseHomeFallsSilentIsLetGoAndNoClientIsUncounted) {
  const int64_t clients = metrics_.keeper().players.online.value();
  const SessionKey key = EveArrives(100);
  const PlayerDirectory::Player* eve = players_.BySession(key);
  ASSERT_NE(eve, nullptr);
  EXPECT_EQ(eve->name, "Eve") << "named by her migrant";
  EXPECT_EQ(players_.ByName("Eve"), eve);
  ASSERT_EQ(port_.homes.size(), 1u);
  EXPECT_EQ(port_.homes[0].to_cell, kEast) << "her frames go to her home";
  EXPECT_EQ(port_.homes[0].session, kEastSession);

  port_.notices[key] = 1;
  relay_.Watch(101, false);  // a notice: counted from now
  relay_.Watch(102.9, false);
  EXPECT_NE(players_.BySession(key), nullptr) << "1.9 s since the notice";
  relay_.Watch(103.1, false);
  EXPECT_EQ(players_.BySession(key), nullptr) << "2.1 s: saved and let go";
  EXPECT_EQ(metrics_.cells().relay.homes_silent.value(), 1u);
  EXPECT_EQ(port_.home_sinks[0]->closed(), CloseReason::kZoneUnavailable)
      << "should her home hear it, it closes her client";
  EXPECT_EQ(metrics_.keeper().players.online.value(), clients)
      << "zs_players counts the clients here; hers is the east's";
}

TEST_F(ClientRelayTest, AMigrantWhoseClientLeftIsDismissedNotListed) {
  const ClientRelay::Arriving back = Migrant(40, "Wes", "west", kSession);
  relay_.Take(0, {&back, 1}, 100);  // ours, but no such connection any more
  EXPECT_EQ(players_.BySession(SessionKey::Local(kSession)), nullptr);
  EXPECT_TRUE(port_.homes.empty()) << "no sink for a client that is gone";

  const ClientRelay::Arriving stranger = Migrant(41, "Zed", "north", 3);
  relay_.Take(0, {&stranger, 1}, 100);  // a home that is no cell's node
  EXPECT_EQ(players_.ByName("Zed"), nullptr);
  EXPECT_TRUE(port_.homes.empty());
}

TEST_F(ClientRelayTest, ASecondLoginAtTheHomeOfAPlayerAwayIsRefusedAndTheOwnerTold) {
  WesGoesEast(100);
  const auto second = std::make_shared<ClosingSink>();
  std::weak_ptr<SessionSink> weak = second;
  EXPECT_TRUE(relay_.RefuseJoinOfAway(SessionKey::Local(9), {.account = 0, .name = "Wes"}, weak));
  EXPECT_EQ(wes_->closed(), CloseReason::kLoggedInElsewhere);
  EXPECT_EQ(second->closed(), CloseReason::kZoneUnavailable) << "log in again once saved";
  ASSERT_EQ(port_.from_home.size(), 1u);
  EXPECT_TRUE(port_.from_home[0].leave) << "the owner saves him and lets him go";
  EXPECT_EQ(players_.BySession(SessionKey::Local(kSession)), nullptr);
  EXPECT_FALSE(relay_.RefuseJoinOfAway(SessionKey::Local(10), {.account = 0, .name = "Wes"}, weak))
      << "nobody away by that name any more: the login goes on";
}

TEST_F(ClientRelayTest, InputsForAPlayerLetGoToAnotherCellAreSentOnToItsOwner) {
  const SessionKey key = EveArrives(100);
  const zone::GhostBatch batch = ToTheEast(static_cast<EntityId>(101));
  std::vector<MigrantClient> clients;
  relay_.SendAway(batch, &clients);  // she walks home
  ASSERT_EQ(clients.size(), 1u);
  EXPECT_EQ(clients[0].entity, static_cast<EntityId>(101));
  EXPECT_EQ(clients[0].home, "east");
  EXPECT_EQ(clients[0].session, kEastSession);
  EXPECT_EQ(clients[0].last_frame_tick, 40u)
      << "her client's tick count goes on from her migrant's";
  EXPECT_EQ(players_.BySession(key), nullptr) << "let go here";

  const ClientInput move = zone::MoveInput{.entity = kInvalidEntity, .seq = 4, .direction = {1, 0}};
  EXPECT_TRUE(relay_.ToOwner(key, nullptr, &move)) << "an input in flight to here";
  EXPECT_TRUE(relay_.ToOwner(key, nullptr, nullptr)) << "and her leaving";
  ASSERT_EQ(port_.sent_on.size(), 2u);
  EXPECT_EQ(port_.sent_on[0].to.to_cell, kEast);
  EXPECT_EQ(port_.sent_on[0].to.session, kEastSession);
  EXPECT_FALSE(port_.sent_on[0].leave);
  EXPECT_TRUE(port_.sent_on[1].leave);
  EXPECT_FALSE(relay_.ToOwner(key, nullptr, &move)) << "after her leaving: nothing to send on";
}

// Eve, placed by her login at the east in the west's cell, migrates here at the end of the
// east's first tick; her client leaves in the tick her migrant is taken, before it is real
// here (the world makes it real as its tick starts). The keeper saves and removes her once that
// tick has run: no player stays real without a client.
TEST_F(ClientRelayTest, APlayerWhoseClientLeavesInTheTickItsMigrantArrivesIsNotLeftReal) {
  zone::EntityIdAllocator east_ids{zone::IdsOfCell(config_.zones[0].cells, kEast)};
  const std::vector<zone::HostedCell> east_cell{{.zone_id = zone_id(), .cell = kEast}};
  zone::World east{config_, {}, &east_ids, east_cell};
  world_.SetPlayersCross(true);
  east.SetPlayersCross(true);
  const auto exchange = [&] {  // each world ticks, then takes the other's batches
    world_.Tick({}, {});
    east.Tick({}, {});
    for (const zone::GhostBatch& b : world_.output(0).border) {
      EXPECT_EQ(east.TakeGhosts(b), zone::GhostVerdict::kTaken);
    }
    for (const zone::GhostBatch& b : east.output(0).border) {
      EXPECT_EQ(world_.TakeGhosts(b), zone::GhostVerdict::kTaken);
    }
  };
  exchange();
  exchange();  // each has heard the other
  EntityId eve = kInvalidEntity;
  ASSERT_TRUE(
      east.RestorePlayer({.zone = zone_id(), .position = {45, 50}, .hp = 100}, &eve, "Eve").ok());
  east.Tick({}, {});
  std::optional<zone::GhostBatch> with_eve;
  for (const zone::GhostBatch& b : east.output(0).border) {
    if (!b.migrants.empty()) with_eve = b;
  }
  ASSERT_TRUE(with_eve) << "she went on to the west at the end of her first tick";
  const zone::Migrant& m = with_eve->migrants[0];
  ClientRelay::Arriving arriving = Migrant(ToRaw(eve), m.body.name, "east", kEastSession);
  ASSERT_EQ(world_.TakeGhosts(*with_eve), zone::GhostVerdict::kTaken);
  relay_.Take(0, {&arriving, 1}, 100);
  const SessionKey key = SessionKey::Relayed(kEast, kEastSession);
  ASSERT_NE(players_.BySession(key), nullptr);
  EXPECT_EQ(players_.BySession(key)->name, "Eve") << "named by her migrant, with no ghost here";

  keeper_.Logout(key);  // her leaving, in the same tick
  world_.Tick({}, {});  // makes her real
  keeper_.DismissArrived();
  EXPECT_EQ(world_.zone(0).store().player_count(), 0u) << "saved and removed once real";
  EXPECT_EQ(players_.BySession(key), nullptr);
}

TEST_F(ClientRelayTest, DetachedItRelaysNothing) {
  relay_.Attach(nullptr);
  const ClientInput move = zone::MoveInput{.entity = kInvalidEntity, .seq = 1, .direction = {1, 0}};
  EXPECT_FALSE(relay_.ToOwner(SessionKey::Local(kSession), nullptr, &move));
  EXPECT_FALSE(relay_.RefuseJoinOfAway(SessionKey::Local(1), {.account = 0, .name = "Wes"}, wes_));
  relay_.Watch(1000, true);
  EXPECT_TRUE(port_.held.empty());
}

}  // namespace
}  // namespace zs::host
