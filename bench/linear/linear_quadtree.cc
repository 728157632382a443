#include "bench/linear/linear_quadtree.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "spatial/morton.h"

namespace zs::bench {

using spatial::Interleave;
using spatial::MakeRankKey;

namespace {

constexpr uint32_t kCodeDepth = 16;   // bits per axis of a code: the deepest node
constexpr uint32_t kMaxDirDepth = 8;  // 65,536 buckets
constexpr uint32_t kChunk = 64;       // a scan tests this many into a byte mask, then compacts
constexpr uint32_t kPerBucket = 8;    // without a query radius, the directory aims at this many
                                      // entities per bucket
// What a row of a query costs beyond its entities, in entities scanned, fitted on spatial_bench:
// a narrow row (the box's width, scanned whole) and a wide one (a chord, its middle taken).
constexpr float kNarrowRowCost = 40.0f;
constexpr float kWideRowCost = 120.0f;
// A node holding at least this many is tested whole before it is scanned: taking it whole then
// spares their tests.
constexpr uint32_t kTakeTest = 16;
// A row's middle is taken whole (two runs more) only when it holds at least this many.
constexpr uint32_t kMinTake = 32;

// Squared distance from p to the rect grown by `slack` on every side.
inline float RectDistSq(Vec2 p, const Aabb& r, float slack) {
  const float dx = std::max(std::max(r.min.x - slack - p.x, p.x - r.max.x - slack), 0.0f);
  const float dy = std::max(std::max(r.min.y - slack - p.y, p.y - r.max.y - slack), 0.0f);
  return dx * dx + dy * dy;
}

// Squared distance from p to the farthest corner of the rect grown by `slack`.
inline float FarCornerSq(Vec2 p, const Aabb& r, float slack) {
  const float dx = std::max(p.x - r.min.x, r.max.x - p.x) + slack;
  const float dy = std::max(p.y - r.min.y, r.max.y - p.y) + slack;
  return dx * dx + dy * dy;
}

// A world offset (0 ..< the bounds' size) as a 16-bit cell coordinate.
inline uint32_t Quantize(float offset, float scale) {
  return std::min<uint32_t>(65535, static_cast<uint32_t>(offset * scale));
}

// A run [lo, hi) of the arrays.
struct Span {
  uint32_t lo;
  uint32_t hi;
};

// A pending run [lo, hi) of the arrays: cells that follow each other extend it; any other cell
// hands it to `flush` and starts a new one.
struct Run {
  uint32_t lo = 0;
  uint32_t hi = 0;
  template <typename C, typename F>
  void Add(const C& c, F&& flush) {
    if (c.lo != hi) {
      if (hi != lo) flush(lo, hi);
      lo = c.lo;
    }
    hi = c.hi;
  }
};

}  // namespace

class LinearQuadtree::IdSink {
 public:
  IdSink(const LinearQuadtree& t, const Probe& p, float radius, QueryResults* out)
      : t_(t), p_(p), radius_(radius), out_(out) {}

  void Take(uint32_t lo, uint32_t hi) {
    out_->stats.candidates += hi - lo;
    EntityId* dst = out_->ids.Reserve(hi - lo);
    if (p_.all_pass) {  // all of them: one copy
      std::copy(t_.id_.begin() + lo, t_.id_.begin() + hi, dst);
      out_->ids.Commit(hi - lo);
      return;
    }
    size_t k = 0;
    for (uint32_t i = lo; i < hi; ++i) {
      dst[k] = t_.id_[i];
      k += static_cast<size_t>(t_.Passes(p_, i));
    }
    out_->ids.Commit(k);
  }

