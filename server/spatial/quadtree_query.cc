// Quadtree queries. Each shape is a small policy with three tests:
//   MayHit(rect, grow): can any entity whose centre is in `rect` and whose radius is at most
//                       `grow` be hit? Conservative (false only when nothing can be hit).
//   Covers(rect):       is every entity whose centre is in `rect` a hit, whatever its radius?
//                       Exact (true only when the narrow test would pass for all of them).
//   Hit(x, y, r):       the narrow test, the same function the brute-force oracle uses.
// One traversal (Collect) drives all of them; leaf scans run over contiguous slab arrays.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "spatial/quadtree.h"

namespace zs::spatial {

namespace {

constexpr int kStackSize = 4 * 21;
// Extra margin for the conservative node tests of shapes whose narrow test involves more
// rounding steps (sector, capsule): culling must never drop a true hit.
constexpr float kCullSlack = 4.0f * kContactEpsilon;

struct CirclePolicy {
  Circle c;
  bool MayHit(const Aabb& rect, float grow) const {
    const float reach = c.radius + grow + kContactEpsilon;
    return RectDistanceSq(c.center, rect) <= reach * reach;
  }
  bool Covers(const Aabb& rect) const {
    const float ax = std::abs(c.center.x - rect.min.x), bx = std::abs(c.center.x - rect.max.x);
    const float ay = std::abs(c.center.y - rect.min.y), by = std::abs(c.center.y - rect.max.y);
    const float fx = MaxBranchless(ax, bx);
    const float fy = MaxBranchless(ay, by);
    return fx * fx + fy * fy <= c.radius * c.radius;
  }
  bool Hit(float x, float y, float r) const { return CircleHitsCircle(c, {x, y}, r); }
  Vec2 Origin() const { return c.center; }
  Aabb Bounds() const {
    return {{c.center.x - c.radius, c.center.y - c.radius},
            {c.center.x + c.radius, c.center.y + c.radius}};
  }
  bool Finite() const { return IsFinite(c.center) && std::isfinite(c.radius) && c.radius >= 0; }
};

struct AabbPolicy {
  Aabb a;
  bool MayHit(const Aabb& rect, float grow) const {
    const float g = grow + kContactEpsilon + kCullSlack;
    return rect.min.x <= a.max.x + g && rect.max.x >= a.min.x - g && rect.min.y <= a.max.y + g &&
           rect.max.y >= a.min.y - g;
  }
  bool Covers(const Aabb& rect) const {
    return rect.min.x >= a.min.x && rect.max.x <= a.max.x && rect.min.y >= a.min.y &&
           rect.max.y <= a.max.y;
  }
  bool Hit(float x, float y, float r) const { return AabbHitsCircle(a, {x, y}, r); }
  Vec2 Origin() const { return {(a.min.x + a.max.x) * 0.5f, (a.min.y + a.max.y) * 0.5f}; }
  Aabb Bounds() const { return a; }
  bool Finite() const { return IsFinite(a.min) && IsFinite(a.max) && a.Valid(); }
};

struct SectorPolicy {
  PreparedSector s;
  bool MayHit(const Aabb& rect, float grow) const {
    const float g = grow + kContactEpsilon + kCullSlack;
    const float reach = s.range + g;
    if (RectDistanceSq(s.origin, rect) > reach * reach) return false;
    if (s.half_angle <= kPi * 0.5f) {
      // A sector of at most a half disc lies in the half plane in front of its origin.
      const float fx = s.dir.x >= 0.0f ? rect.max.x : rect.min.x;
      const float fy = s.dir.y >= 0.0f ? rect.max.y : rect.min.y;
      if (Dot(Vec2{fx, fy} - s.origin, s.dir) < -g) return false;
    }
    return true;
  }
  bool Covers(const Aabb&) const { return false; }
  bool Hit(float x, float y, float r) const { return SectorHitsCircle(s, {x, y}, r); }
  Vec2 Origin() const { return s.origin; }
  Aabb Bounds() const {
    return {{s.origin.x - s.range, s.origin.y - s.range},
            {s.origin.x + s.range, s.origin.y + s.range}};
  }
  bool Finite() const { return IsFinite(s.origin) && std::isfinite(s.range) && IsFinite(s.dir); }
};

struct CapsulePolicy {
  Capsule c;
  bool MayHit(const Aabb& rect, float grow) const {
    const float g = c.radius + grow + kContactEpsilon + kCullSlack;
    if (rect.min.x > std::max(c.a.x, c.b.x) + g || rect.max.x < std::min(c.a.x, c.b.x) - g ||
        rect.min.y > std::max(c.a.y, c.b.y) + g || rect.max.y < std::min(c.a.y, c.b.y) - g) {
      return false;
    }
    const Vec2 centre{(rect.min.x + rect.max.x) * 0.5f, (rect.min.y + rect.max.y) * 0.5f};
    const float reach = g + 0.5f * Length(rect.max - rect.min) * 1.0001f;
    return SegmentDistanceSq(centre - c.a, c.b - c.a) <= reach * reach;
  }
  bool Covers(const Aabb&) const { return false; }
  bool Hit(float x, float y, float r) const { return CapsuleHitsCircle(c, {x, y}, r); }
  Vec2 Origin() const { return c.a; }
  Aabb Bounds() const {
    return {{std::min(c.a.x, c.b.x) - c.radius, std::min(c.a.y, c.b.y) - c.radius},
            {std::max(c.a.x, c.b.x) + c.radius, std::max(c.a.y, c.b.y) + c.radius}};
  }
  bool Finite() const {
    return IsFinite(c.a) && IsFinite(c.b) && std::isfinite(c.radius) && c.radius >= 0;
  }
};

// Tests 8 slots at once. The generic form calls the exact test per slot; the circle's form is
// the same arithmetic written so the compiler vectorises it (it must stay bit-identical to
// CircleHitsCircle: same operations in the same order).
template <typename Shape>
inline void HitBatch(const Shape& shape, const float* xs, const float* ys, const float* rs,
                     uint32_t* hit) {
  for (uint32_t i = 0; i < 8; ++i) hit[i] = shape.Hit(xs[i], ys[i], rs ? rs[i] : 0.0f) ? 1 : 0;
}

inline void HitBatch(const CirclePolicy& shape, const float* xs, const float* ys, const float* rs,
                     uint32_t* hit) {
  // GCC/Clang vector extensions: 4 lanes, lowered to SSE2 on x86-64 and NEON on ARM.
  using F4 = float __attribute__((vector_size(16)));
  using I4 = int32_t __attribute__((vector_size(16)));
  const F4 cx = {shape.c.center.x, shape.c.center.x, shape.c.center.x, shape.c.center.x};
  const F4 cy = {shape.c.center.y, shape.c.center.y, shape.c.center.y, shape.c.center.y};
  const F4 radius = {shape.c.radius, shape.c.radius, shape.c.radius, shape.c.radius};
  const F4 eps = {kContactEpsilon, kContactEpsilon, kContactEpsilon, kContactEpsilon};
  for (uint32_t i = 0; i < 8; i += 4) {
    F4 x, y, r;
    std::memcpy(&x, xs + i, sizeof(F4));
    std::memcpy(&y, ys + i, sizeof(F4));
    F4 reach = radius + eps;  // == radius + 0 + eps: hitboxes of radius 0 need no load
    if (rs != nullptr) {
      std::memcpy(&r, rs + i, sizeof(F4));
      reach = radius + r + eps;
    }
    const F4 dx = cx - x;
    const F4 dy = cy - y;
    const I4 m = (dx * dx + dy * dy) <= (reach * reach);  // lanes are -1 (hit) or 0
    const I4 one = m & 1;
    std::memcpy(hit + i, &one, sizeof(I4));
  }
}

inline bool Passes(uint32_t mask, uint32_t raw, const QueryFilter& f) {
  return ((mask & f.mask) != 0) & (raw != ToRaw(f.exclude));
}

}  // namespace

void Quadtree::AppendSubtree(int32_t node, const QueryFilter& filter, QueryResults* out) const {
  const bool all = filter.mask == 0xFFFFFFFFu && filter.exclude == kInvalidEntity;
  int32_t stack[kStackSize];
  int top = 0;
  stack[top++] = node;
  while (top > 0) {
    const Node& n = nodes_[stack[--top]];
    if (n.count == 0) continue;
    ++out->stats.nodes_visited;
    if (n.children >= 0) {
      for (int32_t k = 0; k < 4; ++k) stack[top++] = n.children + k;
      continue;
    }
    uint32_t left = n.count;
    out->stats.candidates += left;
    for (int32_t s = n.slab; s >= 0; s = slabs_[s].next) {
      const Slab& slab = slabs_[s];
      const uint32_t cnt = std::min(kSlabSize, left);
      left -= cnt;
      EntityId* dst = out->ids.Reserve(cnt);
      const uint32_t* ids = slab.id;
      if (all) {
        for (uint32_t i = 0; i < cnt; ++i) dst[i] = static_cast<EntityId>(ids[i]);
        out->ids.Commit(cnt);
      } else {
        const uint32_t* masks = slab.mask;
        size_t k = 0;
        for (uint32_t i = 0; i < cnt; ++i) {
          dst[k] = static_cast<EntityId>(ids[i]);
          k += Passes(masks[i], ids[i], filter) ? 1 : 0;
        }
        out->ids.Commit(k);
      }
    }
  }
}

void Quadtree::PrefetchSlab(int32_t s) const noexcept {
  if (s < 0) return;
  const Slab& slab = slabs_[s];
  for (size_t line = 0; line < sizeof(Slab); line += 64) {
    __builtin_prefetch(reinterpret_cast<const char*>(&slab) + line);
  }
}

template <typename Shape>
void Quadtree::ScanLeaf(const Shape& shape, const Node& leaf, const QueryFilter& filter,
                        QueryResults* out) const {
  const bool filtered = filter.mask != 0xFFFFFFFFu || filter.exclude != kInvalidEntity;
  const bool points = leaf.max_radius == 0.0f;  // every hitbox radius here is 0
  uint32_t left = leaf.count;
  out->stats.candidates += left;
  for (int32_t s = leaf.slab; s >= 0; s = slabs_[s].next) {
    const Slab& slab = slabs_[s];
    const uint32_t cnt = left > kSlabSize ? kSlabSize : left;
    left -= cnt;
    EntityId* dst = out->ids.Reserve((cnt + 7) & ~7u);
    size_t k = 0;
    // Slabs are a multiple of 8 long: test 8 slots at a time with a fixed trip count (the
    // compiler vectorises it), then append the hits branch-free. Slots past the leaf's count
    // hold stale but initialised values and are masked off.
    for (uint32_t c0 = 0; c0 < cnt; c0 += 8) {
      const uint32_t* ids = slab.id + c0;
      uint32_t hit[8];  // 32-bit lanes, like the floats, so the tests vectorise
      HitBatch(shape, slab.x + c0, slab.y + c0, points ? nullptr : slab.r + c0, hit);
      if (filtered) {
        const uint32_t* masks = slab.mask + c0;
        for (uint32_t i = 0; i < 8; ++i) hit[i] &= Passes(masks[i], ids[i], filter) ? 1 : 0;
      }
      const uint32_t valid = cnt - c0;
      for (uint32_t i = 0; i < 8; ++i) {  // Reserve() left room: cnt rounded up to 8
        dst[k] = static_cast<EntityId>(ids[i]);
        k += hit[i] & (i < valid ? 1u : 0u);
      }
    }
    out->ids.Commit(k);
  }
}

int32_t Quadtree::StartNode(const Aabb& bounds) const noexcept {
  // The smallest node whose cell contains `bounds` grown by the largest hitbox anywhere: no
  // entity outside it can touch the shape, so the traversal can skip the levels above it.
  const float grow = nodes_[0].max_radius + kContactEpsilon + kCullSlack;
  const Aabb b{{bounds.min.x - grow, bounds.min.y - grow},
               {bounds.max.x + grow, bounds.max.y + grow}};
  int32_t n = 0;
  for (;;) {
    // Branch-free descent: the only branch is "stop here", which is rarely taken.
    const Node& nd = nodes_[n];
    const bool right = b.min.x >= nd.mid.x;
    const bool up = b.min.y >= nd.mid.y;
    const bool fits_x = right | (b.max.x < nd.mid.x);
    const bool fits_y = up | (b.max.y < nd.mid.y);
    if (nd.children < 0 || !(fits_x & fits_y)) return n;
    n = nd.children + static_cast<int32_t>(right) + 2 * static_cast<int32_t>(up);
  }
}

template <typename Shape>
void Quadtree::Collect(const Shape& shape, const QueryFilter& filter, QueryResults* out) const {
  out->ids.clear();
  out->stats = QueryStats{};
  if (!shape.Finite()) return;
  const int32_t start = StartNode(shape.Bounds());
  if (nodes_[start].count == 0 || !shape.MayHit(nodes_[start].rect, nodes_[start].max_radius)) {
    return;
  }
  // Every node on the stack is non-empty and may be hit: children are tested before the push.
  // Children are sorted branch-free into internal nodes (the stack), leaves (a batch scanned
  // right after) and covered nodes (bulk-appended), so the traversal loop has no unpredictable
  // "is this a leaf?" branch.
  int32_t stack[kStackSize];
  int32_t leaves[4];
  int top = 0;
  stack[top++] = start;
  while (top > 0) {
    const int32_t index = stack[--top];
    const Node& n = nodes_[index];
    ++out->stats.nodes_visited;
    if (n.children < 0) {  // only the start node can be a leaf here
      ScanLeaf(shape, n, filter, out);
      continue;
    }
    if (shape.Covers(n.rect)) {
      --out->stats.nodes_visited;  // AppendSubtree counts it again
      AppendSubtree(index, filter, out);
      continue;
    }
    int num_leaves = 0;
    for (int32_t k = 0; k < 4; ++k) {
      const int32_t ci = n.children + k;
      const Node& c = nodes_[ci];
      const bool may = (c.count != 0) & shape.MayHit(c.rect, c.max_radius);
      const bool leaf = c.children < 0;
      stack[top] = ci;
      top += static_cast<int>(may & !leaf);
      leaves[num_leaves] = ci;
      num_leaves += static_cast<int>(may & leaf);
    }
    out->stats.nodes_visited += static_cast<uint64_t>(num_leaves);
    // The leaves' slabs are scattered in memory: start loading all of them before the first
    // scan, so their cache misses overlap instead of queueing one after another.
    for (int k = 0; k < num_leaves; ++k) PrefetchSlab(nodes_[leaves[k]].slab);
    for (int k = 0; k < num_leaves; ++k) {
      const Node& leaf = nodes_[leaves[k]];
      if (shape.Covers(leaf.rect)) {
        --out->stats.nodes_visited;
        AppendSubtree(leaves[k], filter, out);
      } else {
        ScanLeaf(shape, leaf, filter, out);
      }
    }
  }
  out->stats.hits = out->ids.size();
}

void Quadtree::Order(Vec2 origin, QueryOrder order, QueryResults* out) const {
  if (order == QueryOrder::kById) {
    std::sort(out->ids.data(), out->ids.data() + out->ids.size(),
              [](EntityId a, EntityId b) { return ToRaw(a) < ToRaw(b); });
  } else if (order == QueryOrder::kByDistance) {
    out->keyed_.clear();
    for (EntityId id : out->ids) {
      const Loc& loc = locs_[EntityIndex(id)];
      const Slab& slab = slabs_[loc.slab];
      out->keyed_.emplace_back(DistanceSq(origin, {slab.x[loc.offset], slab.y[loc.offset]}),
                               ToRaw(id));
    }
    std::sort(out->keyed_.begin(), out->keyed_.end());
    for (size_t k = 0; k < out->keyed_.size(); ++k) {
      out->ids.data()[k] = static_cast<EntityId>(out->keyed_[k].second);
    }
  }
}

void Quadtree::QueryCircle(const Circle& circle, const QueryFilter& filter, QueryOrder order,
                           QueryResults* out) const {
  const CirclePolicy p{circle};
  Collect(p, filter, out);
  Order(p.Origin(), order, out);
}

void Quadtree::QueryAabb(const Aabb& rect, const QueryFilter& filter, QueryOrder order,
                         QueryResults* out) const {
  const AabbPolicy p{rect};
  Collect(p, filter, out);
  Order(p.Origin(), order, out);
}

void Quadtree::QuerySector(const Sector& sector, const QueryFilter& filter, QueryOrder order,
                           QueryResults* out) const {
  const SectorPolicy p{PreparedSector(sector)};
  Collect(p, filter, out);
  Order(p.Origin(), order, out);
}

void Quadtree::QueryCapsule(const Capsule& capsule, const QueryFilter& filter, QueryOrder order,
                            QueryResults* out) const {
  const CapsulePolicy p{capsule};
  Collect(p, filter, out);
  Order(p.Origin(), order, out);
}

void Quadtree::QueryNearest(Vec2 p, uint32_t k, float max_distance, const QueryFilter& filter,
                            QueryResults* out) const {
  out->ids.clear();
  out->stats = QueryStats{};
  if (k == 0 || !IsFinite(p) || std::isnan(max_distance) || max_distance < 0.0f) return;
  const float limit_sq = std::isinf(max_distance) ? INFINITY : max_distance * max_distance;
  // Best-first: a min-heap of nodes by distance to their cell, a max-heap of the k best hits.
  auto& heap = out->nodes_;
  auto& best = out->keyed_;
  heap.clear();
  best.clear();
  const auto node_greater = [](const std::pair<float, int32_t>& a,
                               const std::pair<float, int32_t>& b) { return a.first > b.first; };
  heap.emplace_back(0.0f, 0);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), node_greater);
    const auto [bound, index] = heap.back();
    heap.pop_back();
    if (bound > limit_sq) break;
    if (best.size() == k && bound > best.front().first) break;
    const Node& n = nodes_[index];
    ++out->stats.nodes_visited;
    if (n.children >= 0) {
      for (int32_t c = 0; c < 4; ++c) {
        const Node& child = nodes_[n.children + c];
        if (child.count == 0) continue;
        heap.emplace_back(RectDistanceSq(p, child.rect), n.children + c);
        std::push_heap(heap.begin(), heap.end(), node_greater);
      }
      continue;
    }
    uint32_t left = n.count;
    out->stats.candidates += left;
    for (int32_t s = n.slab; s >= 0; s = slabs_[s].next) {
      const Slab& slab = slabs_[s];
      const uint32_t cnt = std::min(kSlabSize, left);
      left -= cnt;
      for (uint32_t i = 0; i < cnt; ++i) {
        if (!Passes(slab.mask[i], slab.id[i], filter)) continue;
        const std::pair<float, uint32_t> cand{DistanceSq(p, {slab.x[i], slab.y[i]}), slab.id[i]};
        if (cand.first > limit_sq) continue;
        if (best.size() < k) {
          best.push_back(cand);
          std::push_heap(best.begin(), best.end());
        } else if (cand < best.front()) {
          std::pop_heap(best.begin(), best.end());
          best.back() = cand;
          std::push_heap(best.begin(), best.end());
        }
      }
    }
  }
  std::sort_heap(best.begin(), best.end());
  for (const auto& b : best) out->ids.push_back(static_cast<EntityId>(b.second));
  out->stats.hits = out->ids.size();
}

