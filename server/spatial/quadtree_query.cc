// Quadtree queries. Each shape is a small policy with three tests:
//   MayHit(rect, grow): can any entity whose centre is in `rect` and whose radius is at most
//                       `grow` be hit? Conservative (false only when nothing can be hit).
//   Covers(rect):       is every entity whose centre is in `rect` a hit, whatever its radius?
//                       Exact (true only when the narrow test would pass for all of them).
//   Hit(x, y, r):       the narrow test, the same function the brute-force oracle uses.
// One traversal (Collect) drives all of them; leaf scans run over contiguous slab arrays.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "spatial/quadtree.h"

namespace zs::spatial {

namespace {

// Extra margin for the conservative node tests of shapes whose narrow test involves more
// rounding steps (sector, capsule): culling must never drop a true hit.
constexpr float kCullSlack = 4.0f * kContactEpsilon;
// ... and a margin per unit of the shape's length, because that rounding grows with the
// distances involved (a float keeps 24 bits: 0.06 at a million). Found by quadtree_fuzz: a
// sector of range 1.4e6 hit an entity 0.004 behind its half plane that the cull had dropped.
constexpr float kCullRelSlack = 1e-5f;

// A slab scan's result is a 32-bit mask, bit i for slot i. The helpers below are the only walks
// over one.
// The bits of slots [0, count), count <= 32.
constexpr uint32_t FirstSlots(uint32_t count) { return count >= 32 ? ~0u : (1u << count) - 1u; }
// Calls fn(slot) for each set bit, lowest first.
template <typename Fn>
inline void ForEachSlot(uint32_t bits, Fn&& fn) {
  for (; bits != 0; bits &= bits - 1) fn(static_cast<uint32_t>(std::countr_zero(bits)));
}
// Writes from[slot] of each set bit to `to`, in slot order, and returns how many. `to` may be
// `from` itself (the k-th set bit is at slot >= k).
template <typename From, typename To>
inline size_t CompactSlots(uint32_t bits, const From* from, To* to) {
  size_t k = 0;
  ForEachSlot(bits, [&](uint32_t slot) { to[k++] = static_cast<To>(from[slot]); });
  return k;
}

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
    const float g = grow + kContactEpsilon + kCullSlack + s.range * kCullRelSlack;
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
  float rel_slack = Length(c.b - c.a) * kCullRelSlack;
  bool MayHit(const Aabb& rect, float grow) const {
    const float g = c.radius + grow + kContactEpsilon + kCullSlack + rel_slack;
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

// Tests the first `count` slots of a slab (count <= 32) and returns bit i set when slot i is a
// hit. The generic form calls the exact test per slot. The circle's form is the same arithmetic
// four lanes at a time (SSE on x86-64); it must stay bit-identical to CircleHitsCircle: the same
// operations in the same order, and no fused multiply-add (we build without -march).
template <typename Shape>
inline uint32_t HitMask(const Shape& shape, const float* xs, const float* ys, const float* rs,
                        uint32_t count) {
  uint32_t bits = 0;
  for (uint32_t i = 0; i < count; ++i) {
    bits |= (shape.Hit(xs[i], ys[i], rs ? rs[i] : 0.0f) ? 1u : 0u) << i;
  }
  return bits;
}

inline uint32_t HitMask(const CirclePolicy& shape, const float* xs, const float* ys,
                        const float* rs, uint32_t count) {
#if defined(__SSE2__)
  const __m128 cx = _mm_set1_ps(shape.c.center.x);
  const __m128 cy = _mm_set1_ps(shape.c.center.y);
  const __m128 radius = _mm_set1_ps(shape.c.radius);
  const __m128 eps = _mm_set1_ps(kContactEpsilon);
  // radius + 0 + eps == radius + eps: leaves whose hitboxes are all 0 skip the radius load.
  const __m128 point_reach = _mm_add_ps(radius, eps);
  uint32_t bits = 0;
  for (uint32_t i = 0; i < count; i += 4) {
    const __m128 dx = _mm_sub_ps(cx, _mm_loadu_ps(xs + i));
    const __m128 dy = _mm_sub_ps(cy, _mm_loadu_ps(ys + i));
    const __m128 reach =
        rs ? _mm_add_ps(_mm_add_ps(radius, _mm_loadu_ps(rs + i)), eps) : point_reach;
    const __m128 d_sq = _mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy));
    const __m128 hit = _mm_cmple_ps(d_sq, _mm_mul_ps(reach, reach));
    bits |= static_cast<uint32_t>(_mm_movemask_ps(hit)) << i;
  }
  // Slots past `count` (up to the next multiple of 4) hold stale values: mask them off.
  return bits & FirstSlots(count);
#else
  return HitMask<CirclePolicy>(shape, xs, ys, rs, count);
#endif
}

inline bool Passes(uint32_t mask, uint32_t raw, const QueryFilter& f) {
  return ((mask & f.mask) != 0) & (raw != ToRaw(f.exclude));
}

// Writes the RankKey of slots [0, count) of one slab (count <= 32) to keys[0, count) and returns
// bit i set when slot i's centre is within radius_sq of c and it passes the filter (Passes).
// d^2 is DistanceSq(c, {x, y}): the same operations in the same order (no fused multiply-add),
// so keys and tests are bit-identical to the brute-force oracle's. The SSE form does four slots
// at a time, filter included, and interleaves ids with the d^2 bits into keys with two unpacks.
// REQUIRES: keys has room for count rounded up to a multiple of 4.
inline uint32_t SlabKeys(Vec2 c, float radius_sq, const QueryFilter& filter, const float* xs,
                         const float* ys, const uint32_t* ids, const uint32_t* masks,
                         uint32_t count, RankKey* keys) {
#if defined(__SSE2__)
  const __m128 cx = _mm_set1_ps(c.x);
  const __m128 cy = _mm_set1_ps(c.y);
  const __m128 limit = _mm_set1_ps(radius_sq);
  const __m128i want = _mm_set1_epi32(static_cast<int>(filter.mask));
  const __m128i exclude = _mm_set1_epi32(static_cast<int>(ToRaw(filter.exclude)));
  const __m128i zero = _mm_setzero_si128();
  uint32_t bits = 0;
  uint32_t rejected = 0;
  for (uint32_t i = 0; i < count; i += 4) {
    const __m128 dx = _mm_sub_ps(cx, _mm_loadu_ps(xs + i));
    const __m128 dy = _mm_sub_ps(cy, _mm_loadu_ps(ys + i));
    const __m128 d_sq = _mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy));
    bits |= static_cast<uint32_t>(_mm_movemask_ps(_mm_cmple_ps(d_sq, limit))) << i;
    const __m128i id = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ids + i));
    const __m128i mask = _mm_loadu_si128(reinterpret_cast<const __m128i*>(masks + i));
    const __m128i fail = _mm_or_si128(_mm_cmpeq_epi32(_mm_and_si128(mask, want), zero),
                                      _mm_cmpeq_epi32(id, exclude));
    rejected |= static_cast<uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(fail))) << i;
    // Little-endian: the 64-bit lane (id, d_bits) is d_bits << 32 | id, i.e. MakeRankKey.
    const __m128i d_bits = _mm_castps_si128(d_sq);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(keys + i), _mm_unpacklo_epi32(id, d_bits));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(keys + i + 2), _mm_unpackhi_epi32(id, d_bits));
  }
  bits &= ~rejected;
  // Slots past `count` (up to the next multiple of 4) hold stale values: mask them off.
  return bits & FirstSlots(count);
