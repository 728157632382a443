// WorldConfig: everything the simulation needs to know about a world, as plain data.
//
// Produced by LoadWorldConfig (config/config_loader.h) from the YAML files under config/, or built
// directly by tests and benchmarks. All durations are already converted to ticks; all angles to
// radians; distances are world units (metres). The simulation trusts these values: the loader
// is where they are validated.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/shapes.h"
#include "interest/interest.h"
#include "interest/overload.h"
#include "zone/cells.h"

namespace zs::zone {

enum class SkillShape : uint8_t {
  kArc,     // a sector in front of the caster: range, half_angle
  kCircle,  // a disc of `radius`, around the caster (cast_range 0) or a ground point within
            // cast_range
  kLine,    // a thrust: a capsule from the caster, `range` long, `width` wide
};

struct SkillDef {
  uint32_t id = 0;
  std::string name;
  SkillShape shape = SkillShape::kArc;
  float range = 0;       // arc radius, line length
  float half_angle = 0;  // arc, radians
  float radius = 0;      // circle
  float cast_range = 0;  // circle: 0 = centred on the caster
  float width = 0;       // line
  int32_t damage = 0;
  uint32_t cooldown_ticks = 0;
  uint32_t max_targets = 1;  // nearest first, ties by id
};

struct MonsterTemplate {
  uint32_t id = 0;
  std::string name;
  float radius = 0.5f;
  int32_t max_hp = 1;
  float walk_speed = 1;  // units per second, idle wandering and returning home
  float run_speed = 1;   // units per second, chasing
  float aggro_radius = 0;
  float leash_radius = 0;   // chase gives up this far from home
  float wander_radius = 0;  // idle wandering stays this close to home
  uint32_t skill = 0;
};

struct PlayerTemplate {
  float radius = 0.5f;
  int32_t max_hp = 100;
  float speed = 6;  // units per second
  std::vector<uint32_t> skills;
  uint32_t respawn_ticks = 100;
};

struct SpawnGroup {
  uint32_t monster = 0;  // MonsterTemplate id
  uint32_t count = 0;
  Aabb area;
  uint32_t respawn_ticks = 0;
};

struct Portal {
  Aabb area;  // a player whose centre enters this rectangle is moved
  uint32_t target_zone = 0;
  Vec2 target_position;
};

struct ZoneConfig {
  uint32_t id = 0;
  std::string name;
  Aabb bounds;
  float view_radius = 50;             // an entity enters a player's view within this
  float view_hysteresis = 5;          // ... and leaves only beyond view_radius + view_hysteresis
  float chat_radius = 30;             // `say` reaches the players whose hitbox is within this
  interest::InterestConfig interest;  // what each player is sent of what it may see
  bool pvp = false;
  Vec2 player_spawn;
  std::vector<SpawnGroup> spawns;
  std::vector<Portal> portals;
  CellLayout cells;  // 1 x 1 (the default): the zone is not split
};

struct WorldConfig {
  uint32_t tick_rate = 20;  // ticks per second
  uint64_t seed = 1;
  interest::OverloadConfig overload;  // when and how far interest budgets shrink
  // What an entity costs a client on the wire, for the interest budgets: stated by the wire
  // layer (wire::kWireCost) and set by whoever builds the world for a server (the zone runner)
  // or a test. Not read from YAML.
  interest::WireCost wire_cost;
  PlayerTemplate player;
  std::vector<SkillDef> skills;
  std::vector<MonsterTemplate> monsters;
  std::vector<ZoneConfig> zones;

  [[nodiscard]] const SkillDef* FindSkill(uint32_t id) const;
  [[nodiscard]] const MonsterTemplate* FindMonster(uint32_t id) const;
  [[nodiscard]] const ZoneConfig* FindZone(uint32_t id) const;
};

// The least ghost_distance a split zone may have (zone/cells.h), so that the border changes
// nothing a player can see or hit: the zone's view radius + hysteresis, the longest reach of a
// skill (its shape's extent from the caster, plus the largest hitbox), and the longest step any
// entity takes in one tick. In metres.
[[nodiscard]] float MinGhostDistance(const WorldConfig& world, const ZoneConfig& zone);

}  // namespace zs::zone
