// Entity: one player or monster of a zone, as the simulation keeps it (a dense array of these,
// by slot, in Zone). The fields every entity has come first; then a player's and a monster's
// own (a monster's player fields, and a player's monster fields, stay at their defaults).
#pragma once

#include <array>
#include <cstdint>
#include <span>

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
};

enum class MonsterState : uint8_t { kIdle, kChase, kReturn };

struct Entity {
  EntityId id = kInvalidEntity;
  EntityKind kind = EntityKind::kPlayer;
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

  // players
  Vec2 move_direction;  // unit vector or zero
  uint32_t last_input_seq = 0;
  bool input_seq_seen = false;            // the first input's seq is taken as it is
  float view_radius = 0;                  // 0: the zone's default
  EntityId last_target = kInvalidEntity;  // the entity this player hit last (interest relevance)

  // monsters
  MonsterState ai = MonsterState::kIdle;
  EntityId target = kInvalidEntity;
  Vec2 home;
  Vec2 wander_goal;
  uint64_t next_think = 0;
  uint32_t spawn_group = 0;
  const MonsterTemplate* monster = nullptr;  // its template (WorldConfig outlives the zone)
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

// The radius `player` sees within: its own override, else the zone's. The one place where
// "view_radius 0 means the zone's default" is resolved.
[[nodiscard]] inline float ViewRadiusOf(const Entity& player, const ZoneConfig& zone) {
  return player.view_radius > 0 ? player.view_radius : zone.view_radius;
}

}  // namespace zs::zone
