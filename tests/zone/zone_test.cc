// Zone simulation: movement authority, combat geometry at the edges, cooldowns, target caps,
// friendly fire, monster state transitions, respawn, and portals.
#include "zone/zone.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "zone/test_world.h"
#include "zone/world.h"

namespace zs::zone {
namespace {

using testing::kBite;
using testing::kFireball;
using testing::kSword;
using testing::kThrust;
using testing::kWhirl;
using testing::SpawnAt;
using testing::TestWorld;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// A world with one player at `at` and the given spawn groups in zone 1.
struct Fixture {
  explicit Fixture(std::vector<SpawnGroup> spawns = {}, bool pvp = false, Vec2 at = {50, 50}) {
    WorldConfig c = TestWorld();
    c.zones[0].spawns = std::move(spawns);
    c.zones[0].pvp = pvp;
    c.zones[0].player_spawn = at;
    world = std::make_unique<World>(c);
    player = Join();
  }
  EntityId Join() {
    EntityId id = kInvalidEntity;
    EXPECT_TRUE(world->AddPlayer(std::nullopt, &id).ok());
    return id;
  }
  const Entity& Get(EntityId id) const { return *world->zone(0).store().Find(id); }
  // The monsters of zone 1 in spawn order (their ids ascend).
  std::vector<EntityId> Monsters() const {
    std::vector<EntityId> out;
    for (const Entity& e : world->zone(0).store().entities()) {
      if (e.is_monster()) out.push_back(e.id);
    }
    std::sort(out.begin(), out.end(), [](EntityId a, EntityId b) { return ToRaw(a) < ToRaw(b); });
    return out;
  }
  void Move(EntityId who, Vec2 dir, uint32_t seq = 1) {
    const MoveInput m{who, seq, dir};
    world->Tick({&m, 1}, {});
  }
  void Skill(EntityId who, uint32_t skill, float facing, Vec2 target = {}, uint32_t seq = 1) {
    const SkillInput s{who, seq, skill, facing, target};
    world->Tick({}, {&s, 1});
  }
  const ZoneTickOutput& out() const { return world->output(0); }
  uint32_t Rejected(Reject r) const { return out().rejected[static_cast<size_t>(r)]; }
  // Targets hit by the last tick's events, in order.
  std::vector<EntityId> LastTargets() const {
    std::vector<EntityId> t;
    for (const HitTarget& h : out().targets) t.push_back(h.target);
    return t;
  }