#else
  uint32_t bits = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const float d_sq = DistanceSq(c, {xs[i], ys[i]});
    keys[i] = MakeRankKey(d_sq, ids[i]);
    bits |= (d_sq <= radius_sq && Passes(masks[i], ids[i], filter) ? 1u : 0u) << i;
  }
  return bits;
#endif
}

}  // namespace

void Quadtree::AppendSubtree(int32_t node, const QueryFilter& filter, QueryResults* out) const {
  // The default filter passes everything, unless an entity has mask 0 (zero_masks_).
  const bool all =
      filter.mask == 0xFFFFFFFFu && filter.exclude == kInvalidEntity && zero_masks_ == 0;
  VisitNodes(node, [&](int32_t, const Node& n) {
    if (n.count == 0) return false;
    ++out->stats.nodes_visited;
    if (n.children >= 0) return true;
    out->stats.candidates += n.count;
    ForEachSlab(n, [&](const Slab& slab, uint32_t cnt) {
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
    });
    return false;
  });
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
  // The default filter passes everything, unless an entity has mask 0 (zero_masks_).
  const bool filtered =
      filter.mask != 0xFFFFFFFFu || filter.exclude != kInvalidEntity || zero_masks_ != 0;
  const bool points = leaf.max_radius == 0.0f;  // every hitbox radius here is 0
  out->stats.candidates += leaf.count;
  ForEachSlab(leaf, [&](const Slab& slab, uint32_t cnt) {
    // One mask for the whole slab, then a loop over its set bits only: the work after the
    // vector test is proportional to the hits, not to the slots.
    uint32_t bits = HitMask(shape, slab.x, slab.y, points ? nullptr : slab.r, cnt);
    if (filtered) {
      ForEachSlot(bits, [&](uint32_t i) {
        if (!Passes(slab.mask[i], slab.id[i], filter)) bits &= ~(1u << i);
      });
    }
    EntityId* dst = out->ids.Reserve(static_cast<size_t>(std::popcount(bits)));
    out->ids.Commit(CompactSlots(bits, slab.id, dst));
  });
}

