// Small hand-built worlds for the zone tests: every number chosen so edge cases land exactly.
#pragma once

#include "zone/world_config.h"

namespace zs::zone::testing {

inline constexpr uint32_t kSword = 1;     // arc: range 2.5, half-angle 60 degrees, 12 damage
inline constexpr uint32_t kWhirl = 2;     // circle around the caster: radius 3, 20 damage
inline constexpr uint32_t kThrust = 3;    // line: 5 long, 1 wide, 18 damage
inline constexpr uint32_t kFireball = 4;  // ground circle: radius 2, cast range 10
inline constexpr uint32_t kBite = 10;     // monster arc: range 1.5, 5 damage

// One 100 x 100 zone (id 1), tick rate 20, player speed 5/s (0.25 per tick), no monsters.
// A second zone (id 2) is added when `two_zones`, with portals between them.
inline WorldConfig TestWorld(bool two_zones = false) {
  WorldConfig w;
  w.tick_rate = 20;
  w.seed = 7;
  w.player = {0.5f, 100, 5.0f, {kSword, kWhirl, kThrust, kFireball}, 40};
  w.skills = {
      {kSword, "sword", SkillShape::kArc, 2.5f, kPi / 3, 0, 0, 0, 12, 10, 3},
      {kWhirl, "whirl", SkillShape::kCircle, 0, 0, 3.0f, 0, 0, 20, 20, 8},
      {kThrust, "thrust", SkillShape::kLine, 5.0f, 0, 0, 0, 1.0f, 18, 10, 2},
      {kFireball, "fireball", SkillShape::kCircle, 0, 0, 2.0f, 10.0f, 0, 15, 10, 8},
      {kBite, "bite", SkillShape::kArc, 1.5f, kPi / 4, 0, 0, 0, 5, 20, 1},
  };
  // Template 1: a dummy that never moves or fights. Template 2: a wolf.
  w.monsters = {{1, "dummy", 0.5f, 50, 0, 0, 0, 0, 0, kBite},
                {2, "wolf", 0.5f, 30, 1.0f, 4.0f, 8.0f, 20.0f, 0.0f, kBite}};
  ZoneConfig z;
  z.id = 1;
  z.name = "test";
  z.bounds = {{0, 0}, {100, 100}};
  z.view_radius = 20;
  z.view_hysteresis = 4;
  z.player_spawn = {50, 50};
  w.zones.push_back(z);
  if (two_zones) {
    w.zones[0].portals.push_back({{{95, 45}, {100, 55}}, 2, {10, 10}});
    ZoneConfig other = z;
    other.id = 2;
    other.name = "other";
    other.player_spawn = {10, 10};
    other.portals = {Portal{{{0, 90}, {5, 100}}, 1, {90, 50}}};
    w.zones.push_back(other);
  }
  return w;
}

// A spawn group of `count` monsters of `template_id` all exactly at `at`.
inline SpawnGroup SpawnAt(uint32_t template_id, Vec2 at, uint32_t count = 1,
                          uint32_t respawn_ticks = 60) {
  return {template_id, count, {at, at}, respawn_ticks};
}

}  // namespace zs::zone::testing