  // Two passes per chunk, as a grid scans its rows: the tests into a byte mask (vectorised),
  // then the compaction.
  void Scan(uint32_t lo, uint32_t hi) {
    out_->stats.candidates += hi - lo;
    EntityId* dst = out_->ids.Reserve(hi - lo);
    size_t k = 0;
    uint8_t hit[kChunk];
    for (uint32_t c0 = lo; c0 < hi; c0 += kChunk) {
      const uint32_t m = std::min(kChunk, hi - c0);
      const float* x = t_.x_.data() + c0;
      const float* y = t_.y_.data() + c0;
      if (t_.max_radius_ > 0.0f) {
        const float* r = t_.r_.data() + c0;
        for (uint32_t j = 0; j < m; ++j) {
          const float dx = p_.center.x - x[j];
          const float dy = p_.center.y - y[j];
          const float reach = radius_ + r[j] + kContactEpsilon;
          hit[j] = static_cast<uint8_t>(dx * dx + dy * dy <= reach * reach);
        }
      } else {  // points: the same reach for all, and one array fewer to read
        const float reach = radius_ + 0.0f + kContactEpsilon;
        const float reach_sq = reach * reach;
        for (uint32_t j = 0; j < m; ++j) {
          const float dx = p_.center.x - x[j];
          const float dy = p_.center.y - y[j];
          hit[j] = static_cast<uint8_t>(dx * dx + dy * dy <= reach_sq);
        }
      }
      const EntityId* id = t_.id_.data() + c0;
      if (!p_.all_pass) {
        for (uint32_t j = 0; j < m; ++j) hit[j] &= static_cast<uint8_t>(t_.Passes(p_, c0 + j));
      }
      for (uint32_t j = 0; j < m; ++j) {
        dst[k] = id[j];
        k += hit[j];
      }
    }
    out_->ids.Commit(k);
  }

 private:
  const LinearQuadtree& t_;
  const Probe& p_;
  float radius_;
  QueryResults* out_;
};

class LinearQuadtree::KeySink {
 public:
  KeySink(const LinearQuadtree& t, const Probe& p, float radius_sq, std::vector<RankKey>* keys,
          QueryStats* stats)
      : t_(t), p_(p), radius_sq_(radius_sq), keys_(keys), stats_(stats) {}

  // A taken run needs its keys (the distances) but no test: with no filter, one straight loop.
  void Take(uint32_t lo, uint32_t hi) {
    if (!p_.all_pass) {
      Emit(lo, hi, std::numeric_limits<float>::infinity());
      return;
    }
    stats_->candidates += hi - lo;
    const size_t k0 = keys_->size();
    keys_->resize(k0 + (hi - lo));
    RankKey* dst = keys_->data() + k0;
    for (uint32_t i = lo; i < hi; ++i) dst[i - lo] = KeyOf(i);
  }
  void Scan(uint32_t lo, uint32_t hi) { Emit(lo, hi, radius_sq_); }

 private:
  [[nodiscard]] RankKey KeyOf(uint32_t i) const {
    const float dx = p_.center.x - t_.x_[i];
    const float dy = p_.center.y - t_.y_[i];
    return MakeRankKey(dx * dx + dy * dy, ToRaw(t_.id_[i]));
  }

  void Emit(uint32_t lo, uint32_t hi, float limit) {
    stats_->candidates += hi - lo;
    const size_t k0 = keys_->size();
    keys_->resize(k0 + (hi - lo));
    RankKey* dst = keys_->data() + k0;
    size_t k = 0;
    const uint32_t limit_bits = std::bit_cast<uint32_t>(limit);  // keys order as distances do
    for (uint32_t i = lo; i < hi; ++i) {
      dst[k] = KeyOf(i);
      k += static_cast<size_t>(static_cast<uint32_t>(dst[k] >> 32) <= limit_bits) &
           static_cast<size_t>(p_.all_pass || t_.Passes(p_, i));
    }
    keys_->resize(k0 + k);
  }

