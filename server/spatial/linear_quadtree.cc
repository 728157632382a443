#include "spatial/linear_quadtree.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "spatial/morton.h"

namespace zs::spatial {

namespace {

constexpr uint32_t kCodeDepth = 16;   // bits per axis of a code: the deepest node
constexpr uint32_t kMaxDirDepth = 8;  // 65,536 buckets
constexpr uint32_t kPerBucket = 8;    // the directory aims at this many entities per bucket
constexpr uint32_t kChunk = 64;       // a scan tests this many into a byte mask, then compacts

// Squared distance from p to the rect grown by `slack` on every side.
float RectDistSq(Vec2 p, const Aabb& r, float slack) {
  const float dx = std::max({r.min.x - slack - p.x, 0.0f, p.x - r.max.x - slack});
  const float dy = std::max({r.min.y - slack - p.y, 0.0f, p.y - r.max.y - slack});
  return dx * dx + dy * dy;
}

// Squared distance from p to the farthest corner of the rect grown by `slack`.
float FarCornerSq(Vec2 p, const Aabb& r, float slack) {
  const float dx = std::max(std::abs(p.x - (r.min.x - slack)), std::abs(r.max.x + slack - p.x));
  const float dy = std::max(std::abs(p.y - (r.min.y - slack)), std::abs(r.max.y + slack - p.y));
  return dx * dx + dy * dy;
}

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
    RankKey* dst = keys_->data() + k0 - lo;
    for (uint32_t i = lo; i < hi; ++i) dst[i] = KeyOf(i);
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
  return Quadtree::ValidateConfig(
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

uint32_t LinearQuadtree::DepthFor(size_t n) const noexcept {
  uint32_t d = 1;
  while (d < kMaxDirDepth && (size_t{1} << (2 * d)) * kPerBucket < n) ++d;
  return d;
}

Status LinearQuadtree::Rebuild(std::span<const Item> items) {
  code_.clear();
  x_.clear();
  y_.clear();
  r_.clear();
  id_.clear();
  mask_.clear();
  max_radius_ = 0.0f;
  zero_masks_ = 0;
  for (const Item& it : items) {
    if (it.id == kInvalidEntity || !std::isfinite(it.radius) || it.radius < 0.0f) {
      return {StatusCode::kInvalidArgument, "an item has an invalid id or radius"};
    }
    if (!IsFinite(it.center) || !config_.bounds.Contains(it.center)) {
      return {StatusCode::kOutOfBounds, "an item's centre is outside the bounds"};
    }
  }
  SortByCode(items);
  return Status::Ok();
}

void LinearQuadtree::SortByCode(std::span<const Item> items) {
  const size_t n = items.size();
  depth_ = DepthFor(n);
  const uint32_t shift = 32 - 2 * depth_;
  start_.assign((size_t{1} << (2 * depth_)) + 1, 0);
  order_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const Vec2 at = items[i].center - config_.bounds.min;
    const auto qx = std::min<uint32_t>(65535, static_cast<uint32_t>(at.x * scale_.x));
    const auto qy = std::min<uint32_t>(65535, static_cast<uint32_t>(at.y * scale_.y));
    const uint32_t code = Interleave(qx, qy);
    order_[i] = static_cast<uint64_t>(code) << 32 | i;
    ++start_[(code >> shift) + 1];
  }
  for (size_t b = 1; b < start_.size(); ++b) start_[b] += start_[b - 1];
  fill_.assign(start_.begin(), start_.end() - 1);
  sorted_.resize(n);
  for (const uint64_t o : order_) sorted_[fill_[static_cast<uint32_t>(o >> 32) >> shift]++] = o;
  // A crowded bucket is split below the directory by binary search on the codes: sort it.
  for (size_t b = 0; b + 1 < start_.size(); ++b) {
    if (start_[b + 1] - start_[b] > config_.leaf_capacity) {
      std::sort(sorted_.begin() + start_[b], sorted_.begin() + start_[b + 1]);
    }
  }
  code_.resize(n);
  x_.resize(n);
  y_.resize(n);
  r_.resize(n);
  id_.resize(n);
  mask_.resize(n);
  for (size_t k = 0; k < n; ++k) {
    const Item& it = items[static_cast<uint32_t>(sorted_[k])];
    code_[k] = static_cast<uint32_t>(sorted_[k] >> 32);
    x_[k] = it.center.x;
    y_[k] = it.center.y;
    r_[k] = it.radius;
    id_[k] = it.id;
    mask_[k] = it.mask;
    max_radius_ = std::max(max_radius_, it.radius);
    zero_masks_ += it.mask == 0 ? 1 : 0;
  }
}

// The deepest depth (<= the directory's) whose cells are at least 2 * reach wide and high: the
// circle's bounding box then overlaps at most 2 x 2 of them. Never below the directory: only
// crowded buckets are sorted by code, and a query descends into those alone.
uint32_t LinearQuadtree::StartDepth(float reach) const noexcept {
  // Cells at depth d are narrow / 2^d wide: d = floor(log2(narrow / (2 * reach))), read from
  // the float's exponent.
  const float ratio = std::min(size_.x, size_.y) / (2.0f * reach);
  if (!(ratio >= 2.0f)) return 0;
  if (!(ratio < 65536.0f)) return depth_;  // also a zero reach (inf)
  const auto d = static_cast<uint32_t>((std::bit_cast<uint32_t>(ratio) >> 23) - 127);
  return std::min(d, depth_);
}

// REQUIRES: depth <= depth_ (the directory has it).
LinearQuadtree::Cell LinearQuadtree::CellAt(uint32_t depth, uint32_t x, uint32_t y) const noexcept {
  const uint32_t m = Interleave(x, y);  // at `depth`: 2 * depth bits
  const uint32_t s = 2 * (depth_ - depth);
  return {.depth = depth,
          .x = x,
          .y = y,
          .lo = start_[static_cast<size_t>(m) << s],
          .hi = start_[(static_cast<size_t>(m) + 1) << s]};
}

// Above the directory's depth, from the directory; below it (a crowded bucket, sorted by code),
// by three binary searches inside the parent's run.
void LinearQuadtree::Split(const Cell& c, std::array<Cell, 4>& kids) const noexcept {
  for (uint32_t k = 0; k < 4; ++k) {
    kids[k] = {
        .depth = c.depth + 1, .x = 2 * c.x + (k & 1u), .y = 2 * c.y + (k >> 1), .lo = 0, .hi = 0};
  }
  if (c.depth < depth_) {
    for (Cell& k : kids) k = CellAt(k.depth, k.x, k.y);
    return;
  }
  const uint32_t s = 2 * (kCodeDepth - c.depth - 1);  // a child's codes: 2 * s free low bits
  const uint32_t base = Interleave(c.x, c.y) << (s + 2);
  const auto first = code_.begin();
  uint32_t at = c.lo;
  for (uint32_t k = 0; k < 4; ++k) {
    kids[k].lo = at;
    at = k == 3 ? c.hi
                : static_cast<uint32_t>(
                      std::lower_bound(first + at, first + c.hi, base + ((k + 1) << s)) - first);
    kids[k].hi = at;
  }
}

Aabb LinearQuadtree::RectOf(const Cell& c) const noexcept {
  const Vec2 side = side_[c.depth];
  const Vec2 min{config_.bounds.min.x + side.x * static_cast<float>(c.x),
                 config_.bounds.min.y + side.y * static_cast<float>(c.y)};
  return {min, min + side};
}

// Depth-first from the start cells, on a stack of cells: each popped cell is not empty and its
// rect (grown by slack_) is within reach of the circle.
template <typename S>
void LinearQuadtree::Query(const Probe& p, float reach, S& sink) const {
  const uint32_t depth = StartDepth(reach);
  const auto last = static_cast<float>((1u << depth) - 1);
  const Vec2 per = per_[depth];
  const auto cell_of = [last](float v, float per_unit) {
    return static_cast<uint32_t>(std::clamp(std::floor(v * per_unit), 0.0f, last));
  };
  const Vec2 from = p.center - config_.bounds.min;
  const uint32_t x0 = cell_of(from.x - reach, per.x);
  const uint32_t x1 = cell_of(from.x + reach, per.x);
  const uint32_t y0 = cell_of(from.y - reach, per.y);
  const uint32_t y1 = cell_of(from.y + reach, per.y);
  // At most 3 x 3 start cells, then 3 more per level below (a popped cell pushes 4). Cells are
  // popped in Morton order, so leaves that follow each other in the arrays come one after the
  // other and merge into one run: one scan (one loop, one mispredicted exit) instead of many.
  std::array<Cell, 9 + 3 * (kCodeDepth + 1)> stack;
  size_t top = 0;
  for (uint32_t y = y0; y <= y1; ++y) {
    for (uint32_t x = x0; x <= x1; ++x) {
      const Cell c = CellAt(depth, x, y);
      if (c.lo == c.hi || (c.hi - c.lo > config_.leaf_capacity &&
                           RectDistSq(p.center, RectOf(c), slack_) > p.prune_sq)) {
        continue;  // (a leaf is scanned untested: a rect test costs more than its few points)
      }
      size_t at = top++;  // kept in descending order of their runs (Morton order): pop ascending
      for (; at > 0 && stack[at - 1].lo < c.lo; --at) stack[at] = stack[at - 1];
      stack[at] = c;
    }
  }
  Run scan{}, take{};
  while (top > 0) {
    const Cell c = stack[--top];
    if (c.hi - c.lo <= config_.leaf_capacity) {  // a leaf: testing each beats descending
      scan.Add(c, [&sink](uint32_t lo, uint32_t hi) { sink.Scan(lo, hi); });
      continue;
    }
    const Aabb rect = RectOf(c);
    if (FarCornerSq(p.center, rect, slack_) <= p.inner_sq) {
      take.Add(c, [&sink](uint32_t lo, uint32_t hi) { sink.Take(lo, hi); });
      continue;
    }
    if (c.depth == kCodeDepth) {
      scan.Add(c, [&sink](uint32_t lo, uint32_t hi) { sink.Scan(lo, hi); });
      continue;
    }
    std::array<Cell, 4> kids;
    Split(c, kids);
    for (uint32_t k = 4; k-- > 0;) {  // pushed in reverse: popped in Morton order
      if (kids[k].lo != kids[k].hi && RectDistSq(p.center, RectOf(kids[k]), slack_) <= p.prune_sq) {
        stack[top++] = kids[k];
      }
    }
  }
  if (scan.hi != scan.lo) sink.Scan(scan.lo, scan.hi);
  if (take.hi != take.lo) sink.Take(take.lo, take.hi);
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

}  // namespace zs::spatial
