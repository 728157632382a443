// LinearQuadtree: a quadtree rebuilt from scratch every tick, for the queries a tick asks many
// times ("who is within r of each player").
//
// Why beside the incremental Quadtree: a tree of nodes and slabs pays a pointer chase per node,
// and a flat grid rebuilt per tick (a counting sort) beats it even where density varies. This
// index is a grid and a tree at once:
// - Its top is a directory: the quadtree's nodes of one depth D, kept as a grid in rows
//   (4^D buckets, a counting sort per rebuild), so the buckets of one row are one contiguous run
//   of the arrays, as a grid's are. D follows N, or the configured query radius by a cost model
//   (DepthFor), as one would size a grid's cells.
// - Below it, where a bucket is crowded (more than leaf_capacity), the bucket's entities are
//   sorted by their Morton code (16 bits per axis), so each of its quadtree nodes, down to the
//   deepest, is one contiguous run, split by binary search on the codes.
//
// A circle query goes row by row over the buckets its box overlaps. In each row the buckets the
// circle may touch are one span: its middle (buckets wholly inside) is taken whole, with no
// distance test; its ends are scanned (a vectorisable loop over contiguous floats), except a
// crowded bucket, which is walked down its nodes: one outside the circle is skipped, one inside
// taken whole, one holding at most leaf_capacity scanned, any other split in four. Runs that
// follow each other in the arrays merge before they are scanned or copied. So it adapts to density
// (crowded buckets are refined, and taken whole where the circle covers them) with a grid's rows.
//
// Where it stands (bench/README.md, "Spatial index"): faster than the incremental Quadtree on
// every workload of the spatial benchmark; 1.1-1.2x the best grid on uniform points, 0.4-0.5x
// where thousands crowd or dense blobs meet a large radius. The zone does not use it: rebuilt per
// tick for its views' small k-nearest circles, it made the tick 1.1x slower than the Quadtree's
// at 5,000 players + 20,000 monsters (bench/README.md). So it lives here, in bench/, beside the
// other baselines, and no production target links it (issue 38: one quadtree in production).
//
// Results are exact and match the Quadtree's and BruteForceIndex's (same narrow-phase rules).
// Contents are structure-of-arrays (a radius or a mask every entity shares is filled in order,
// not scattered); a warm index (N and its most crowded bucket no larger than before) rebuilds
// and queries without allocating. Not thread-safe to rebuild; const queries may run
// concurrently with each other.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/entity_id.h"
#include "core/shapes.h"
#include "core/status.h"
#include "core/vec2.h"
#include "spatial/quadtree.h"
#include "spatial/rank_key.h"

namespace zs::bench {

// The same query types as the zone's index, so the two answer the same calls.
using spatial::QueryFilter;
using spatial::QueryResults;
using spatial::QueryStats;
using spatial::RankKey;

struct LinearQuadtreeConfig {
  Aabb bounds{{0.0f, 0.0f}, {1024.0f, 1024.0f}};
  // A crowded bucket's node holding more than this is split by a query (1..4096), and a bucket
  // holding more is sorted by code. 256 measured best on the spatial benchmark (32 to 512): a
  // node visit costs about what scanning a hundred does.
  uint32_t leaf_capacity = 256;
  // The radius the caller's queries mostly use (0: not known). The directory's cells are then
  // sized for it (DepthFor), as one would size a grid's cells; any radius is still answered.
  float query_radius = 0.0f;
};

class LinearQuadtree {
 public:
  // One entity to index: the same model as the Quadtree's (id, centre, hitbox radius, mask).
  struct Item {
    EntityId id = kInvalidEntity;
    Vec2 center;
    float radius = 0.0f;
    uint32_t mask = 1;
  };

  // Returns an error naming the bad field, or Ok.
  static Status ValidateConfig(const LinearQuadtreeConfig& config) noexcept;
  // REQUIRES: ValidateConfig(config).ok(); throws std::invalid_argument otherwise.
  explicit LinearQuadtree(const LinearQuadtreeConfig& config);

  // Replaces the contents with `items`. kInvalidArgument for kInvalidEntity or a radius that is
  // negative or not finite, kOutOfBounds for a centre outside the bounds or not finite: the
  // index is then empty. Ids are not checked for duplicates (an id given twice is found twice).
  Status Rebuild(std::span<const Item> items);

  [[nodiscard]] size_t size() const noexcept { return id_.size(); }
  [[nodiscard]] const LinearQuadtreeConfig& config() const noexcept { return config_; }
  // The directory's depth for the current contents (4^depth buckets).
  [[nodiscard]] uint32_t directory_depth() const noexcept { return depth_; }