  const LinearQuadtree& t_;
  const Probe& p_;
  float radius_sq_;
  std::vector<RankKey>* keys_;
  QueryStats* stats_;
};

// The same rules as the Quadtree's for the same fields (one place for them): a tree of depth 0.
Status LinearQuadtree::ValidateConfig(const LinearQuadtreeConfig& c) noexcept {
  if (!std::isfinite(c.query_radius) || c.query_radius < 0.0f) {
    return {StatusCode::kInvalidArgument, "query_radius must be finite and >= 0"};
  }
  return spatial::Quadtree::ValidateConfig(
      {.bounds = c.bounds, .leaf_capacity = c.leaf_capacity, .max_depth = 0});
}

LinearQuadtree::LinearQuadtree(const LinearQuadtreeConfig& config) : config_(config) {
  if (Status s = ValidateConfig(config); !s.ok()) {
    throw std::invalid_argument(std::string("linear quadtree config: ") + std::string(s.message()));
  }
  size_ = config.bounds.max - config.bounds.min;
  scale_ = {65536.0f / size_.x, 65536.0f / size_.y};
  // One 16-bit cell (far more than the rounding of (x - min) * scale, far less than a node), or
  // more far from the origin, where a float's rounding of a cell edge can exceed a cell.
  const float reach = std::max({std::abs(config.bounds.min.x), std::abs(config.bounds.max.x),
                                std::abs(config.bounds.min.y), std::abs(config.bounds.max.y)});
  slack_ = std::max(std::max(size_.x, size_.y) / 65536.0f,
                    reach * 16.0f * std::numeric_limits<float>::epsilon());
  for (uint32_t d = 0; d <= kCodeDepth; ++d) {
    const auto cells = static_cast<float>(1u << d);
    side_[d] = {size_.x / cells, size_.y / cells};
    per_[d] = {cells / size_.x, cells / size_.y};
  }
}

// Without a query radius: 4^depth buckets for n / kPerBucket. With one: the depth whose rows cost
// least for one query of that radius, by the model
//   rows * (a row's own cost + the entities of its cells that are scanned, not taken),
// rows = 2 * radius / side + 1. A circle under 3 cells wide has narrow rows, scanned whole; a
// wider one has wide rows (a chord, a middle taken whole), of which ~3 cells are scanned. The
// entities per cell are twice the mean density's: real worlds clump, and a row too coarse costs
// more there than a row too fine. Small cells mean many rows; large ones long scans. (Where
// entities crowd, their buckets are refined by code below the directory.)
uint32_t LinearQuadtree::DepthFor(size_t n) const noexcept {
  uint32_t d = 1;
  while (d < kMaxDirDepth && (size_t{1} << (2 * d)) * kPerBucket < n) ++d;
  const float radius = config_.query_radius;
  if (!(radius > 0.0f) || n == 0) return d;
  const float density = 2.0f * static_cast<float>(n) / (size_.x * size_.y);
  uint32_t best = d;
  float best_cost = std::numeric_limits<float>::infinity();
  for (uint32_t k = 1; k <= kMaxDirDepth; ++k) {
    const float side = std::max(side_[k].x, side_[k].y);
    const float rows = 2.0f * radius / side + 1.0f;
    const bool wide = 2.0f * radius >= 3.0f * side;
    const float scanned = wide ? 3.0f : rows;
    const float cost = rows * ((wide ? kWideRowCost : kNarrowRowCost) +
                               scanned * density * side_[k].x * side_[k].y);
    if (cost < best_cost) {
      best_cost = cost;
      best = k;
    }
  }
  return best;
}

Status LinearQuadtree::Rebuild(std::span<const Item> items) {
  Status s = CountBuckets(items);
  if (!s.ok()) {
    depth_ = 0;
    start_.assign(2, 0);
    for (auto* v : {&x_, &y_, &r_}) v->clear();
    id_.clear();
    mask_.clear();
    code_.clear();
    max_radius_ = 0.0f;
    zero_masks_ = 0;
    return s;
  }
  Scatter(items);
  SortCrowded();
  return Status::Ok();
}

// Checks every item, and counts each directory bucket's items (start_[b + 1]); bucket_[i] is
// item i's bucket.
Status LinearQuadtree::CountBuckets(std::span<const Item> items) {
  const size_t n = items.size();
  depth_ = DepthFor(n);
  const uint32_t shift = kCodeDepth - depth_;
  start_.assign((size_t{1} << (2 * depth_)) + 1, 0);
  bucket_.resize(n);
  float max_radius = 0.0f;
  float min_radius = n > 0 ? items[0].radius : 0.0f;
  uint32_t mask_and = 0xFFFFFFFFu;
  uint32_t mask_or = 0;
  size_t zero_masks = 0;
  for (size_t i = 0; i < n; ++i) {
    const Item& it = items[i];
    if (it.id == kInvalidEntity || !std::isfinite(it.radius) || it.radius < 0.0f) {
      return {StatusCode::kInvalidArgument, "an item has an invalid id or radius"};
    }
    if (!IsFinite(it.center) || !config_.bounds.Contains(it.center)) {
      return {StatusCode::kOutOfBounds, "an item's centre is outside the bounds"};
    }
    const uint32_t qx = Quantize(it.center.x - config_.bounds.min.x, scale_.x);
    const uint32_t qy = Quantize(it.center.y - config_.bounds.min.y, scale_.y);
    const uint32_t b = ((qy >> shift) << depth_) | (qx >> shift);
    bucket_[i] = b;
    ++start_[b + 1];
    max_radius = std::max(max_radius, it.radius);
    min_radius = std::min(min_radius, it.radius);
    mask_and &= it.mask;
    mask_or |= it.mask;
    zero_masks += it.mask == 0 ? 1 : 0;
  }
  max_radius_ = max_radius;
  zero_masks_ = zero_masks;
  radii_vary_ = min_radius != max_radius;
  masks_vary_ = mask_and != mask_or;
  for (size_t b = 1; b < start_.size(); ++b) start_[b] += start_[b - 1];
  return Status::Ok();
}

// Writes every item to the next free place of its bucket (a counting sort). A radius or a mask
// that every item shares is filled in order instead: far cheaper than scattered writes.
void LinearQuadtree::Scatter(std::span<const Item> items) {
  const size_t n = items.size();
  x_.resize(n);
  y_.resize(n);
  id_.resize(n);
  code_.resize(n);
  if (radii_vary_) {
    r_.resize(n);
  } else {
    r_.assign(n, max_radius_);
  }
  if (masks_vary_) {
    mask_.resize(n);
  } else {
    mask_.assign(n, n > 0 ? items[0].mask : 0);
  }
  fill_.assign(start_.begin(), start_.end() - 1);
  for (size_t i = 0; i < n; ++i) {
    const Item& it = items[i];
    const uint32_t k = fill_[bucket_[i]]++;
    x_[k] = it.center.x;
    y_[k] = it.center.y;
    id_[k] = it.id;
    if (radii_vary_) r_[k] = it.radius;
    if (masks_vary_) mask_[k] = it.mask;
  }
}

// A crowded bucket is split below the directory by binary search on the codes: its items are
// sorted by code (the others' codes are never read).
void LinearQuadtree::SortCrowded() {
  const size_t buckets = start_.size() - 1;
  for (size_t b = 0; b < buckets; ++b) {
    const uint32_t lo = start_[b];
    const uint32_t hi = start_[b + 1];
    if (hi - lo <= config_.leaf_capacity) continue;
    order_.resize(hi - lo);
    for (uint32_t k = lo; k < hi; ++k) {
      const uint32_t code = Interleave(Quantize(x_[k] - config_.bounds.min.x, scale_.x),
                                       Quantize(y_[k] - config_.bounds.min.y, scale_.y));
      order_[k - lo] = static_cast<uint64_t>(code) << 32 | k;
    }
    std::sort(order_.begin(), order_.end());
    Permute(lo, x_);
    Permute(lo, y_);
    Permute(lo, id_);
    if (radii_vary_) Permute(lo, r_);
    if (masks_vary_) Permute(lo, mask_);
    for (uint32_t k = lo; k < hi; ++k) code_[k] = static_cast<uint32_t>(order_[k - lo] >> 32);
  }
}

// v's run from lo in the order of order_ (whose low halves are positions in v).
template <typename T>
void LinearQuadtree::Permute(uint32_t lo, std::vector<T>& v) {
  static_assert(sizeof(T) == sizeof(uint32_t));
  std::vector<uint32_t>& tmp = permute_;
  tmp.resize(order_.size());
  for (size_t j = 0; j < order_.size(); ++j) {
    tmp[j] = std::bit_cast<uint32_t>(v[static_cast<uint32_t>(order_[j])]);
  }
  for (size_t j = 0; j < order_.size(); ++j) v[lo + j] = std::bit_cast<T>(tmp[j]);
}

// The directory's cell at column x, row y, as a node of depth depth_.
LinearQuadtree::Cell LinearQuadtree::Bucket(uint32_t x, uint32_t y) const noexcept {
  const size_t b = (static_cast<size_t>(y) << depth_) | x;
  return {
      .depth = depth_, .x = x, .y = y, .m = Interleave(x, y), .lo = start_[b], .hi = start_[b + 1]};
}

// The four children's runs, [at[k], at[k + 1]) in Morton order, by three binary searches on the
// codes in c's run (at or below the directory's depth: a crowded bucket, sorted by code).
void LinearQuadtree::SplitRuns(const Cell& c, std::array<uint32_t, 5>& at) const noexcept {
  const uint32_t s = 2 * (kCodeDepth - c.depth - 1);  // a child's codes: 2 * s free low bits
  const uint32_t base = c.m << (s + 2);
  const auto first = code_.begin();
  at[0] = c.lo;
  at[4] = c.hi;
  for (uint32_t k = 1; k < 4; ++k) {
    at[k] = static_cast<uint32_t>(
        std::lower_bound(first + at[k - 1], first + c.hi, base + (k << s)) - first);
  }
}

Aabb LinearQuadtree::BucketRect(uint32_t x, uint32_t y) const noexcept {
  return RectOf({.depth = depth_, .x = x, .y = y, .m = 0, .lo = 0, .hi = 0});
}

Aabb LinearQuadtree::RectOf(const Cell& c) const noexcept {
  const Vec2 side = side_[c.depth];
  const Vec2 min{config_.bounds.min.x + side.x * static_cast<float>(c.x),
                 config_.bounds.min.y + side.y * static_cast<float>(c.y)};
  return {min, min + side};
}

// One query's walk: the sink and the pending runs. Rows come in order, and a crowded bucket's
// nodes depth first in Morton order, so scanned and taken runs that follow each other in the
// arrays come one after the other and merge: one scan (one loop, one mispredicted exit) instead
// of many.
template <typename S>
class LinearQuadtree::Walk {
 public:
  Walk(const LinearQuadtree& t, const Probe& p, S& sink) : t_(t), p_(p), sink_(sink) {}
  ~Walk() {
    if (scan_.hi != scan_.lo) sink_.Scan(scan_.lo, scan_.hi);
    if (take_.hi != take_.lo) sink_.Take(take_.lo, take_.hi);
  }
  Walk(const Walk&) = delete;
  Walk& operator=(const Walk&) = delete;

