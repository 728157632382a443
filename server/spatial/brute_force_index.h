// BruteForceIndex: the obviously-correct oracle beside the Quadtree (after Jolt's
// BroadPhaseBruteForce). Same entity model and the same narrow-phase tests from core/shapes.h;
// every query is a linear scan. Used by the differential tests and as the benchmark's baseline
// for small N. Not thread-safe; queries allocate.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/entity_id.h"
#include "core/shapes.h"
#include "spatial/quadtree.h"

namespace zs::spatial {

class BruteForceIndex {
 public:
  struct Entity {
    EntityId id;
    Vec2 center;
    float radius;
    uint32_t mask;
  };

  void Insert(EntityId id, Vec2 center, float radius, uint32_t mask);
  // REQUIRES: id stored.
  void Remove(EntityId id);
  void Move(EntityId id, Vec2 center);
  void Clear() { entities_.clear(); }
  [[nodiscard]] size_t size() const { return entities_.size(); }
  [[nodiscard]] const std::vector<Entity>& entities() const { return entities_; }

  // Results in the given order; kAny means by id here.
  std::vector<EntityId> QueryCircle(const Circle& c, const QueryFilter& f, QueryOrder o) const;
  std::vector<EntityId> QueryAabb(const Aabb& a, const QueryFilter& f, QueryOrder o) const;
  std::vector<EntityId> QuerySector(const Sector& s, const QueryFilter& f, QueryOrder o) const;
  std::vector<EntityId> QueryCapsule(const Capsule& c, const QueryFilter& f, QueryOrder o) const;
  std::vector<EntityId> QueryNearest(Vec2 p, uint32_t k, float max_distance,
                                     const QueryFilter& f) const;
  std::vector<std::pair<EntityId, EntityId>> QueryPairs() const;
  // Quadtree::QueryCircleKeys' keys (centres only), ascending.
  std::vector<RankKey> QueryCircleKeys(Vec2 center, float radius, const QueryFilter& f) const;

 private:
  template <typename Pred>
  std::vector<EntityId> Scan(Pred hit, Vec2 origin, const QueryFilter& f, QueryOrder o) const;

  std::vector<Entity> entities_;
};

}  // namespace zs::spatial