int32_t Quadtree::StartNode(const Aabb& bounds) const noexcept {
  // The smallest node whose cell contains `bounds` grown by the largest hitbox anywhere: no
  // entity outside it can touch the shape, so the traversal can skip the levels above it.
  const float grow = nodes_[0].max_radius + kContactEpsilon + kCullSlack;
  const Aabb b{{bounds.min.x - grow, bounds.min.y - grow},
               {bounds.max.x + grow, bounds.max.y + grow}};
  // Jump close to the answer with the directory, climb until the node's cell holds the box
  // (the float cell arithmetic is only a hint, so this check makes it exact), then descend.
  const auto cell = [&](float v, float lo, float scale) {
    const float c = (v - lo) * scale;
    const int32_t hi = static_cast<int32_t>(1u << dir_depth_) - 1;
    return static_cast<uint32_t>(
        c <= 0.0f ? 0 : (c >= static_cast<float>(hi) ? hi : static_cast<int32_t>(c)));
  };
  const Vec2 lo = config_.bounds.min;
  const uint32_t x0 = cell(b.min.x, lo.x, dir_scale_.x), x1 = cell(b.max.x, lo.x, dir_scale_.x);
  const uint32_t y0 = cell(b.min.y, lo.y, dir_scale_.y), y1 = cell(b.max.y, lo.y, dir_scale_.y);
  const auto level = dir_depth_ - static_cast<uint32_t>(std::bit_width((x0 ^ x1) | (y0 ^ y1)));
  int32_t n = dir_[(static_cast<size_t>(y0) << dir_depth_) + x0];
  while (nodes_[n].depth > level) n = nodes_[n].parent;
  const Aabb& world = config_.bounds;
  while (n != 0) {
    const Aabb& r = nodes_[n].rect;
    const bool holds = (b.min.x >= r.min.x || r.min.x <= world.min.x) &&
                       (b.max.x < r.max.x || r.max.x >= world.max.x) &&
                       (b.min.y >= r.min.y || r.min.y <= world.min.y) &&
                       (b.max.y < r.max.y || r.max.y >= world.max.y);
    if (holds) break;
    n = nodes_[n].parent;
  }
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
  // Breadth-first, one level at a time. Within a level every node's children are tested
  // independently and sorted branch-free into the next level (internal nodes) or this level's
  // leaf batch, so the CPU overlaps the loads and tests of many nodes; a depth-first stack
  // would chain each step on the previous one's result. Every listed node is non-empty and
  // may be hit.
  std::vector<int32_t>& level = out->level_;
  std::vector<int32_t>& next = out->next_;
  std::vector<int32_t>& leaves = out->leaves_;
  level.assign(1, start);
  while (!level.empty()) {
    next.resize(level.size() * 4);
    leaves.resize(level.size() * 4 + 1);
    size_t num_next = 0;
    size_t num_leaves = 0;
    for (const int32_t index : level) {
      const Node& n = nodes_[index];
      if (n.children < 0) {  // only the start node can be a leaf here
        leaves[num_leaves++] = index;
        continue;
      }
      if (shape.Covers(n.rect)) {
        AppendSubtree(index, filter, out);
        continue;
      }
      ++out->stats.nodes_visited;
      for (int32_t k = 0; k < 4; ++k) {
        const int32_t ci = n.children + k;
        const Node& c = nodes_[ci];
        const bool may = (c.count != 0) & shape.MayHit(c.rect, c.max_radius);
        const bool leaf = c.children < 0;
        next[num_next] = ci;
        num_next += static_cast<size_t>(may & !leaf);
        leaves[num_leaves] = ci;
        num_leaves += static_cast<size_t>(may & leaf);
      }
    }
    // The leaves' slabs are scattered in memory: start loading all of them before the first
    // scan, so their cache misses overlap instead of queueing one after another.
    for (size_t k = 0; k < num_leaves; ++k) PrefetchSlab(nodes_[leaves[k]].slab);
    for (size_t k = 0; k < num_leaves; ++k) {
      const Node& leaf = nodes_[leaves[k]];
      if (shape.Covers(leaf.rect)) {
        AppendSubtree(leaves[k], filter, out);
      } else {
        ++out->stats.nodes_visited;
        ScanLeaf(shape, leaf, filter, out);
      }
    }
    next.resize(num_next);
    level.swap(next);
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

size_t Quadtree::LeafKeys(const Node& leaf, Vec2 center, float radius_sq, const QueryFilter& filter,
                          RankKey* out) const {
  size_t written = 0;
  ForEachSlab(leaf, [&](const Slab& slab, uint32_t cnt) {
    RankKey* const dst = out + written;
    uint32_t bits =
        SlabKeys(center, radius_sq, filter, slab.x, slab.y, slab.id, slab.mask, cnt, dst);
    // Compact the hits in place (the k-th hit is at slot >= k).
    if (bits == FirstSlots(cnt)) {
      written += cnt;
      return;
    }
    written += CompactSlots(bits, dst, dst);
  });
  return written;
}

void Quadtree::QueryCircleKeys(Vec2 center, float radius, const QueryFilter& filter,
                               std::vector<RankKey>* keys, QueryStats* stats) const {
  QueryStats work;
  const size_t before = keys->size();
  const CirclePolicy shape{{center, radius}};
  const int32_t start = shape.Finite() ? StartNode(shape.Bounds()) : -1;
  if (start >= 0 && nodes_[start].count != 0) {
    const float radius_sq = radius * radius;
    // Depth-first, without scratch: nodes whose cell may hold a centre in range (MayHit with no
    // hitbox growth: only centres count here), and below a node the circle covers, every
    // non-empty node untested. Leaves are batched so that their slabs are prefetched together
    // and their cache misses overlap, then scanned; every scan tests each centre (the compare
    // is free beside the d^2 the key needs), so `covered` only saves node tests.
    // Stack entries: node index << 1 | covered, one word (a two-field struct would be stored in
    // two parts and reloaded as one, which stalls store-to-load forwarding).
    uint32_t stack[kWalkStack];
    int top = 0;
    stack[top++] = static_cast<uint32_t>(start) << 1;
    constexpr int kBatch = 32;
    int32_t batch[kBatch];
    int batched = 0;
    const auto flush = [&] {
      // Room for every candidate of the batch (+3: a slab scan writes whole groups of 4), then
      // the scans write straight into *keys and it is cut back to what they kept.
      size_t room = 3;
      for (int b = 0; b < batched; ++b) {
        PrefetchSlab(nodes_[batch[b]].slab);
        room += nodes_[batch[b]].count;
      }
      const size_t at = keys->size();
      keys->resize(at + room);
      size_t written = 0;
      for (int b = 0; b < batched; ++b) {
        const Node& leaf = nodes_[batch[b]];
        work.candidates += leaf.count;
        written += LeafKeys(leaf, center, radius_sq, filter, keys->data() + at + written);
      }
      keys->resize(at + written);
      batched = 0;
    };
    while (top > 0) {
      const uint32_t item = stack[--top];
      const auto index = static_cast<int32_t>(item >> 1);
      const bool below_covered = (item & 1u) != 0;
      const Node& n = nodes_[index];
      if (n.count == 0 || (!below_covered && !shape.MayHit(n.rect, 0.0f))) continue;
      ++work.nodes_visited;
      if (n.children < 0) {
        batch[batched++] = index;
        if (batched == kBatch) flush();
        continue;
      }
      const uint32_t covered = below_covered || shape.Covers(n.rect) ? 1u : 0u;
      for (uint32_t k = 0; k < 4; ++k) {
        stack[top++] = (static_cast<uint32_t>(n.children) + k) << 1 | covered;
      }
    }
    flush();
  }
  work.hits = keys->size() - before;
  if (stats != nullptr) *stats = work;
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
    out->stats.candidates += n.count;
    ForEachSlab(n, [&](const Slab& slab, uint32_t cnt) {
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
    });
  }
  std::sort_heap(best.begin(), best.end());
  for (const auto& b : best) out->ids.push_back(static_cast<EntityId>(b.second));
  out->stats.hits = out->ids.size();
}

QueryStats Quadtree::QueryPairs(std::vector<std::pair<EntityId, EntityId>>* out) const {
  out->clear();
  QueryStats stats;
  // For each leaf L and each entity e in L: test e against later entries of L, then against the
  // entities of every leaf with a larger index that can touch e. Each pair is tested once.
  VisitNodes(0, [&](int32_t leaf_index, const Node& leaf) {
    if (leaf.children >= 0) return true;
    const auto li = static_cast<size_t>(leaf_index);
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
      VisitNodes(0, [&](int32_t index, const Node& n) {
        if (n.count == 0 || !policy.MayHit(n.rect, n.max_radius)) return false;
        ++stats.nodes_visited;
        if (n.children >= 0) return true;
        if (static_cast<size_t>(index) <= li) return false;
        ForEachSlab(n, [&](const Slab& slab, uint32_t cnt) {
          stats.candidates += cnt;
          for (uint32_t i = 0; i < cnt; ++i) test(slab, i);
        });
        return false;
      });
    }
    return false;
  });
  std::sort(out->begin(), out->end(), [](const auto& x, const auto& y) {
    return std::pair(ToRaw(x.first), ToRaw(x.second)) < std::pair(ToRaw(y.first), ToRaw(y.second));
  });
  stats.hits = out->size();
  return stats;
}

}  // namespace zs::spatial
