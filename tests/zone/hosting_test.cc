// A world that hosts only some of its zones (the rest run on other servers): a player who walks
// into a portal to a zone hosted elsewhere departs (out of every zone, id and state kept), and
// the caller either sends it off or takes it back beside the portal.
#include <gtest/gtest.h>

#include <vector>

#include "zone/client_model.h"
#include "zone/test_world.h"
#include "zone/world.h"

namespace zs::zone {
namespace {

using testing::TestWorld;

// Walks `p` east until it departs; returns the departure.
World::Departure WalkIntoThePortal(World& w, EntityId p) {
  const MoveInput east{.entity = p, .seq = 1, .direction = {1, 0}};
  for (int t = 0; t < 400; ++t) {
    w.Tick({&east, 1}, {});
    if (!w.departures().empty()) return w.departures()[0];
  }
  ADD_FAILURE() << "never reached the portal";
  return {};
}

TEST(Hosting, OnlyTheHostedZonesExistHere) {
  const std::vector<uint32_t> hosted = {2};
  World w(TestWorld(/*two_zones=*/true), hosted);
  ASSERT_EQ(w.zone_count(), 1u);
  EXPECT_EQ(w.zone(0).config().id, 2u);
  EXPECT_TRUE(w.Hosts(2));
  EXPECT_FALSE(w.Hosts(1));
  ASSERT_NE(w.FindZone(1), nullptr) << "its config is still known (bounds, name)";
  EntityId p;
  EXPECT_FALSE(w.AddPlayer(1, &p).ok()) << "zone 1 is not here";
  EXPECT_TRUE(w.AddPlayer(2, &p).ok());
}

TEST(Hosting, APlayerWalkingIntoAZoneHostedElsewhereDepartsAndCanBeTakenBack) {
  const std::vector<uint32_t> hosted = {1};
  World w(TestWorld(/*two_zones=*/true), hosted);
  EntityId p;
  ASSERT_TRUE(w.AddPlayer(std::nullopt, &p, "Aria").ok());
  const World::Departure d = WalkIntoThePortal(w, p);
  EXPECT_EQ(d.player, p);
  EXPECT_EQ(d.from_zone, 1u);
  EXPECT_EQ(d.to_zone, 2u);
  EXPECT_EQ(d.arrival, (Vec2{10, 10}));
  EXPECT_FALSE(w.ZoneIndexOf(p).has_value()) << "in no zone while it departs";
  EXPECT_EQ(w.zone(0).store().player_count(), 0u);
  PlayerSnapshot s;
  ASSERT_TRUE(w.SnapshotPlayer(p, &s).ok()) << "its state is kept";
  EXPECT_EQ(s.zone, 2u);
  EXPECT_EQ(s.position, (Vec2{10, 10}));
  EXPECT_EQ(w.NameOf(p), "Aria");

  w.Tick({}, {});
  EXPECT_TRUE(w.departures().empty()) << "listed once, in the tick it left";
  ASSERT_TRUE(w.TakeBack(p).ok());
  const Entity* e = w.zone(0).store().Find(p);
  ASSERT_NE(e, nullptr);
  EXPECT_LT(e->position.x, 95.0f) << "beside the portal, not in it";
  EXPECT_GT(e->position.x, 94.0f);
  EXPECT_EQ(e->player().move_direction, (Vec2{})) << "standing still";
  EXPECT_FALSE(w.TakeBack(p).ok()) << "only once";
}

// The other server answered before the next tick: the player is taken back beside the portal
// between two ticks, so a watcher who knew it never saw it leave. The watcher gets the jump
// whole, never as one more step from where it stood in the portal (on a client, such a step
// walks it past the zone's edge: found by client_sim as moved_out_of_zone under load).
TEST(Hosting, AWatcherSeesAPlayerTakenBackBetweenTicksWhereItStands) {
  const std::vector<uint32_t> hosted = {1};
  World w(TestWorld(/*two_zones=*/true), hosted);
  EntityId walker, watcher;
  ASSERT_TRUE(w.AddPlayer(std::nullopt, &walker).ok());
  ASSERT_TRUE(w.AddPlayer(std::nullopt, &watcher).ok());
  testing::Client client;
  testing::ClientStats stats;
  std::vector<interest::KnownEntity> known;
  const auto watch = [&] {
    for (const PlayerView& v : w.output(0).views) {
      if (v.player != watcher) continue;
      w.zone(0).interest().Known(watcher, &known);
      return client.Apply(w.output(0), v, known, &stats);
    }
    return ::testing::AssertionFailure() << "no view for the watcher";
  };
  // Both walk east; the watcher stops 10 m short of the portal, the walker walks on into it,
  // is taken back at once, and walks into it again (three times).
  int taken_back = 0;
  for (int t = 0; t < 600 && taken_back < 3; ++t) {
    const Entity* me = w.zone(0).store().Find(watcher);
    ASSERT_NE(me, nullptr);
    const auto seq = static_cast<uint32_t>(t + 1);
    const std::vector<MoveInput> moves = {
        {.entity = walker, .seq = seq, .direction = {1, 0}},
        {.entity = watcher, .seq = seq, .direction = {me->position.x < 85 ? 1.0f : 0.0f, 0}}};
    w.Tick(moves, {});
    ASSERT_TRUE(watch()) << "tick " << t;
    if (!w.departures().empty()) {
      ASSERT_TRUE(w.TakeBack(walker).ok());
      ++taken_back;
    }
  }
  EXPECT_EQ(taken_back, 3);
  EXPECT_EQ(client.known().count(ToRaw(walker)), 1u) << "it never left the watcher's view";
  EXPECT_GT(stats.positions_checked, 100u);
}

TEST(Hosting, ASentOffPlayerIsForgottenAndItsIdFreed) {
  const std::vector<uint32_t> hosted = {1};
  World w(TestWorld(/*two_zones=*/true), hosted);
  EntityId p;
  ASSERT_TRUE(w.AddPlayer(std::nullopt, &p, "Bran").ok());
  (void)WalkIntoThePortal(w, p);
  ASSERT_TRUE(w.SendOff(p).ok());
  PlayerSnapshot s;
  EXPECT_FALSE(w.SnapshotPlayer(p, &s).ok());
  EXPECT_EQ(w.NameOf(p), "");
  EXPECT_FALSE(w.TakeBack(p).ok());
  EXPECT_FALSE(w.SendOff(p).ok());
}

TEST(Hosting, PortalsBetweenHostedZonesWorkAsBefore) {
  World w(TestWorld(/*two_zones=*/true));  // both here
  EntityId p;
  ASSERT_TRUE(w.AddPlayer(std::nullopt, &p).ok());
  const MoveInput east{.entity = p, .seq = 1, .direction = {1, 0}};
  for (int t = 0; t < 400 && w.ZoneIndexOf(p) == std::optional<size_t>(0); ++t) {
    w.Tick({&east, 1}, {});
    EXPECT_TRUE(w.departures().empty());
  }
  EXPECT_EQ(w.ZoneIndexOf(p), std::optional<size_t>(1));
}

// Two worlds of one process, each hosting one zone, sharing their ids: a player handed from one
// to the other keeps its id, its state and its input sequence.
TEST(Hosting, AHandedOverPlayerKeepsItsIdStateAndInputSequenceInTheOtherWorld) {
  EntityIdAllocator ids;
  const std::vector<uint32_t> plaza = {1};
  const std::vector<uint32_t> yard = {2};
  World a(TestWorld(/*two_zones=*/true), plaza, &ids);
  World b(TestWorld(/*two_zones=*/true), yard, &ids);
  EntityId p;
  ASSERT_TRUE(a.AddPlayer(std::nullopt, &p, "Cato").ok());
  const size_t live = ids.live();
  (void)WalkIntoThePortal(a, p);
  PlayerSnapshot before;
  ASSERT_TRUE(a.SnapshotPlayer(p, &before).ok());

  World::HandedPlayer handed;
  ASSERT_TRUE(a.HandOver(p, &handed).ok());
  EXPECT_EQ(ids.live(), live) << "the id goes with the player, it is not freed";
  EXPECT_EQ(handed.id, p);
  EXPECT_EQ(handed.name, "Cato");
  EXPECT_EQ(handed.state, before) << "zone 2, at the portal's arrival point";
  EXPECT_EQ(handed.last_input_seq, 1u);
  EXPECT_TRUE(handed.input_seq_seen);
  PlayerSnapshot gone;
  EXPECT_FALSE(a.SnapshotPlayer(p, &gone).ok()) << "world a forgot it";
  EXPECT_FALSE(a.HandOver(p, &handed).ok()) << "only once";
  EXPECT_EQ(a.NameOf(p), "");

  ASSERT_TRUE(b.Adopt(handed).ok());
  EXPECT_EQ(b.ZoneIndexOf(p), std::optional<size_t>(0));
  EXPECT_EQ(b.NameOf(p), "Cato");
  PlayerSnapshot after;
  ASSERT_TRUE(b.SnapshotPlayer(p, &after).ok());
  EXPECT_EQ(after, before);
  const Entity* e = b.zone(0).store().Find(p);
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->player().input_seq_seen);
  EXPECT_EQ(e->player().last_input_seq, 1u)
      << "the client's next input (seq 2) is newer, an old one is not";
  EXPECT_EQ(b.Adopt(handed).code(), StatusCode::kAlreadyExists) << "never twice";

  ASSERT_TRUE(b.RemovePlayer(p).ok());
  EXPECT_EQ(ids.live(), live - 1) << "freed where it left the game";
}

TEST(Hosting, AdoptRefusesAZoneThatIsNotHosted) {
  EntityIdAllocator ids;
  const std::vector<uint32_t> plaza = {1};
  World a(TestWorld(/*two_zones=*/true), plaza, &ids);
  World::HandedPlayer stranger{.id = ids.Allocate(), .name = "Dag", .state = {}};
  stranger.state.zone = 2;
  EXPECT_EQ(a.Adopt(stranger).code(), StatusCode::kNotFound);
  EXPECT_FALSE(a.ZoneIndexOf(stranger.id).has_value());
}

}  // namespace
}  // namespace zs::zone
