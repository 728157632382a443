#include "zone/entity_store.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/vec2.h"

namespace zs::zone {

spatial::QuadtreeConfig TreeConfigFor(const ZoneConfig& config) {
  spatial::QuadtreeConfig c;
  c.bounds = config.bounds;
  return c;
}

namespace {

// One 65536th of a turn: the finest facing the protocol carries.
constexpr float kFacingResolution = 2 * kPi / 65536;

}  // namespace

Entity* EntityStore::Find(EntityId id) {
  return const_cast<Entity*>(std::as_const(*this).Find(id));
}

int32_t EntityStore::SlotOf(EntityId id) const {
  const uint32_t index = EntityIndex(id);
  return index < slot_of_.size() ? slot_of_[index] : -1;
}

uint32_t EntityStore::MaskOf(const Entity& e) {
  uint32_t mask = 0;
  if (e.is_player()) {
    mask = e.alive ? kMaskPlayerAlive : kMaskPlayerDead;
  } else {
    mask = e.alive ? kMaskMonsterAlive : kMaskMonsterDead;
  }
  return e.is_ghost() ? mask << kGhostShift : mask;
}

uint32_t EntityStore::Insert(Entity e, ZoneViews& views) {
  const uint32_t index = EntityIndex(e.id);
  if (index >= slot_of_.size()) slot_of_.resize(static_cast<size_t>(index) + 1, -1);
  const auto slot = static_cast<uint32_t>(entities_.size());
  slot_of_[index] = static_cast<int32_t>(slot);
  views.MarkChurned(slot);
  // The position was clamped into the zone by the caller, so the quadtree accepts it.
  (void)tree_.Insert(e.id, e.position, e.radius, MaskOf(e));
  if (e.is_real_player()) {
    ++player_count_;
    views.AddViewer(e.id);
  }
  if (e.is_ghost()) ++ghost_count_;
  entities_.push_back(std::move(e));
  return slot;
}

void EntityStore::Erase(uint32_t slot, ZoneViews& views) {
  Entity& e = entities_[slot];
  (void)tree_.Remove(e.id);
  if (e.is_real_player()) {
    --player_count_;
    views.RemoveViewer(e.id);
  }
  if (e.is_ghost()) --ghost_count_;
  slot_of_[EntityIndex(e.id)] = -1;
  views.MarkChurned(slot);
  views.MarkChurned(entities_.size() - 1);
  if (slot + 1 != entities_.size()) {
    e = std::move(entities_.back());
    slot_of_[EntityIndex(e.id)] = static_cast<int32_t>(slot);
  }
  entities_.pop_back();
}

void EntityStore::PlayersIn(const Circle& circle, std::vector<EntityId>* out) const {
  spatial::QueryFilter filter;
  filter.mask = kMaskPlayerAlive | kMaskPlayerDead;
  tree_.QueryCircle(circle, filter, spatial::QueryOrder::kById, &query_);
  out->assign(query_.ids.begin(), query_.ids.end());
}

void EntityStore::AllPlayers(std::vector<EntityId>* out) const {
  out->clear();
  for (const Entity& e : entities_) {
    if (e.is_real_player()) out->push_back(e.id);
  }
  std::sort(out->begin(), out->end(), [](EntityId a, EntityId b) { return ToRaw(a) < ToRaw(b); });
}

void EntityStore::Place(Entity& e, Vec2 position, uint64_t tick) {
  if (position == e.position) return;
  e.velocity = position - e.position;
  e.position = position;
  e.last_move_tick = static_cast<uint32_t>(tick);
  e.changed |= kChangedPosition;
  (void)tree_.Move(e.id, position);
}

void EntityStore::Face(Entity& e, float facing) {
  const float f = NormalizeAngle(facing);
  // A turn finer than kFacingResolution is no turn: a monster walking straight at its goal
  // recomputes its heading every step, and float noise must not cost an update per step.
  if (std::abs(NormalizeAngle(f - e.facing)) < kFacingResolution) return;
  e.facing = f;
  e.changed |= kChangedFacing;
}

void EntityStore::SetAlive(Entity& e, bool alive) {
  if (e.alive == alive) return;
  e.alive = alive;
  e.changed |= kChangedAlive;
  (void)tree_.SetMask(e.id, MaskOf(e));
}

void EntityStore::MakeGhost(Entity& e, uint32_t cell, uint64_t seen) {
  if (e.is_player()) --player_count_;
  e.ghost_of = cell;
  e.ghost_seen = seen;
  ++ghost_count_;
  (void)tree_.SetMask(e.id, MaskOf(e));
}

void EntityStore::MakeReal(Entity& e) {
  e.ghost_of = kWholeZone;
  e.ghost_seen = 0;
  --ghost_count_;
  if (e.is_player()) ++player_count_;
  (void)tree_.SetMask(e.id, MaskOf(e));
}

}  // namespace zs::zone