QueryStats Quadtree::QueryPairs(std::vector<std::pair<EntityId, EntityId>>* out) const {
  out->clear();
  QueryStats stats;
  int32_t stack[kStackSize];
  // For each leaf L and each entity e in L: test e against later entries of L, then against the
  // entities of every leaf with a larger index that can touch e. Each pair is tested once.
  int32_t leaves[kStackSize];
  int leaves_top = 0;
  leaves[leaves_top++] = 0;
  while (leaves_top > 0) {
    const auto li = static_cast<size_t>(leaves[--leaves_top]);
    const Node& leaf = nodes_[li];
    if (leaf.children >= 0) {
      for (int32_t k = 0; k < 4; ++k) leaves[leaves_top++] = leaf.children + k;
      continue;
    }
    for (uint32_t a = 0; a < leaf.count; ++a) {
      int32_t sa = leaf.slab;
      for (uint32_t skip = a / kSlabSize; skip > 0; --skip) sa = slabs_[sa].next;
      const Slab& slab_a = slabs_[sa];
      const uint32_t ia = a % kSlabSize;
      const Circle me{{slab_a.x[ia], slab_a.y[ia]}, slab_a.r[ia]};
      const uint32_t id_a = slab_a.id[ia];
      const auto test = [&](const Slab& slab, uint32_t i) {
        if (CircleHitsCircle(me, {slab.x[i], slab.y[i]}, slab.r[i])) {
          out->emplace_back(static_cast<EntityId>(std::min(id_a, slab.id[i])),
                            static_cast<EntityId>(std::max(id_a, slab.id[i])));
        }
      };
      int32_t sb = sa;
      for (uint32_t b = a + 1; b < leaf.count; ++b) {
        if (b % kSlabSize == 0) sb = slabs_[sb].next;
        ++stats.candidates;
        test(slabs_[sb], b % kSlabSize);
      }
      const CirclePolicy policy{me};
      int top = 0;
      stack[top++] = 0;
      while (top > 0) {
        const int32_t index = stack[--top];
        const Node& n = nodes_[index];
        if (n.count == 0 || !policy.MayHit(n.rect, n.max_radius)) continue;
        ++stats.nodes_visited;
        if (n.children >= 0) {
          for (int32_t k = 0; k < 4; ++k) stack[top++] = n.children + k;
          continue;
        }
        if (static_cast<size_t>(index) <= li) continue;
        uint32_t left = n.count;
        for (int32_t s = n.slab; s >= 0; s = slabs_[s].next) {
          const uint32_t cnt = std::min(kSlabSize, left);
          left -= cnt;
          stats.candidates += cnt;
          for (uint32_t i = 0; i < cnt; ++i) test(slabs_[s], i);
        }
      }
    }
  }
  std::sort(out->begin(), out->end(), [](const auto& x, const auto& y) {
    return std::pair(ToRaw(x.first), ToRaw(x.second)) < std::pair(ToRaw(y.first), ToRaw(y.second));
  });
  stats.hits = out->size();
  return stats;
}

}  // namespace zs::spatial