  // As Quadtree::QueryCircle with QueryOrder::kAny: every entity passing `filter` whose hitbox
  // touches the circle, in no meaningful order (the runs it scans and those it takes whole are
  // reported apart). out->ids and out->stats replaced.
  void QueryCircle(const Circle& circle, const QueryFilter& filter, QueryResults* out) const;
  // As Quadtree::QueryCircleKeys: appends the RankKey of every entity passing `filter` whose
  // centre is within `radius` of `center`; *stats, when given, replaced by the work done.
  void QueryCircleKeys(Vec2 center, float radius, const QueryFilter& filter,
                       std::vector<RankKey>* keys, QueryStats* stats = nullptr) const;

 private:
  // One query's fixed parts, passed down the descent.
  struct Probe {
    Vec2 center;
    float prune_sq;  // a node farther than this (squared, rect grown by slack_) is skipped
    float inner_sq;  // a node whose far corner is within this (squared) is taken whole
    uint32_t mask;
    EntityId exclude;
    bool masks_pass;  // every stored mask passes the filter: no per-entity mask test
    bool all_pass;    // ... and nothing is excluded: no filter at all
  };
  // A node: its depth, cell coordinates and Morton code at that depth, and its run [lo, hi) of
  // the arrays.
  struct Cell {
    uint32_t depth;
    uint32_t x;
    uint32_t y;
    uint32_t m;
    uint32_t lo;
    uint32_t hi;
  };
  // Where a query's accepted entities go: Take(lo, hi) accepts a run whole, Scan(lo, hi) tests
  // each entity first; both apply the filter.
  class IdSink;   // QueryCircle: hitboxes touching the circle, as ids
  class KeySink;  // QueryCircleKeys: centres within the radius, as rank keys
  template <typename S>
  class Walk;  // one query's descent and its pending runs

  // The directory's bucket at column x, row y (a node of depth depth_).
  [[nodiscard]] Cell Bucket(uint32_t x, uint32_t y) const noexcept;
  // The runs of c's four children, in Morton order: child k holds [at[k], at[k + 1]).
  void SplitRuns(const Cell& c, std::array<uint32_t, 5>& at) const noexcept;
  [[nodiscard]] Aabb RectOf(const Cell& c) const noexcept;
  [[nodiscard]] Aabb BucketRect(uint32_t x, uint32_t y) const noexcept;
  template <typename S>
  void Query(const Probe& p, float reach, S& sink) const;
  [[nodiscard]] uint32_t DepthFor(size_t n) const noexcept;
  Status CountBuckets(std::span<const Item> items);
  void Scatter(std::span<const Item> items);
  void SortCrowded();
  template <typename T>
  void Permute(uint32_t lo, std::vector<T>& v);
  // Branch-free (bitwise, not short-circuit), so the scans that call it stay vectorisable.
  [[nodiscard]] bool Passes(const Probe& p, uint32_t i) const noexcept {
    return static_cast<bool>(
        (static_cast<unsigned>(p.masks_pass) | static_cast<unsigned>((mask_[i] & p.mask) != 0)) &
        static_cast<unsigned>(id_[i] != p.exclude));
  }

  LinearQuadtreeConfig config_;
  Vec2 size_;    // bounds' width and height
  Vec2 scale_;   // 65536 / size: world units to 16-bit cell coordinates
  float slack_;  // a node's rect is grown by this before a test: covers rounding to cells
  std::array<Vec2, 17> side_{};  // by depth: a cell's width and height
  std::array<Vec2, 17> per_{};   // by depth: cells per world unit
  uint32_t depth_ = 0;
  float max_radius_ = 0.0f;
  size_t zero_masks_ = 0;
  bool radii_vary_ = false;  // else r_ holds one value throughout, filled in order
  bool masks_vary_ = false;  // ... and mask_
  // The contents, by bucket in row order, a crowded bucket's by code (structure of arrays).
  // code_ is only read (and only set) in crowded buckets.
  std::vector<uint32_t> code_;
  std::vector<float> x_, y_, r_;
  std::vector<EntityId> id_;
  std::vector<uint32_t> mask_;
  std::vector<uint32_t> start_;    // directory: bucket b's run is [start_[b], start_[b + 1])
  std::vector<uint32_t> bucket_;   // rebuild scratch: each item's bucket
  std::vector<uint64_t> order_;    // ... a crowded bucket's code << 32 | position
  std::vector<uint32_t> permute_;  // ... one array's run, reordered
  std::vector<uint32_t> fill_;     // ... each bucket's next free place
};

}  // namespace zs::bench