  // Row y's buckets [a, end), wholly inside the circle: taken as one run.
  void Take(uint32_t y, uint32_t a, uint32_t end) {
    const size_t row = static_cast<size_t>(y) << t_.depth_;
    const Span c{.lo = t_.start_[row + a], .hi = t_.start_[row + end]};
    if (a < end && c.lo != c.hi)
      take_.Add(c, [this](uint32_t lo, uint32_t hi) { sink_.Take(lo, hi); });
  }

  // Row y's buckets [a, end), which the circle may touch: scanned as one run, unless one of them
  // is crowded, which is then walked down on its own.
  void Edge(uint32_t y, uint32_t a, uint32_t end) {
    const size_t row = static_cast<size_t>(y) << t_.depth_;
    const uint32_t* at = t_.start_.data() + row;
    bool crowded = false;
    for (uint32_t x = a; x < end; ++x) crowded |= at[x + 1] - at[x] > t_.config_.leaf_capacity;
    if (!crowded) {
      if (a < end && at[a] != at[end]) AddScan(Span{.lo = at[a], .hi = at[end]});
      return;
    }
    for (uint32_t x = a; x < end; ++x) {
      if (at[x] == at[x + 1]) continue;
      const Cell c = t_.Bucket(x, y);
      if (c.hi - c.lo <= t_.config_.leaf_capacity) {
        AddScan(c);
      } else if (RectDistSq(p_.center, t_.RectOf(c), t_.slack_) <= p_.prune_sq) {
        Visit(c);
      }
    }
  }

