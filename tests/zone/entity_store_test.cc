// EntityStore (zone/entity_store.h) alone: its slots, its quadtree and its counts stay in step
// through inserts, erases, moves, deaths and the ghost <-> real changes of a split zone.
#include "zone/entity_store.h"

#include <gtest/gtest.h>

#include <vector>

#include "zone/test_world.h"
#include "zone/zone.h"

namespace zs::zone {
namespace {

class EntityStoreTest : public ::testing::Test {
 protected:
  static Entity Player(uint32_t index, Vec2 at) {
    Entity e;
    e.id = MakeEntityId(index, 0);
    e.part = PlayerPart{};
    e.position = at;
    e.radius = 0.5f;
    return e;
  }
  static Entity Monster(uint32_t index, Vec2 at) {
    Entity e = Player(index, at);
    e.part = MonsterPart{};
    return e;
  }
  // The ids the tree holds under `mask` within `radius` of `at`, ascending.
  std::vector<EntityId> InTree(uint32_t mask, Vec2 at = {50, 50}, float radius = 200) {
    spatial::QueryResults r;
    store_.tree().QueryCircle({at, radius}, {.mask = mask}, spatial::QueryOrder::kById, &r);
    return r.ids.ToVector();
  }

  const WorldConfig world_ = testing::TestWorld();
  ZoneViews views_{world_.zones[0].interest, world_.overload.near_floor, world_.wire_cost};
  EntityStore store_{TreeConfigFor(world_.zones[0])};
};

TEST_F(EntityStoreTest, AnEraseMovesTheLastSlotIntoTheGapAndTheTreeFollows) {
  const EntityId a = store_.at(store_.Insert(Player(1, {10, 10}), views_)).id;
  const EntityId b = store_.at(store_.Insert(Monster(2, {20, 20}), views_)).id;
  const EntityId c = store_.at(store_.Insert(Player(3, {30, 30}), views_)).id;
  EXPECT_EQ(store_.size(), 3u);
  EXPECT_EQ(store_.player_count(), 2u);
  store_.Erase(static_cast<uint32_t>(store_.SlotOf(a)), views_);
  EXPECT_EQ(store_.Find(a), nullptr);
  EXPECT_EQ(store_.SlotOf(a), -1);
  EXPECT_EQ(store_.SlotOf(c), 0) << "the last slot took the gap";
  ASSERT_NE(store_.Find(c), nullptr);
  EXPECT_EQ(store_.Find(c)->position, (Vec2{30, 30}));
  EXPECT_EQ(store_.player_count(), 1u);
  EXPECT_EQ(InTree(kMaskPlayerAlive), std::vector<EntityId>{c});
  EXPECT_EQ(InTree(kMaskMonsterAlive), std::vector<EntityId>{b});
  EXPECT_EQ(store_.tree().CheckInvariants(), "");
  EXPECT_EQ(store_.Find(MakeEntityId(2, 1)), nullptr) << "another generation of b's index";
  EXPECT_EQ(store_.SlotOf(MakeEntityId(2, 1)), store_.SlotOf(b)) << "... whose index is here";
}

TEST_F(EntityStoreTest, AMoveATurnAndADeathAreRecordedAndTheTreeFollows) {
  Entity& p = store_.at(store_.Insert(Player(1, {10, 10}), views_));
  p.changed = 0;
  store_.Place(p, {12, 10}, 7);
  EXPECT_EQ(p.velocity, (Vec2{2, 0}));
  EXPECT_EQ(p.last_move_tick, 7u);
  EXPECT_NE(p.changed & kChangedPosition, 0u);
  EXPECT_EQ(InTree(kMaskPlayerAlive, {12, 10}, 0.1f), std::vector<EntityId>{p.id});
  p.changed = 0;
  store_.Face(p, p.facing + 1e-6f);
  EXPECT_EQ(p.changed & kChangedFacing, 0u) << "finer than the protocol carries: no turn";
  store_.Face(p, 1.0f);
  EXPECT_NE(p.changed & kChangedFacing, 0u);
  store_.SetAlive(p, false);
  EXPECT_TRUE(InTree(kMaskPlayerAlive).empty());
  EXPECT_EQ(InTree(kMaskPlayerDead), std::vector<EntityId>{p.id});
  EXPECT_EQ(store_.player_count(), 1u) << "a dead player is still a real player";
}

TEST_F(EntityStoreTest, AGhostIsCountedApartAndFoundOnlyUnderTheGhostMasks) {
  Entity& p = store_.at(store_.Insert(Player(1, {10, 10}), views_));
  const EntityId id = p.id;
  store_.MakeGhost(p, 1, 9);
  EXPECT_EQ(p.ghost_of, 1u);
  EXPECT_EQ(p.ghost_seen, 9u);
  EXPECT_EQ(store_.player_count(), 0u);
  EXPECT_EQ(store_.ghost_count(), 1u);
  EXPECT_TRUE(InTree(kMaskPlayerAlive).empty());
  EXPECT_EQ(InTree(kMaskPlayerAlive << kGhostShift), std::vector<EntityId>{id});
  std::vector<EntityId> players;
  store_.AllPlayers(&players);
  EXPECT_TRUE(players.empty()) << "a ghost is simulated elsewhere";
  store_.MakeReal(*store_.Find(id));
  EXPECT_EQ(store_.player_count(), 1u);
  EXPECT_EQ(store_.ghost_count(), 0u);
  EXPECT_EQ(InTree(kMaskPlayerAlive), std::vector<EntityId>{id});
  store_.AllPlayers(&players);
  EXPECT_EQ(players, std::vector<EntityId>{id});
  store_.MakeGhost(*store_.Find(id), 1, 10);
  store_.Erase(static_cast<uint32_t>(store_.SlotOf(id)), views_);
  EXPECT_EQ(store_.ghost_count(), 0u) << "an erased ghost is no longer counted";
  EXPECT_EQ(store_.tree().size(), 0u);
}

}  // namespace
}  // namespace zs::zone
