// LinearQuadtree: a quadtree rebuilt from scratch every tick, laid out in Morton order, for the
// queries a tick asks many times ("who is within r of each player").
//
// Why beside the incremental Quadtree: a tree of nodes and slabs pays a pointer chase per node,
// and a flat grid rebuilt per tick (a counting sort) beats it even where density varies. This
// index is a grid and a tree at once. Every entity gets the Morton code of its centre at 16 bits
// per axis; the entities are sorted by that code (a counting sort on the code's top 2 * D bits,
// then a sort by the whole code inside the buckets that hold more than leaf_capacity), so every
// quadtree node at any depth is one contiguous run of the arrays. A table of bucket starts (the
// directory, 4^D + 1 entries, D chosen from N) finds the run of any node at depth <= D with two
// loads; below D, where a bucket is crowded, a node's run is split by binary search on the codes.
//
// A circle query starts at the depth whose cells are at least as wide as the circle (at most
// 2 x 2 cells), and walks down in Morton order: a node that misses the circle is skipped, a node
// inside the circle is taken whole (no distance test for QueryCircle), a node holding at most
// leaf_capacity entities is scanned (a vectorisable loop over contiguous floats), any other node
// is split into its four children. Leaves and taken nodes that follow each other in the arrays
// merge into one run before they are scanned or copied. So it adapts to density (crowded cells
// are refined, empty ones cost nothing) with a grid's constant-time start.
//
// Where it stands (bench/README.md, "Spatial index"): faster than the incremental Quadtree's
// queries on every workload of the spatial benchmark, and than the best grid in the 10k dense
// crowd; 1.5-2.1x the best grid on uniform and blob-clustered points. The zone does not use it.
//
// Results are exact and match the Quadtree's and BruteForceIndex's (same narrow-phase rules).
// Contents are structure-of-arrays; a warm index (same N or fewer) rebuilds and queries without
// allocating. Not thread-safe to rebuild; const queries may run concurrently with each other.
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

namespace zs::spatial {

struct LinearQuadtreeConfig {
  Aabb bounds{{0.0f, 0.0f}, {1024.0f, 1024.0f}};
  // A node holding more than this is split by a query (1..4096). 128 measured best on the
  // spatial benchmark (8, 32, 64, 128): a node visit costs about what scanning ~100 does.
  uint32_t leaf_capacity = 128;
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
  // touches the circle, in Morton order of the nodes visited. out->ids and out->stats replaced.
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
  // A node: its depth, cell coordinates at that depth, and its run [lo, hi) of the arrays.
  struct Cell {
    uint32_t depth;
    uint32_t x;
    uint32_t y;
    uint32_t lo;
    uint32_t hi;
  };
  // Where a query's accepted entities go: Take(lo, hi) accepts a run whole, Scan(lo, hi) tests
  // each entity first; both apply the filter.
  class IdSink;   // QueryCircle: hitboxes touching the circle, as ids
  class KeySink;  // QueryCircleKeys: centres within the radius, as rank keys

  [[nodiscard]] uint32_t StartDepth(float reach) const noexcept;
  [[nodiscard]] Cell CellAt(uint32_t depth, uint32_t x, uint32_t y) const noexcept;
  // The four children of `c`, in Morton order.
  void Split(const Cell& c, std::array<Cell, 4>& kids) const noexcept;
  [[nodiscard]] Aabb RectOf(const Cell& c) const noexcept;
  template <typename S>
  void Query(const Probe& p, float reach, S& sink) const;
  [[nodiscard]] uint32_t DepthFor(size_t n) const noexcept;
  void SortByCode(std::span<const Item> items);
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
  // The contents, sorted by code (structure of arrays).
  std::vector<uint32_t> code_;
  std::vector<float> x_, y_, r_;
  std::vector<EntityId> id_;
  std::vector<uint32_t> mask_;
  std::vector<uint32_t> start_;   // directory: bucket b's run is [start_[b], start_[b + 1])
  std::vector<uint64_t> order_;   // rebuild scratch: code << 32 | item index, by item
  std::vector<uint64_t> sorted_;  // ... the same, by bucket
  std::vector<uint32_t> fill_;    // ... each bucket's next free place
};

}  // namespace zs::spatial