  // REQUIRES: c is not empty and its rect (grown by slack_) is within reach of the circle.
  void Visit(const Cell& c) {
    const uint32_t n = c.hi - c.lo;
    if (n >= kTakeTest && FarCornerSq(p_.center, t_.RectOf(c), t_.slack_) <= p_.inner_sq) {
      take_.Add(c, [this](uint32_t lo, uint32_t hi) { sink_.Take(lo, hi); });
      return;
    }
    if (n <= t_.config_.leaf_capacity) {  // a leaf: testing each beats descending
      AddScan(c);
      return;
    }
    if (c.depth == kCodeDepth) {
      AddScan(c);
      return;
    }
    std::array<uint32_t, 5> at;
    t_.SplitRuns(c, at);
    for (uint32_t k = 0; k < 4; ++k) {
      if (at[k] == at[k + 1]) continue;
      const Cell kid{.depth = c.depth + 1,
                     .x = 2 * c.x + (k & 1u),
                     .y = 2 * c.y + (k >> 1),
                     .m = 4 * c.m + k,
                     .lo = at[k],
                     .hi = at[k + 1]};
      if (RectDistSq(p_.center, t_.RectOf(kid), t_.slack_) <= p_.prune_sq) Visit(kid);
    }
  }

 private:
  template <typename C>
  void AddScan(const C& c) {
    scan_.Add(c, [this](uint32_t lo, uint32_t hi) { sink_.Scan(lo, hi); });
  }

