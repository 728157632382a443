// Entity: one player or monster of a zone, as the simulation keeps it (a dense array of these,
// by slot, in Zone): a body every entity has, and either a player's part or a monster's.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <variant>

#include "core/entity_id.h"
#include "core/vec2.h"
#include "interest/interest.h"
#include "zone/world_config.h"
#include "zone/zone_types.h"

namespace zs::zone {

// Category bits in the quadtree, so queries can ask for "living players" and the like.
enum EntityMask : uint32_t {
  kMaskPlayerAlive = 1u << 0,
  kMaskMonsterAlive = 1u << 1,
  kMaskPlayerDead = 1u << 2,
  kMaskMonsterDead = 1u << 3,
  kMaskAll = 0xFu,
  // A ghost (zone/cells.h) carries its real category shifted up by kGhostShift.
  kMaskGhosts = kMaskAll << 4,
};
inline constexpr uint32_t kGhostShift = 4;

// What only a player has.
struct PlayerPart {
  Vec2 move_direction;  // unit vector or zero
  uint32_t last_input_seq = 0;
  bool input_seq_seen = false;            // the first input's seq is taken as it is
  float view_radius = 0;                  // 0: the zone's default (ViewRadiusOf)
  EntityId last_target = kInvalidEntity;  // the entity this player hit last (interest relevance)
};

// Ticks between the aggro scans of an idle monster (monster_ai.cc): a monster's next_think is at
// most this far ahead.
inline constexpr uint64_t kThinkInterval = 10;

// What only a monster has.
struct MonsterPart {
  MonsterState ai = MonsterState::kIdle;
  EntityId target = kInvalidEntity;
  Vec2 home;
  Vec2 wander_goal;
  uint64_t next_think = 0;
  uint32_t spawn_group = 0;
  const MonsterTemplate* type = nullptr;  // its template (WorldConfig outlives the zone)
};

// The body every entity has (where it is, how it moves and fights, what changed), then the
// player part or the monster part: `part` says which the entity is.
struct Entity {
  EntityId id = kInvalidEntity;
  uint32_t template_id = 0;  // monster template; 0 for players
  Vec2 position;
  Vec2 prev_position;           // at the end of the previous tick
  uint32_t last_move_tick = 0;  // the last tick in which the position changed
  uint32_t prev_move_tick = 0;  // ... as of the end of the previous tick
  std::array<uint32_t, interest::kChangeFields> changed_at{};  // by ChangeBits bit: last change
  float facing = 0;
  Vec2 velocity;  // units per tick, the last step taken
  float radius = 0.5f;
  float speed = 0;  // units per tick (players: the cap)
  int32_t hp = 0;
  int32_t max_hp = 0;
  bool alive = true;
  uint64_t respawn_tick = 0;  // when dead
  std::array<uint32_t, kMaxSkills> skills{};
  std::array<uint64_t, kMaxSkills> ready_tick{};  // per skill: first tick it may be used again
  uint32_t num_skills = 0;
  uint8_t changed = 0;  // ChangeBits of the current tick
  // kWholeZone: a real entity, simulated here. Otherwise a ghost of the entity real in that
  // cell: shown and hit-tested here, never simulated (zone/cells.h).
  uint32_t ghost_of = kWholeZone;
  uint64_t ghost_seen = 0;  // a ghost: the tick of the last batch that listed it
  std::variant<PlayerPart, MonsterPart> part;

  [[nodiscard]] EntityKind kind() const {
    return std::holds_alternative<PlayerPart>(part) ? EntityKind::kPlayer : EntityKind::kMonster;
  }
  [[nodiscard]] bool is_player() const { return std::holds_alternative<PlayerPart>(part); }
  [[nodiscard]] bool is_ghost() const { return ghost_of != kWholeZone; }
  // A player simulated here, with a client of its own: ghosts are not.
  [[nodiscard]] bool is_real_player() const { return is_player() && !is_ghost(); }
  [[nodiscard]] bool is_monster() const { return std::holds_alternative<MonsterPart>(part); }
  // REQUIRES: the entity is of that kind (else std::bad_variant_access).
  [[nodiscard]] PlayerPart& player() { return std::get<PlayerPart>(part); }
  [[nodiscard]] const PlayerPart& player() const { return std::get<PlayerPart>(part); }
  [[nodiscard]] MonsterPart& monster() { return std::get<MonsterPart>(part); }
  [[nodiscard]] const MonsterPart& monster() const { return std::get<MonsterPart>(part); }
};

// The entity `id` among `entities` (by slot; `slot_of` by EntityIndex: the slot, or -1), or
// null for an unknown or stale id.
[[nodiscard]] inline const Entity* FindEntity(std::span<const Entity> entities,
                                              std::span<const int32_t> slot_of, EntityId id) {
  const uint32_t index = EntityIndex(id);
  if (id == kInvalidEntity || index >= slot_of.size() || slot_of[index] < 0) return nullptr;
  const Entity& e = entities[static_cast<size_t>(slot_of[index])];
  return e.id == id ? &e : nullptr;
}

// What a neighbouring cell is told of `e` as a ghost (a player's name is the World's to add).
[[nodiscard]] inline GhostState GhostOf(const Entity& e) {
  return {.id = e.id,
          .kind = e.kind(),
          .template_id = e.template_id,
          .position = e.position,
          .velocity = e.velocity,
          .facing = e.facing,
          .radius = e.radius,
          .hp = e.hp,
          .max_hp = e.max_hp,
          .alive = e.alive,
          .name = {}};
}

// The radius `player` sees within: its own override, else the zone's. The one place where
// "view_radius 0 means the zone's default" is resolved.
[[nodiscard]] inline float ViewRadiusOf(const Entity& player, const ZoneConfig& zone) {
  const float own = player.is_player() ? player.player().view_radius : 0;
  return own > 0 ? own : zone.view_radius;
}

}  // namespace zs::zone
