// Combat: "who does this sword swing hit?"
//
// Every attack (a player's skill input, or a monster's swing queued by the AI) is queued during
// the tick's input and AI steps and resolved in that order in the combat step (ResolveAll):
// alive and cooldown checks, then the skill's shape (arc, circle, line) as one quadtree query
// that already applies the exact hitbox test, nearest hitbox surface first (ties by id) up to
// the skill's target cap, then damage, deaths and respawn timers, and a hit event.
// Friendly fire: players hit monsters, and players only where the zone allows PvP; monsters hit
// players only. In a split zone (docs/seamless.md) the same query finds ghosts: a ghost is hit
// like any entity (same caps, same order), but its damage goes to the cell that owns it (the
// CellBorder's hits, ZoneTickOutput::border), which applies it at its next tick; here the hit
// event shows the damage and never a kill (the owner decides).
//
// Pure simulation; one thread (the zone's). Holds only the tick's queue and its query scratch:
// the entities, the border and the rules are passed to each call (the zone may move).
#pragma once

#include <cstdint>
#include <vector>

#include "core/vec2.h"
#include "spatial/quadtree.h"
#include "zone/cell_border.h"
#include "zone/entity.h"
#include "zone/entity_store.h"
#include "zone/world_config.h"
#include "zone/zone_types.h"

namespace zs::zone {

class Combat {
 public:
  struct Attack {
    uint32_t slot;  // attacker
    uint32_t skill_index;
    float facing;
    Vec2 target;
    bool from_player;
    uint32_t seq = 0;  // the player's input (for its InputResult)
  };
  // What an attack reads besides the entities: the world's skills and the player's respawn time,
  // the zone's PvP rule, bounds and its spawn groups' respawn times.
  struct Rules {
    const WorldConfig& world;
    const ZoneConfig& zone;
  };

  static Attack MonsterAttack(uint32_t slot, float facing, const Entity& target) {
    return {.slot = slot,
            .skill_index = 0,
            .facing = facing,
            .target = target.position,
            .from_player = false,
            .seq = 0};
  }

  void Clear() { attacks_.clear(); }
  void Queue(const Attack& attack) { attacks_.push_back(attack); }
  // Every attack queued since Clear, in order; a player's gets its InputResult (and a cooldown
  // its rejection count).
  void ResolveAll(uint64_t tick, const Rules& rules, EntityStore& store, CellBorder& border,
                  ZoneTickOutput* out);
  // `damage` to a real `target` (never more than it has): deaths and respawn timers.
  static HitTarget Damage(Entity& target, int32_t damage, uint64_t tick, const Rules& rules,
                          EntityStore& store);

 private:
  Outcome Resolve(uint64_t tick, const Attack& a, const Rules& rules, EntityStore& store,
                  CellBorder& border, ZoneTickOutput* out);
  // Reorders query_.ids by distance from `origin` to each hitbox's surface (ties by id).
  void NearestSurfaceFirst(Vec2 origin, const EntityStore& store);

  std::vector<Attack> attacks_;  // this tick's, in order
  spatial::QueryResults query_;
};

}  // namespace zs::zone