  const LinearQuadtree& t_;
  const Probe& p_;
  S& sink_;
  Run scan_{}, take_{};
};

// Row by row over the directory's cells that the circle's box overlaps. In each row the cells
// the circle may touch are one span of the arrays: its middle, cells wholly inside the circle, is
// taken whole; its two ends are scanned, or walked down (by code) where a bucket is crowded.
template <typename S>
void LinearQuadtree::Query(const Probe& p, float reach, S& sink) const {
  const auto last = static_cast<float>((1u << depth_) - 1);
  const Vec2 per = per_[depth_];
  const Vec2 side = side_[depth_];
  const auto cell_of = [last](float v, float per_unit) {
    return static_cast<uint32_t>(std::clamp(v * per_unit, 0.0f, last));  // clamped >= 0: floor
  };
  const Vec2 from = p.center - config_.bounds.min;
  const float grown = reach + slack_;
  const uint32_t y0 = cell_of(from.y - grown, per.y);
  const uint32_t y1 = cell_of(from.y + grown, per.y);
  // A circle a few cells wide: each row is the box's width (the chord would save no cell), and
  // no row has two cells wholly inside (too few to be worth taking whole).
  // (A reach whose square overflows reads the box too: inf - inf would make the chord NaN.)
  const float cell = std::max(side.x, side.y);
  const bool wide = std::isfinite(p.prune_sq) && 2.0f * reach >= 3.0f * cell;
  const bool takes = wide && 2.0f * std::sqrt(p.inner_sq) >= 3.0f * cell;
  const uint32_t x0 = cell_of(from.x - grown, per.x);
  const uint32_t x1 = cell_of(from.x + grown, per.x);
  Walk<S> walk(*this, p, sink);
  for (uint32_t y = y0; y <= y1; ++y) {
    if (!wide) {
      walk.Edge(y, x0, x1 + 1);
      continue;
    }
    // The row's band, grown by slack_: its nearest and farthest rows from the centre.
    const float by0 = side.y * static_cast<float>(y) - slack_;
    const float by1 = by0 + side.y + 2.0f * slack_;
    const float near = std::max(std::max(by0 - from.y, from.y - by1), 0.0f);
    const float room = p.prune_sq - near * near;
    if (room < 0.0f) continue;
    const float half = std::sqrt(room) + slack_;
    const uint32_t xa = cell_of(from.x - half, per.x);
    const uint32_t xb = cell_of(from.x + half, per.x);
    const float far = std::max(from.y - by0, by1 - from.y);
    const float inner = takes ? p.inner_sq - far * far : 0.0f;
    // The cells wholly inside: [ia, ie), none when ia >= ie.
    uint32_t ia = xb + 1;
    uint32_t ie = xb + 1;
    if (inner > 0.0f) {
      const float in = std::sqrt(inner) - slack_;
      ia = std::max(xa, cell_of(from.x - in, per.x) + 1);
      ie = std::min(xb + 1, cell_of(from.x + in, per.x));
      // The estimate from the square root is checked by the exact test at both ends (the
      // cells between lie inside too: the disc is convex).
      while (ia < ie && FarCornerSq(p.center, BucketRect(ia, y), slack_) > p.inner_sq) ++ia;
      while (ia < ie && FarCornerSq(p.center, BucketRect(ie - 1, y), slack_) > p.inner_sq) --ie;
    }
    const uint32_t* at = start_.data() + (static_cast<size_t>(y) << depth_);
    if (ia >= ie || at[ie] - at[ia] < kMinTake) {
      walk.Edge(y, xa, xb + 1);
      continue;
    }
    walk.Edge(y, xa, ia);
    walk.Take(y, ia, ie);
    walk.Edge(y, ie, xb + 1);
  }
}

void LinearQuadtree::QueryCircle(const Circle& circle, const QueryFilter& filter,
                                 QueryResults* out) const {
  out->ids.clear();
  out->stats = {};
  if (!IsFinite(circle.center) || !std::isfinite(circle.radius) || circle.radius < 0.0f ||
      id_.empty()) {
    return;
  }
  const float reach = circle.radius + max_radius_ + kContactEpsilon;
  const Probe p{.center = circle.center,
                .prune_sq = reach * reach,
                .inner_sq = circle.radius * circle.radius,
                .mask = filter.mask,
                .exclude = filter.exclude,
                .masks_pass = filter.mask == 0xFFFFFFFFu && zero_masks_ == 0,
                .all_pass = filter.mask == 0xFFFFFFFFu && zero_masks_ == 0 &&
                            filter.exclude == kInvalidEntity};
  IdSink sink(*this, p, circle.radius, out);
  Query(p, reach, sink);
  out->stats.hits = out->ids.size();
}

void LinearQuadtree::QueryCircleKeys(Vec2 center, float radius, const QueryFilter& filter,
                                     std::vector<RankKey>* keys, QueryStats* stats) const {
  QueryStats local;
  QueryStats& st = stats != nullptr ? *stats : local;
  st = {};
  if (!IsFinite(center) || !std::isfinite(radius) || radius < 0.0f || id_.empty()) return;
  const Probe p{.center = center,
                .prune_sq = radius * radius,
                .inner_sq = radius * radius,
                .mask = filter.mask,
                .exclude = filter.exclude,
                .masks_pass = filter.mask == 0xFFFFFFFFu && zero_masks_ == 0,
                .all_pass = filter.mask == 0xFFFFFFFFu && zero_masks_ == 0 &&
                            filter.exclude == kInvalidEntity};
  const size_t before = keys->size();
  KeySink sink(*this, p, radius * radius, keys, &st);
  Query(p, radius, sink);
  st.hits = keys->size() - before;
}

}  // namespace zs::bench
