// The test worlds, built in one place for the tests and the benchmarks:
//   TestWorld: small, every number chosen so edge cases land exactly (the zone, wire, admin
//     tests);
//   CrowdWorld: the benchmarks' crowd, a large zone with a town square (zone_bench,
//     viewer_bench: their figures depend on every number here, so change none lightly).
// Both count interest bytes as a server does (wire::kWireCost).
#pragma once

#include "interest/interest.h"
#include "wire/wire_cost.h"
#include "zone/world_config.h"

namespace zs::zone::testing {

inline constexpr uint32_t kSword = 1;     // arc: range 2.5, half-angle 60 degrees, 12 damage
inline constexpr uint32_t kWhirl = 2;     // circle around the caster: radius 3, 20 damage
inline constexpr uint32_t kThrust = 3;    // line: 5 long, 1 wide, 18 damage
inline constexpr uint32_t kFireball = 4;  // ground circle: radius 2, cast range 10
inline constexpr uint32_t kBite = 10;     // monster arc: range 1.5, 5 damage

inline constexpr uint32_t kDummy = 1;  // monster template: never moves or fights
inline constexpr uint32_t kWolf = 2;   // monster template: aggro 8, chases, bites

// The test worlds' skills: a sword, a whirl, a thrust, a fireball; the wolves' bite.
inline std::vector<SkillDef> TestSkills() {
  return {
      {.id = kSword,
       .name = "sword",
       .shape = SkillShape::kArc,
       .range = 2.5f,
       .half_angle = kPi / 3,
       .damage = 12,
       .cooldown_ticks = 10,
       .max_targets = 3},
      {.id = kWhirl,
       .name = "whirl",
       .shape = SkillShape::kCircle,
       .radius = 3.0f,
       .damage = 20,
       .cooldown_ticks = 20,
       .max_targets = 8},
      {.id = kThrust,
       .name = "thrust",
       .shape = SkillShape::kLine,
       .range = 5.0f,
       .width = 1.0f,
       .damage = 18,
       .cooldown_ticks = 10,
       .max_targets = 2},
      {.id = kFireball,
       .name = "fireball",
       .shape = SkillShape::kCircle,
       .radius = 2.0f,
       .cast_range = 10.0f,
       .damage = 15,
       .cooldown_ticks = 10,
       .max_targets = 8},
      {.id = kBite,
       .name = "bite",
       .shape = SkillShape::kArc,
       .range = 1.5f,
       .half_angle = kPi / 4,
       .damage = 5,
       .cooldown_ticks = 20,
       .max_targets = 1},
  };
}

// One 100 x 100 zone (id 1), tick rate 20, player speed 5/s (0.25 per tick), no monsters.
// A second zone (id 2) is added when `two_zones`, with portals between them.
inline WorldConfig TestWorld(bool two_zones = false) {
  WorldConfig w;
  w.tick_rate = 20;
  w.seed = 7;
  w.wire_cost = wire::kWireCost;  // the interest budgets count bytes as a server does
  w.player = {.radius = 0.5f,
              .max_hp = 100,
              .speed = 5.0f,
              .skills = {kSword, kWhirl, kThrust, kFireball},
              .respawn_ticks = 40};
  w.skills = TestSkills();
  w.monsters = {{.id = kDummy,
                 .name = "dummy",
                 .radius = 0.5f,
                 .max_hp = 50,
                 .walk_speed = 0,
                 .run_speed = 0,
                 .skill = kBite},
                {.id = kWolf,
                 .name = "wolf",
                 .radius = 0.5f,
                 .max_hp = 30,
                 .walk_speed = 1.0f,
                 .run_speed = 4.0f,
                 .aggro_radius = 8.0f,
                 .leash_radius = 20.0f,
                 .wander_radius = 0.0f,
                 .skill = kBite}};
  ZoneConfig z;
  z.id = 1;
  z.name = "test";
  z.bounds = {{0, 0}, {100, 100}};
  z.view_radius = 20;
  z.view_hysteresis = 4;
  z.player_spawn = {50, 50};
  w.zones.push_back(z);
  if (two_zones) {
    w.zones[0].portals.push_back(
        {.area = {{95, 45}, {100, 55}}, .target_zone = 2, .target_position = {10, 10}});
    ZoneConfig other = z;
    other.id = 2;
    other.name = "other";
    other.player_spawn = {10, 10};
    other.portals = {{.area = {{0, 90}, {5, 100}}, .target_zone = 1, .target_position = {90, 50}}};
    w.zones.push_back(other);
  }
  return w;
}

// The benchmarks' crowd: one zone ("bench", id 1) `side` metres square, view radius 100, a
// town square `square_side` across at its centre where half of `monsters` wolves spawn (the
// rest anywhere); players with a sword and a whirl.
struct Crowd {
  uint32_t monsters = 0;
  float side = 4096;
  float square_side = 512;
  [[nodiscard]] Aabb square() const {
    return {{(side - square_side) / 2, (side - square_side) / 2},
            {(side + square_side) / 2, (side + square_side) / 2}};
  }
  [[nodiscard]] Aabb all() const { return {{0, 0}, {side, side}}; }
};

inline WorldConfig CrowdWorld(const Crowd& crowd) {
  WorldConfig w;
  w.tick_rate = 20;
  w.seed = 5;
  w.wire_cost = wire::kWireCost;
  w.player = {.radius = 0.5f, .max_hp = 100, .speed = 6.0f, .skills = {1, 2}, .respawn_ticks = 100};
  w.skills = {{.id = 1,
               .name = "sword",
               .shape = SkillShape::kArc,
               .range = 2.5f,
               .half_angle = kPi / 3,
               .damage = 12,
               .cooldown_ticks = 10,
               .max_targets = 5},
              {.id = 2,
               .name = "whirl",
               .shape = SkillShape::kCircle,
               .radius = 3.0f,
               .damage = 20,
               .cooldown_ticks = 80,
               .max_targets = 8},
              {.id = 10,
               .name = "bite",
               .shape = SkillShape::kArc,
               .range = 1.2f,
               .half_angle = kPi / 4,
               .damage = 4,
               .cooldown_ticks = 24,
               .max_targets = 1}};
  w.monsters = {{.id = 1,
                 .name = "wolf",
                 .radius = 0.6f,
                 .max_hp = 40,
                 .walk_speed = 1.5f,
                 .run_speed = 5.0f,
                 .aggro_radius = 10.0f,
                 .leash_radius = 40.0f,
                 .wander_radius = 10.0f,
                 .skill = 10}};
  ZoneConfig z;
  z.id = 1;
  z.name = "bench";
  z.bounds = crowd.all();
  z.view_radius = 100;
  z.view_hysteresis = 10;
  z.player_spawn = {crowd.side / 2, crowd.side / 2};
  const uint32_t in_square = crowd.monsters / 2;
  z.spawns = {
      {.monster = 1, .count = in_square, .area = crowd.square(), .respawn_ticks = 600},
      {.monster = 1, .count = crowd.monsters - in_square, .area = z.bounds, .respawn_ticks = 600}};
  w.zones.push_back(z);
  return w;
}

// A spawn group of `count` monsters of `template_id` all exactly at `at`.
inline SpawnGroup SpawnAt(uint32_t template_id, Vec2 at, uint32_t count = 1,
                          uint32_t respawn_ticks = 60) {
  return {.monster = template_id, .count = count, .area = {at, at}, .respawn_ticks = respawn_ticks};
}

// Interest budgets small enough that a few dozen entities fill every tier: 6 near, 10 mid, a
// margin of 3 ranks, a budget of a few updates per tick, 4 relevance overrides.
inline interest::InterestConfig SmallInterest() {
  return {.near_max = 6,
          .mid_max = 10,
          .tier_margin = 3,
          .bytes_per_tick = 40,
          .max_staleness_ticks = 10,
          .summary_interval_ticks = 5,
          .summary_grid = 4,
          .relevant_max = 4};
}

// `w`'s first zone split in two cells side by side (docs/seamless.md): node "west" owns cell 0,
// "east" cell 1; the least ghost distance, and a neighbour silent 20 ticks loses its ghosts.
inline WorldConfig SplitInTwo(WorldConfig w = TestWorld()) {
  ZoneConfig& z = w.zones[0];
  z.cells.columns = 2;
  z.cells.nodes = {"west", "east"};
  z.cells.ghost_distance = MinGhostDistance(w, z);
  z.cells.ghost_timeout_ticks = 20;
  return w;
}

}  // namespace zs::zone::testing
