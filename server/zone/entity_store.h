// EntityStore: a zone's entities and its quadtree, kept in step.
//
// Entities live in a dense array of slots; a table maps an EntityId's index to its slot (-1:
// not here). Every change the quadtree must see goes through here: an entity inserted or erased
// (the views are told which slots churned and which viewers came or went), moved, turned, dead
// or alive again, made a ghost of another cell or made real here. The counts of real players
// and of ghosts follow those changes.
//
// Erasing swaps the last slot into the erased one: a loop that erases visits slots from the
// highest down. References into the store are invalidated by Insert and Erase.
//
// Pure simulation: no sockets, threads, clocks or logging. Not thread-safe: the zone's thread
// mutates it; the views read it (const) while the zone waits for them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/entity_id.h"
#include "core/shapes.h"
#include "core/vec2.h"
#include "spatial/quadtree.h"
#include "zone/entity.h"
#include "zone/world_config.h"
#include "zone/zone_views.h"

namespace zs::zone {

// The quadtree settings a zone uses for its bounds (the loader validates them).
[[nodiscard]] spatial::QuadtreeConfig TreeConfigFor(const ZoneConfig& config);

class EntityStore {
 public:
  explicit EntityStore(const spatial::QuadtreeConfig& tree) : tree_(tree) {}

  // ---- reading ----
  [[nodiscard]] const Entity* Find(EntityId id) const {
    return FindEntity(entities_, slot_of_, id);
  }
  [[nodiscard]] Entity* Find(EntityId id);
  // The slot of some generation of `id`'s index, or -1 when none is here.
  [[nodiscard]] int32_t SlotOf(EntityId id) const;
  [[nodiscard]] Entity& at(uint32_t slot) { return entities_[slot]; }
  [[nodiscard]] const Entity& at(uint32_t slot) const { return entities_[slot]; }
  [[nodiscard]] size_t size() const { return entities_.size(); }
  [[nodiscard]] const std::vector<Entity>& entities() const { return entities_; }
  [[nodiscard]] std::span<Entity> all() { return entities_; }
  [[nodiscard]] const std::vector<int32_t>& slots() const { return slot_of_; }  // by index
  [[nodiscard]] const spatial::Quadtree& tree() const { return tree_; }
  [[nodiscard]] size_t player_count() const { return player_count_; }  // real players
  [[nodiscard]] size_t ghost_count() const { return ghost_count_; }
  // Players (alive or dead, real or ghosts) whose hitbox overlaps `circle`, ascending id.
  void PlayersIn(const Circle& circle, std::vector<EntityId>* out) const;
  // Every real player, ascending id.
  void AllPlayers(std::vector<EntityId>* out) const;
  // The quadtree category of `e`: player or monster, alive or dead, real or a ghost.
  [[nodiscard]] static uint32_t MaskOf(const Entity& e);

  // ---- changing ----
  // Adds `e` (REQUIRES: its index is not here; its position inside the tree's bounds) and
  // returns its slot. A real player becomes a viewer.
  uint32_t Insert(Entity e, ZoneViews& views);
  // Removes the entity at `slot` (reads only its id and kind: it may have been moved from).
  void Erase(uint32_t slot, ZoneViews& views);
  // Moves `e` in tick `tick` and records what changed (a step, as a velocity).
  void Place(Entity& e, Vec2 position, uint64_t tick);
  void Face(Entity& e, float facing);
  void SetAlive(Entity& e, bool alive);
  // A real entity becomes a ghost of cell `cell`, last listed at `seen` (a player stops being
  // counted as real; the caller stops its view).
  void MakeGhost(Entity& e, uint32_t cell, uint64_t seen);
  // A ghost becomes real here (a player is counted as real; the caller starts its view).
  void MakeReal(Entity& e);

 private:
  spatial::Quadtree tree_;
  std::vector<Entity> entities_;
  std::vector<int32_t> slot_of_;  // by EntityIndex; -1 when not here
  size_t player_count_ = 0;
  size_t ghost_count_ = 0;
  mutable spatial::QueryResults query_;  // PlayersIn's scratch (no allocation once warm)
};

}  // namespace zs::zone