  std::unique_ptr<World> world;
  EntityId player = kInvalidEntity;
};

// ---- movement and authority ----

TEST(Movement, SpeedIsCappedWhateverTheClientSends) {
  Fixture f;
  f.Move(f.player, {1000, 0}, 7);                       // a "teleport" request is just a direction
  EXPECT_FLOAT_EQ(f.Get(f.player).position.x, 50.25f);  // 5 per second at 20 Hz
  EXPECT_FLOAT_EQ(f.Get(f.player).position.y, 50.0f);
  EXPECT_EQ(f.out().views[0].last_input_seq, 7u);
  f.world->Tick({}, {});  // the direction persists until changed
  EXPECT_FLOAT_EQ(f.Get(f.player).position.x, 50.5f);
  f.Move(f.player, {0, 0}, 8);  // stop
  EXPECT_FLOAT_EQ(f.Get(f.player).position.x, 50.5f);
  f.Move(f.player, {3, 4}, 9);  // diagonal: still 0.25 per tick
  EXPECT_NEAR(f.Get(f.player).position.x, 50.65f, 1e-4);
  EXPECT_NEAR(f.Get(f.player).position.y, 50.2f, 1e-4);
}

TEST(Movement, ClampedToZoneBounds) {
  Fixture f({}, false, {99.9f, 0.1f});
  f.Move(f.player, {1, -1});
  for (int i = 0; i < 5; ++i) f.world->Tick({}, {});
  EXPECT_FLOAT_EQ(f.Get(f.player).position.x, 100.0f);
  EXPECT_FLOAT_EQ(f.Get(f.player).position.y, 0.0f);
}

TEST(Movement, BadInputsAreRejectedAndChangeNothing) {
  Fixture f;
  const Vec2 before = f.Get(f.player).position;
  f.Move(f.player, {kNaN, 1});
  EXPECT_EQ(f.Rejected(Reject::kBadValue), 1u);
  f.Move(f.player, {std::numeric_limits<float>::infinity(), 0});
  EXPECT_EQ(f.Rejected(Reject::kBadValue), 1u);
  EXPECT_EQ(f.Get(f.player).position, before);
  EXPECT_EQ(f.out().views[0].last_input_seq, 0u) << "a rejected input is not acknowledged";
  f.Move(MakeEntityId(999, 0), {1, 0});  // unknown entity
  EXPECT_EQ(f.Rejected(Reject::kUnknownEntity), 1u);
  f.Move(MakeEntityId(EntityIndex(f.player), EntityGeneration(f.player) + 1), {1, 0});  // stale
  EXPECT_EQ(f.Rejected(Reject::kUnknownEntity), 1u);
  EXPECT_EQ(f.Get(f.player).position, before);
}

TEST(Movement, AnyFiniteDirectionIsNormalisedHoweverLong) {
  Fixture f;
  const Vec2 before = f.Get(f.player).position;
  const float step = TestWorld().player.speed / static_cast<float>(TestWorld().tick_rate);
  f.Move(f.player, {1e30f, -1e30f}, 50);  // finite but huge: still a direction
  EXPECT_EQ(f.Rejected(Reject::kBadValue), 0u);
  EXPECT_EQ(f.out().views[0].last_input_seq, 50u);
  const Vec2 moved = f.Get(f.player).position - before;
  EXPECT_NEAR(Length(moved), step, 1e-4);
  EXPECT_NEAR(moved.x, -moved.y, 1e-5);
  f.Move(f.player, {3e-39f, 0}, 51);  // a denormal: too short to be a direction, so a stop
  EXPECT_EQ(f.Get(f.player).player().move_direction, (Vec2{}));
}

TEST(Movement, CannotMoveAMonsterOrAnotherZone) {
  Fixture f({SpawnAt(1, {60, 60})});
  const EntityId monster = f.Monsters()[0];
  f.Move(monster, {1, 0});
  EXPECT_EQ(f.Rejected(Reject::kUnknownEntity), 1u);
  EXPECT_EQ(f.Get(monster).position, (Vec2{60, 60}));
}

TEST(Movement, DeadPlayersDoNotMove) {
  WorldConfig c = TestWorld();
  c.zones[0].pvp = true;
  World w(c);
  EntityId a, b;
  ASSERT_TRUE(w.AddPlayer(std::nullopt, &a).ok());
  ASSERT_TRUE(w.AddPlayer(std::nullopt, &b).ok());  // same spot: a can hit b
  for (uint64_t t = 0; w.zone(0).store().Find(b)->alive; ++t) {
    const SkillInput s{a, 1, kWhirl, 0, {}};
    w.Tick({}, {&s, 1});
    ASSERT_LT(t, 200u);
  }
  const Vec2 at = w.zone(0).store().Find(b)->position;
  const MoveInput m{b, 5, {1, 0}};
  w.Tick({&m, 1}, {});
  EXPECT_EQ(w.output(0).rejected[static_cast<size_t>(Reject::kDead)], 1u);
  EXPECT_EQ(w.zone(0).store().Find(b)->position, at);
}

// ---- combat geometry ----

TEST(Combat, ArcHitsAtExactRangeAndEdgeNotBehind) {
  // Player at (50,50) facing +x; sword range 2.5, half-angle 60 degrees, dummies radius 0.5.
  const float c60 = std::cos(kPi / 3), s60 = std::sin(kPi / 3);
  Fixture f({SpawnAt(1, {53.0f, 50}),                           // hitbox exactly at range
             SpawnAt(1, {50 + 2.5f * c60, 50 + 2.5f * s60}),    // centre on the arc's edge
             SpawnAt(1, {48.0f, 50}),                           // behind
             SpawnAt(1, {53.2f, 50}),                           // hitbox 0.2 beyond range
             SpawnAt(1, {50 + 3.0f * c60, 50 - 3.0f * s60})});  // edge ray, hitbox touching
  const std::vector<EntityId> m = f.Monsters();
  f.Skill(f.player, kSword, 0.0f);
  ASSERT_EQ(f.out().events.size(), 1u);
  const std::vector<EntityId> hit = f.LastTargets();
  EXPECT_EQ(hit.size(), 3u);  // cap 3: exactly the three that should be hit
  for (EntityId id : {m[0], m[1], m[4]}) {
    EXPECT_NE(std::find(hit.begin(), hit.end(), id), hit.end()) << ToRaw(id);
  }
  EXPECT_EQ(f.Get(m[2]).hp, 50);
  EXPECT_EQ(f.Get(m[3]).hp, 50);
  EXPECT_EQ(f.Get(m[0]).hp, 38);
}

TEST(Combat, TargetCapTakesNearestFirstTiesById) {
  // Four dummies in reach: two at distance 1, two at 2. Cap 3 takes both near ones and the
  // lower id of the far pair.
  Fixture f(
      {SpawnAt(1, {52, 50}), SpawnAt(1, {51, 50}), SpawnAt(1, {51, 50}), SpawnAt(1, {52, 50})});
  const std::vector<EntityId> m = f.Monsters();
  f.Skill(f.player, kSword, 0.0f);
  EXPECT_EQ(f.LastTargets(), (std::vector<EntityId>{m[1], m[2], m[0]}));
}

TEST(Combat, CooldownRejectsEarlySecondSwing) {
  Fixture f({SpawnAt(1, {51, 50})});
  const EntityId m = f.Monsters()[0];
  f.Skill(f.player, kSword, 0.0f);
  EXPECT_EQ(f.Get(m).hp, 38);
  for (int i = 0; i < 9; ++i) {  // cooldown is 10 ticks
    f.Skill(f.player, kSword, 0.0f);
    EXPECT_EQ(f.Rejected(Reject::kCooldown), 1u) << i;
  }
  EXPECT_EQ(f.Get(m).hp, 38);
  f.Skill(f.player, kSword, 0.0f);
  EXPECT_EQ(f.Get(m).hp, 26);
  f.Skill(f.player, 99, 0.0f);  // not one of the player's skills
  EXPECT_EQ(f.Rejected(Reject::kUnknownSkill), 1u);
  f.Skill(f.player, kThrust, kNaN);
  EXPECT_EQ(f.Rejected(Reject::kBadValue), 1u);
}

TEST(Combat, LineAndGroundCircle) {
  Fixture f({SpawnAt(1, {50, 55.4f}), SpawnAt(1, {50.9f, 53}), SpawnAt(1, {58, 50}),
             SpawnAt(1, {60, 59})});
  const std::vector<EntityId> m = f.Monsters();
  f.Skill(f.player, kThrust, kPi / 2);  // up: 5 long, 1 wide, monsters radius 0.5
  EXPECT_EQ(f.LastTargets(), (std::vector<EntityId>{m[1], m[0]}));
  ASSERT_EQ(f.out().events.size(), 1u);  // a line's origin is the caster's front (zone.proto)
  EXPECT_NEAR(f.out().events[0].origin.x, 50.0f, 1e-4);
  EXPECT_NEAR(f.out().events[0].origin.y, 50.0f + TestWorld().player.radius, 1e-4);
  // Fireball aimed 20 away is pulled back to cast range 10: lands at (60, 50), radius 2.
  f.Skill(f.player, kFireball, 0, {70, 50});
  EXPECT_EQ(f.LastTargets(), (std::vector<EntityId>{m[2]}));
  EXPECT_EQ(f.out().events[0].origin, (Vec2{60, 50}));
}

TEST(Combat, AGroundTargetAtTheZoneEdgeLandsInsideTheZone) {
  // The player stands 3 m from the left edge and aims 8 m beyond it (within cast range 10).
  Fixture f({SpawnAt(1, {0.5f, 50})}, false, {3, 50});
  f.Skill(f.player, kFireball, kPi, {-5, 50});
  ASSERT_EQ(f.out().events.size(), 1u);
  EXPECT_EQ(f.out().events[0].origin, (Vec2{0, 50}));  // on the edge, not outside the zone
  EXPECT_EQ(f.LastTargets(), (std::vector<EntityId>{f.Monsters()[0]}));
}

// One rule for every move and skill: last_input_seq acknowledges each one the server judged,
// applied or refused (COOLDOWN, UNKNOWN_SKILL, DEAD, and RATE_LIMITED decided before the world),
// so a client replaying its unacknowledged inputs drops everything up to it. Chat has its own.
TEST(Authority, EveryJudgedMoveOrSkillIsAcknowledged) {
  Fixture f;
  const auto ack = [&f] {
    return f.world->zone(0).store().Find(f.player)->player().last_input_seq;
  };
  f.Skill(f.player, kSword, 0.0f, {}, 1);
  EXPECT_EQ(ack(), 1u) << "accepted";
  f.Skill(f.player, kSword, 0.0f, {}, 2);
  ASSERT_EQ(f.out().results.size(), 1u);
  EXPECT_EQ(f.out().results[0].outcome, Outcome::kCooldown);
  EXPECT_EQ(ack(), 2u) << "cooldown";
  f.Skill(f.player, 999, 0.0f, {}, 3);
  EXPECT_EQ(f.out().results[0].outcome, Outcome::kUnknownSkill);
  EXPECT_EQ(ack(), 3u) << "unknown skill";
  const InputResult limited{
      .player = f.player, .kind = InputKind::kMove, .seq = 4, .outcome = Outcome::kRateLimited};
  f.world->Tick(World::Inputs{.inputs = {}, .results = {&limited, 1}});
  EXPECT_EQ(f.out().views[0].last_input_seq, 4u) << "rate limited: in this tick's frame";
  const InputResult chat{
      .player = f.player, .kind = InputKind::kChat, .seq = 90, .outcome = Outcome::kRateLimited};
  f.world->Tick(World::Inputs{.inputs = {}, .results = {&chat, 1}});
  EXPECT_EQ(ack(), 4u) << "chat has its own sequence";
  // Dead: a player restored dead refuses moves with DEAD, and acknowledges them.
  PlayerSnapshot dead{
      .zone = 1, .position = {40, 40}, .hp = 0, .alive = false, .respawn_ms = 60000};
  EntityId ghost = kInvalidEntity;
  ASSERT_TRUE(f.world->RestorePlayer(dead, &ghost, "Ghost").ok());
  f.Move(ghost, {1, 0}, 5);
  EXPECT_EQ(f.world->zone(0).store().Find(ghost)->player().last_input_seq, 5u) << "dead";
}

TEST(Authority, InputSequenceNumbersWrapAround) {
  Fixture f;
  f.Move(f.player, {1, 0}, 0xFFFFFFFEu);
  EXPECT_EQ(f.world->zone(0).store().Find(f.player)->player().last_input_seq, 0xFFFFFFFEu);
  f.Move(f.player, {1, 0}, 0xFFFFFFFFu);
  EXPECT_EQ(f.world->zone(0).store().Find(f.player)->player().last_input_seq, 0xFFFFFFFFu);
  f.Move(f.player, {1, 0}, 0);  // after 2^32-1 comes 0: newer, acknowledged
  EXPECT_EQ(f.world->zone(0).store().Find(f.player)->player().last_input_seq, 0u);
  f.Move(f.player, {1, 0}, 5);
  EXPECT_EQ(f.world->zone(0).store().Find(f.player)->player().last_input_seq, 5u);
  f.Move(f.player, {1, 0}, 0xFFFFFFF0u);  // a late input from before the wrap: not newer
  EXPECT_EQ(f.world->zone(0).store().Find(f.player)->player().last_input_seq, 5u);
}

TEST(Combat, NoPvpUnlessTheZoneAllowsIt) {
  for (bool pvp : {false, true}) {
    Fixture f({}, pvp);
    const EntityId other = f.Join();
    f.Skill(f.player, kWhirl, 0);
    EXPECT_EQ(f.Get(other).hp, pvp ? 80 : 100) << "pvp=" << pvp;
    EXPECT_EQ(f.Get(f.player).hp, 100);  // never hits yourself
  }
}

TEST(Combat, KillAndRespawnAtSpawn) {
  Fixture f({SpawnAt(1, {51, 50}, 1, 30)});
  const EntityId m = f.Monsters()[0];
  for (int i = 0; i < 5; ++i) {
    f.Skill(f.player, kSword, 0.0f);
    for (int k = 0; k < 9; ++k) f.world->Tick({}, {});
  }
  EXPECT_FALSE(f.Get(m).alive);
  EXPECT_EQ(f.Get(m).hp, 0);
  for (int t = 0; t < 40 && !f.Get(m).alive; ++t) f.world->Tick({}, {});
  EXPECT_TRUE(f.Get(m).alive);
  EXPECT_EQ(f.Get(m).hp, 50);
  EXPECT_EQ(f.Get(m).position, (Vec2{51, 50}));
}

// ---- monsters ----

TEST(Monsters, AggroChaseAttackLeashAndHeal) {
  // A wolf at (60,50): aggro 8, leash 20, run 4/s, bite range 1.5.
  Fixture f({SpawnAt(2, {60, 50})}, false, {50, 50});
  const EntityId wolf = f.Monsters()[0];
  for (int t = 0; t < 12; ++t) f.world->Tick({}, {});
  EXPECT_EQ(f.Get(wolf).monster().ai, MonsterState::kIdle);  // player 10 away: outside aggro
  f.Move(f.player, {1, 0});                                  // walk towards it
  for (int t = 0; t < 20 && f.Get(wolf).monster().ai == MonsterState::kIdle; ++t)
    f.world->Tick({}, {});
  EXPECT_EQ(f.Get(wolf).monster().ai, MonsterState::kChase);
  EXPECT_EQ(f.Get(wolf).monster().target, f.player);
  f.Move(f.player, {0, 0});
  for (int t = 0; t < 60 && f.Get(f.player).hp == 100; ++t) f.world->Tick({}, {});
  EXPECT_LT(f.Get(f.player).hp, 100);  // it came and bit
  EXPECT_LE(Length(f.Get(wolf).position - f.Get(f.player).position), 1.5f + 0.5f + 0.01f);
  // The player hits it once, then runs west: the wolf follows until 20 from home, gives up,
  // walks home and heals.
  f.Skill(
      f.player, kSword,
      std::atan2(f.Get(wolf).position.y - 50, f.Get(wolf).position.x - f.Get(f.player).position.x));
  EXPECT_LT(f.Get(wolf).hp, 30);
  f.Move(f.player, {-1, 0});
  for (int t = 0; t < 200 && f.Get(wolf).monster().ai != MonsterState::kReturn; ++t)
    f.world->Tick({}, {});
  EXPECT_EQ(f.Get(wolf).monster().ai, MonsterState::kReturn);
  // It noticed beyond the leash (20) and already took this tick's step home (0.2).
  EXPECT_GT(Length(f.Get(wolf).position - Vec2{60, 50}), 19.75f);
  for (int t = 0; t < 300 && f.Get(wolf).monster().ai != MonsterState::kIdle; ++t)
    f.world->Tick({}, {});
  EXPECT_EQ(f.Get(wolf).monster().ai, MonsterState::kIdle);
  EXPECT_EQ(f.Get(wolf).hp, 30);
  EXPECT_LE(Length(f.Get(wolf).position - Vec2{60, 50}), 0.5f);
}

TEST(Monsters, DeadPlayerIsDroppedAndRespawnsAtSpawn) {
  Fixture f({SpawnAt(2, {51.2f, 50}, 12)}, false, {50, 50});  // a pack, right next to the player
  for (int t = 0; t < 400 && f.Get(f.player).alive; ++t) f.world->Tick({}, {});
  ASSERT_FALSE(f.Get(f.player).alive);
  f.world->Tick({}, {});
  for (EntityId w : f.Monsters()) EXPECT_NE(f.Get(w).monster().ai, MonsterState::kChase);
  for (int t = 0; t < 41 && !f.Get(f.player).alive; ++t) f.world->Tick({}, {});
  EXPECT_TRUE(f.Get(f.player).alive);
  EXPECT_EQ(f.Get(f.player).position, (Vec2{50, 50}));
  EXPECT_GE(f.Get(f.player).hp, 40);  // full health, minus at most the bites of this tick
}

// ---- portals ----

TEST(Portals, PlayerChangesZoneAndViewsFollow) {
  World w(TestWorld(true));
  EntityId p, watcher;
  ASSERT_TRUE(w.AddPlayer(1, &p).ok());
  ASSERT_TRUE(w.AddPlayer(2, &watcher).ok());  // at (10,10) in zone 2, where p will arrive
  // Walk east from (50,50) into the portal at x >= 95.
  const MoveInput east{p, 1, {1, 0}};
  w.Tick({&east, 1}, {});
  EXPECT_EQ(*w.ZoneIndexOf(p), 0u);
  uint64_t guard = 0;
  while (*w.ZoneIndexOf(p) == 0 && guard++ < 400) w.Tick({}, {});
  ASSERT_EQ(*w.ZoneIndexOf(p), 1u);
  const ZoneTickOutput& left_zone = w.output(0);
  ASSERT_EQ(left_zone.transfers.size(), 1u);
  EXPECT_EQ(left_zone.transfers[0].player, p);
  bool saw_change = false;
  for (const PlayerView& v : left_zone.views) saw_change |= v.player == p && v.zone_changed;
  EXPECT_TRUE(saw_change);
  EXPECT_EQ(w.zone(0).store().Find(p), nullptr);  // never in two zones
  EXPECT_EQ(w.zone(1).store().Find(p)->position, (Vec2{10, 10}));
  w.Tick({}, {});
  // The watcher already in zone 2 sees p enter, and p sees the watcher.
  const ZoneTickOutput& o = w.output(1);
  auto entered = [&](EntityId viewer, EntityId who) {
    for (const PlayerView& v : o.views) {
      if (v.player != viewer) continue;
      for (const uint32_t slot : v.entered) {
        if (o.states[slot].id == who) return true;
      }
    }
    return false;
  };
  EXPECT_TRUE(entered(watcher, p));
  EXPECT_TRUE(entered(p, watcher));
  EXPECT_EQ(w.zone(1).store().Find(p)->hp, 100);
}

}  // namespace
}  // namespace zs::zone
