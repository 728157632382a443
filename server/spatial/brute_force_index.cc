#include "spatial/brute_force_index.h"

#include <algorithm>
#include <cmath>

namespace zs::spatial {

void BruteForceIndex::Insert(EntityId id, Vec2 center, float radius, uint32_t mask) {
  entities_.push_back(Entity{id, center, radius, mask});
}

void BruteForceIndex::Remove(EntityId id) {
  auto it = std::find_if(entities_.begin(), entities_.end(),
                         [id](const Entity& e) { return e.id == id; });
  *it = entities_.back();
  entities_.pop_back();
}

void BruteForceIndex::Move(EntityId id, Vec2 center) {
  for (Entity& e : entities_) {
    if (e.id == id) e.center = center;
  }
}

template <typename Pred>
std::vector<EntityId> BruteForceIndex::Scan(Pred hit, Vec2 origin, const QueryFilter& f,
                                            QueryOrder o) const {
  std::vector<std::pair<float, uint32_t>> keyed;
  for (const Entity& e : entities_) {
    if ((e.mask & f.mask) == 0 || e.id == f.exclude) continue;
    if (!hit(e)) continue;
    const float key = o == QueryOrder::kByDistance ? DistanceSq(origin, e.center) : 0.0f;
    keyed.emplace_back(key, ToRaw(e.id));
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<EntityId> ids;
  ids.reserve(keyed.size());
  for (const auto& k : keyed) ids.push_back(static_cast<EntityId>(k.second));
  return ids;
}

std::vector<EntityId> BruteForceIndex::QueryCircle(const Circle& c, const QueryFilter& f,
                                                   QueryOrder o) const {
  if (!IsFinite(c.center) || !std::isfinite(c.radius) || c.radius < 0) return {};
  return Scan([&](const Entity& e) { return CircleHitsCircle(c, e.center, e.radius); }, c.center, f,
              o);
}

std::vector<EntityId> BruteForceIndex::QueryAabb(const Aabb& a, const QueryFilter& f,
                                                 QueryOrder o) const {
  if (!IsFinite(a.min) || !IsFinite(a.max) || !a.Valid()) return {};
  const Vec2 origin{(a.min.x + a.max.x) * 0.5f, (a.min.y + a.max.y) * 0.5f};
  return Scan([&](const Entity& e) { return AabbHitsCircle(a, e.center, e.radius); }, origin, f, o);
}

std::vector<EntityId> BruteForceIndex::QuerySector(const Sector& s, const QueryFilter& f,
                                                   QueryOrder o) const {
  const PreparedSector p(s);
  if (!IsFinite(p.origin) || !std::isfinite(p.range) || !IsFinite(p.dir)) return {};
  return Scan([&](const Entity& e) { return SectorHitsCircle(p, e.center, e.radius); }, p.origin, f,
              o);
}

std::vector<EntityId> BruteForceIndex::QueryCapsule(const Capsule& c, const QueryFilter& f,
                                                    QueryOrder o) const {
  if (!IsFinite(c.a) || !IsFinite(c.b) || !std::isfinite(c.radius) || c.radius < 0) return {};
  return Scan([&](const Entity& e) { return CapsuleHitsCircle(c, e.center, e.radius); }, c.a, f, o);
}

std::vector<EntityId> BruteForceIndex::QueryNearest(Vec2 p, uint32_t k, float max_distance,
                                                    const QueryFilter& f) const {
  if (k == 0 || !IsFinite(p) || std::isnan(max_distance) || max_distance < 0.0f) return {};
  const float limit_sq = std::isinf(max_distance) ? INFINITY : max_distance * max_distance;
  std::vector<EntityId> ids =
      Scan([&](const Entity& e) { return DistanceSq(p, e.center) <= limit_sq; }, p, f,
           QueryOrder::kByDistance);
  if (ids.size() > k) ids.resize(k);
  return ids;
}

std::vector<RankKey> BruteForceIndex::QueryCircleKeys(Vec2 center, float radius,
                                                      const QueryFilter& f) const {
  if (!IsFinite(center) || !std::isfinite(radius) || radius < 0) return {};
  std::vector<RankKey> keys;
  for (const Entity& e : entities_) {
    if ((e.mask & f.mask) == 0 || e.id == f.exclude) continue;
    const float d_sq = DistanceSq(center, e.center);
    if (d_sq <= radius * radius) keys.push_back(MakeRankKey(d_sq, ToRaw(e.id)));
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::vector<std::pair<EntityId, EntityId>> BruteForceIndex::QueryPairs() const {
  std::vector<std::pair<EntityId, EntityId>> pairs;
  for (size_t i = 0; i < entities_.size(); ++i) {
    for (size_t j = i + 1; j < entities_.size(); ++j) {
      const Entity& a = entities_[i];
      const Entity& b = entities_[j];
      if (CircleHitsCircle({a.center, a.radius}, b.center, b.radius)) {
        pairs.emplace_back(static_cast<EntityId>(std::min(ToRaw(a.id), ToRaw(b.id))),
                           static_cast<EntityId>(std::max(ToRaw(a.id), ToRaw(b.id))));
      }
    }
  }
  std::sort(pairs.begin(), pairs.end(), [](const auto& x, const auto& y) {
    return std::pair(ToRaw(x.first), ToRaw(x.second)) < std::pair(ToRaw(y.first), ToRaw(y.second));
  });
  return pairs;
}

}  // namespace zs::spatial
