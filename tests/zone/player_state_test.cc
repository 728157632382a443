// A player's lasting state (PlayerSnapshot): taken from one world and put back in another, it
// gives the same player: place, facing, hp, dead timer and cooldowns; values that cannot be
// valid are repaired on the way in, never trusted.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "zone/test_world.h"
#include "zone/world.h"

namespace zs::zone {
namespace {

using testing::kSword;
using testing::kWhirl;
using testing::TestWorld;

// Walks a player east for `ticks`, swinging the sword and the whirl on the last tick.
EntityId WalkAndSwing(World& w, uint32_t ticks) {
  EntityId p;
  EXPECT_TRUE(w.AddPlayer(std::nullopt, &p, "Aria").ok());
  const MoveInput east{.entity = p, .seq = 1, .direction = {1, 0}};
  for (uint32_t t = 0; t + 1 < ticks; ++t) w.Tick({&east, 1}, {});
  const SkillInput skills[] = {
      {.entity = p, .seq = 2, .skill = kSword, .facing = 1.0f, .target = {}},
      {.entity = p, .seq = 3, .skill = kWhirl, .facing = 1.0f, .target = {}}};
  w.Tick({}, skills);
  return p;
}

TEST(PlayerState, ASnapshotPutBackInAnotherWorldIsTheSamePlayer) {
  World a(TestWorld());
  const EntityId p = WalkAndSwing(a, 8);
  PlayerSnapshot saved;
  ASSERT_TRUE(a.SnapshotPlayer(p, &saved).ok());
  EXPECT_EQ(saved.zone, 1u);
  EXPECT_FLOAT_EQ(saved.position.x, 50 + 8 * 0.25f);  // still walking on the last tick
  EXPECT_FLOAT_EQ(saved.facing, 1.0f);
  ASSERT_EQ(saved.num_cooldowns, 2u);  // sword 10 ticks, whirl 20 ticks, both used last tick
  EXPECT_EQ(saved.cooldowns[0].skill, kSword);
  EXPECT_EQ(saved.cooldowns[0].remaining_ms, 500u);  // usable again 10 ticks (of 50 ms) on
  EXPECT_EQ(saved.cooldowns[1].remaining_ms, 1000u);

  World b(TestWorld());
  for (int t = 0; t < 33; ++t) b.Tick({}, {});  // another clock altogether
  EntityId q;
  ASSERT_TRUE(b.RestorePlayer(saved, &q, "Aria").ok());
  PlayerSnapshot again;
  ASSERT_TRUE(b.SnapshotPlayer(q, &again).ok());
  EXPECT_EQ(again, saved);
  EXPECT_EQ(b.NameOf(q), "Aria");
}

TEST(PlayerState, TheCooldownStillRunsAfterTheRestore) {
  World a(TestWorld());
  const EntityId p = WalkAndSwing(a, 2);
  PlayerSnapshot saved;
  ASSERT_TRUE(a.SnapshotPlayer(p, &saved).ok());
  World b(TestWorld());
  EntityId q;
  ASSERT_TRUE(b.RestorePlayer(saved, &q, "Aria").ok());
  const SkillInput swing{.entity = q, .seq = 9, .skill = kSword, .facing = 0, .target = {}};
  b.Tick({}, {&swing, 1});
  ASSERT_EQ(b.output(0).results.size(), 1u);
  EXPECT_EQ(b.output(0).results[0].outcome, Outcome::kCooldown);
  for (int t = 0; t < 8; ++t) b.Tick({}, {});
  const SkillInput later{.entity = q, .seq = 10, .skill = kSword, .facing = 0, .target = {}};
  b.Tick({}, {&later, 1});
  EXPECT_EQ(b.output(0).results[0].outcome, Outcome::kAccepted) << "9 ticks after the swing";
}

TEST(PlayerState, ADeadPlayerStaysDeadUntilTheRestOfItsTimerRuns) {
  World b(TestWorld());
  const PlayerSnapshot dead{
      .zone = 1, .position = {20, 30}, .hp = 0, .alive = false, .respawn_ms = 500};
  EntityId q;
  ASSERT_TRUE(b.RestorePlayer(dead, &q, "Ghost").ok());
  for (int t = 0; t < 9; ++t) b.Tick({}, {});
  EXPECT_FALSE(b.zone(0).store().Find(q)->alive);
  b.Tick({}, {});  // the 10th tick: 500 ms at 20 ticks per second
  const Entity* e = b.zone(0).store().Find(q);
  EXPECT_TRUE(e->alive);
  EXPECT_EQ(e->hp, e->max_hp);
  EXPECT_EQ(e->position, (Vec2{50, 50})) << "respawned at the zone's spawn point";
}

TEST(PlayerState, ImpossibleSavedValuesAreRepairedNotTrusted) {
  World b(TestWorld(/*two_zones=*/true));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  PlayerSnapshot bad{.zone = 1,
                     .position = {nan, 5},
                     .facing = INFINITY,
                     .hp = 1'000'000,
                     .alive = true,
                     .cooldowns = {{{.skill = kSword, .remaining_ms = UINT32_MAX},
                                    {.skill = 999, .remaining_ms = 5000}}},
                     .num_cooldowns = 77};
  EntityId q;
  ASSERT_TRUE(b.RestorePlayer(bad, &q, "Odd").ok());
  PlayerSnapshot got;
  ASSERT_TRUE(b.SnapshotPlayer(q, &got).ok());
  EXPECT_EQ(got.position, (Vec2{50, 50})) << "a position that is not a number: the spawn";
  EXPECT_EQ(got.facing, 0.0f);
  EXPECT_EQ(got.hp, 100) << "clamped to max hp";
  ASSERT_EQ(got.num_cooldowns, 1u) << "the unknown skill is dropped";
  EXPECT_EQ(got.cooldowns[0].remaining_ms, 500u) << "no longer than the skill's own cooldown";

  const PlayerSnapshot far{.zone = 2, .position = {-1e9f, 1e9f}, .hp = 5, .alive = true};
  ASSERT_TRUE(b.RestorePlayer(far, &q, "Far").ok());
  ASSERT_TRUE(b.SnapshotPlayer(q, &got).ok());
  EXPECT_EQ(got.zone, 2u);
  const auto& bounds = b.zone(1).config().bounds;
  EXPECT_TRUE(bounds.Contains(got.position)) << "clamped into the zone";

  const PlayerSnapshot gone{.zone = 42, .position = {1, 1}, .hp = 7, .alive = true};
  ASSERT_TRUE(b.RestorePlayer(gone, &q, "Lost").ok());
  ASSERT_TRUE(b.SnapshotPlayer(q, &got).ok());
  EXPECT_EQ(got.zone, 1u) << "a zone the world no longer has: the first zone";
  EXPECT_EQ(got.position, (Vec2{50, 50}));
  EXPECT_EQ(got.hp, 7);
}

}  // namespace
}  // namespace zs::zone
