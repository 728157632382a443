// Quadtree: the spatial index of one zone.
//
// What it is for: every tick the zone asks "who is near whom" (area of interest, ranked by
// distance with QueryCircleKeys) and "who does this swing hit" (combat). Entities are circles
// (id, centre, hitbox radius, category mask) in a bounded rectangular world; queries are exact:
// the narrow-phase test against each hitbox (core/shapes.h) is part of the query, so results are
// true hits, never candidates.
//
// Structure: a region quadtree over the world bounds. An entity lives in the leaf that contains
// its centre (half-open cells: x >= mid goes right, y >= mid goes up; the world's max edges are
// closed). Each node knows how many entities its subtree holds and the largest hitbox radius in
// it, so queries prune by "rect grown by max radius" and large hitboxes stay exact without
// straddling lists. A leaf splits when it holds more than leaf_capacity entities (unless at
// max_depth); a subtree collapses back into a leaf when it holds leaf_capacity / 2 or fewer, so a
// tree that lives for days does not degrade.
//
// Layout: nodes live in one pooled vector (children are 4 consecutive nodes, recycled through a
// free list; no `new` per node). Leaf contents live in 32-slot slabs of structure-of-arrays
// storage (x[], y[], radius[], id[], mask[]), chained when a leaf holds more than 32 (a
// leaf_capacity above 32, or a leaf at max_depth), so a leaf scan is a straight loop over
// contiguous floats that the compiler vectorises. A dense table maps an entity's index to its slot,
// so Move() of an entity that stays in its leaf is O(1): two stores.
//
// Ownership and threads: a Quadtree owns all its storage. It is not thread-safe: one thread
// mutates it; const queries may run concurrently with each other (each with its own
// QueryResults) but not with mutation.
//
// Invariants (checked by CheckInvariants, which the randomized tests run after every operation):
//   - every stored entity is in exactly the leaf that Locate(centre) returns, and the id table
//     points at its slot;
//   - every node's count is the number of entities in its subtree; every internal node holds
//     more than leaf_capacity / 2;
//   - every node's max_radius >= each hitbox radius in its subtree;
//   - zero_masks_ is the number of stored entities whose mask is 0.
//
// Errors are values: bad positions (NaN, inf, outside the world), bad radii, unknown or stale
// ids and duplicate inserts return a Status and leave the tree unchanged. Storage grows on
// demand (amortised; a warm tree in steady state does not allocate); running out of memory
// inside a mutation terminates the process (the mutators are noexcept), as it would in any
// other part of a game server.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/entity_id.h"
#include "core/shapes.h"
#include "core/status.h"
#include "core/vec2.h"
#include "spatial/id_buffer.h"
#include "spatial/rank_key.h"

namespace zs::spatial {

struct QuadtreeConfig {
  Aabb bounds{{0.0f, 0.0f}, {1024.0f, 1024.0f}};
  uint32_t leaf_capacity = 64;  // split a leaf holding more than this (1..4096)
  uint32_t max_depth = 10;      // root is depth 0 (0..20)
};

// Which entities a query may return. An entity passes when (its mask & mask) != 0 and its id is
// not `exclude`.
struct QueryFilter {
  uint32_t mask = 0xFFFFFFFFu;
  EntityId exclude = kInvalidEntity;
};

enum class QueryOrder : uint8_t {
  kAny,         // traversal order (deterministic for a given history, but not meaningful)
  kById,        // ascending raw id
  kByDistance,  // ascending centre distance from the query's origin, ties by ascending id
};

// Work done by one query: the classic "checks per frame" figure is `candidates`.
struct QueryStats {
  uint64_t nodes_visited = 0;
  uint64_t candidates = 0;  // entities looked at (narrow-phase tested or accepted in bulk)
  uint64_t hits = 0;        // entities returned

  QueryStats& operator+=(const QueryStats& o) noexcept {
    nodes_visited += o.nodes_visited;
    candidates += o.candidates;
    hits += o.hits;
    return *this;
  }
};

// Caller-owned result buffer. Reuse one per thread: once its vectors have grown, queries
// allocate nothing.
class QueryResults {
 public:
  IdBuffer ids;      // the hits of the last query
  QueryStats stats;  // the work of the last query

 private:
  friend class Quadtree;
  std::vector<std::pair<float, uint32_t>> keyed_;  // (distance^2, raw id) scratch
  std::vector<std::pair<float, int32_t>> nodes_;   // nearest-first node heap
  std::vector<int32_t> level_, next_, leaves_;     // breadth-first traversal frontiers
};

struct TreeStats {
  size_t entities = 0;
  size_t nodes = 0;  // live nodes, internal and leaf
  size_t leaves = 0;
  uint32_t depth = 0;     // deepest live node
  size_t bytes_used = 0;  // capacity of all internal storage
};

// One node, for the zone viewer and for debugging.
struct NodeInfo {
  Aabb rect;
  uint32_t depth = 0;
  uint32_t count = 0;  // entities in the subtree
  bool leaf = false;
};

class Quadtree {
 public:
  // Returns an error naming the bad field, or Ok.
  static Status ValidateConfig(const QuadtreeConfig& config) noexcept;

  // REQUIRES: ValidateConfig(config).ok(); throws std::invalid_argument otherwise.
  explicit Quadtree(const QuadtreeConfig& config);

  Quadtree(const Quadtree&) = delete;
  Quadtree& operator=(const Quadtree&) = delete;
  Quadtree(Quadtree&&) noexcept = default;
  Quadtree& operator=(Quadtree&&) noexcept = default;

  // Adds an entity. kInvalidArgument for kInvalidEntity or a NaN/inf/negative radius;
  // kOutOfBounds for a centre outside the world or not finite; kAlreadyExists if the id's index
  // is already stored (under any generation).
  Status Insert(EntityId id, Vec2 center, float radius, uint32_t mask = 1) noexcept;
  // kNotFound for an unknown or stale id.
  Status Remove(EntityId id) noexcept;
  // Moves an entity. O(1) when it stays in its leaf. Same errors as Insert/Remove.
  Status Move(EntityId id, Vec2 center) noexcept;
  // Changes an entity's category mask. O(1). kNotFound for an unknown or stale id.
  Status SetMask(EntityId id, uint32_t mask) noexcept;
  // Removes everything; keeps allocated storage for reuse.
  void Clear() noexcept;

  [[nodiscard]] size_t size() const noexcept { return size_; }
  [[nodiscard]] bool Contains(EntityId id) const noexcept;
  // Centre of a stored entity; false for an unknown or stale id.
  [[nodiscard]] bool GetPosition(EntityId id, Vec2* center) const noexcept;
  [[nodiscard]] const QuadtreeConfig& config() const noexcept { return config_; }

  // ---- queries: results replace out->ids, work replaces out->stats ----
  // A shape with NaN/inf fields, a negative circle or capsule radius, or an AABB with
  // min > max matches nothing. A sector's range below 0 is 0, its half-angle is clamped to
  // [0, pi] (NaN: 0) and its facing is normalised (NaN: 0).
  void QueryCircle(const Circle& circle, const QueryFilter& filter, QueryOrder order,
                   QueryResults* out) const;
  void QueryAabb(const Aabb& rect, const QueryFilter& filter, QueryOrder order,
                 QueryResults* out) const;
  void QuerySector(const Sector& sector, const QueryFilter& filter, QueryOrder order,
                   QueryResults* out) const;
  void QueryCapsule(const Capsule& capsule, const QueryFilter& filter, QueryOrder order,
                    QueryResults* out) const;
  // Up to k entities whose centre is within max_distance of p, nearest centre first, ties by id.
  void QueryNearest(Vec2 p, uint32_t k, float max_distance, const QueryFilter& filter,
                    QueryResults* out) const;
  // Ranking query (what interest selection needs): appends to *keys, in no particular order, the
  // RankKey of every entity passing `filter` whose CENTRE is within `radius` of `center`
  // (DistanceSq(center, c) <= radius * radius: no hitbox, no contact epsilon). Key layout
  // (rank_key.h): distance^2 bits << 32 | raw id, i.e. distance-then-id order in one integer
  // compare. The keys come straight from the leaf scans (covered subtrees included), with no id
  // list in between. Appends only (*keys is not cleared); allocates only when *keys grows. A NaN
  // or inf centre or radius, or a negative radius, appends nothing. *stats, when given, is
  // replaced by the work done (candidates: entities whose distance was computed).
  void QueryCircleKeys(Vec2 center, float radius, const QueryFilter& filter,
                       std::vector<RankKey>* keys, QueryStats* stats = nullptr) const;
  // Every unordered pair of entities whose hitboxes touch (centre distance <= r1 + r2, with
  // the kContactEpsilon tolerance), as
  // (smaller raw id, larger raw id), sorted. Returns the work done.
  QueryStats QueryPairs(std::vector<std::pair<EntityId, EntityId>>* out) const;

  // ---- introspection ----
  [[nodiscard]] TreeStats Stats() const noexcept;
  void ExportNodes(std::vector<NodeInfo>* out) const;
  // Empty string when every invariant holds, else a description of the first violation.
  [[nodiscard]] std::string CheckInvariants() const;

 private:
  struct Node {
    Aabb rect;
    Vec2 mid;                 // split point; the children's shared corner (exact same floats)
    float max_radius = 0.0f;  // >= every hitbox radius in the subtree
    uint32_t count = 0;       // entities in the subtree
    int32_t parent = -1;
    int32_t children = -1;  // first of 4 consecutive children; -1 for a leaf
    int32_t slab = -1;      // leaf only: first slab of its contents, -1 when empty
    uint32_t depth = 0;
    uint32_t cell_x = 0;  // the node's cell coordinates among the 2^depth x 2^depth cells
    uint32_t cell_y = 0;
  };
  // Where an entity lives. raw_id == kFree marks an unused table entry.
  struct Loc {
    uint32_t raw_id;
    int32_t node;
    int32_t slab;
    uint32_t offset;
  };
  static constexpr uint32_t kFree = 0xFFFFFFFFu;

  template <typename Shape>
  void ScanLeaf(const Shape& shape, const Node& leaf, const QueryFilter& filter,
                QueryResults* out) const;
  template <typename Shape>
  void Collect(const Shape& shape, const QueryFilter& filter, QueryResults* out) const;
  void Order(Vec2 origin, QueryOrder order, QueryResults* out) const;
  void AppendSubtree(int32_t node, const QueryFilter& filter, QueryResults* out) const;
  // QueryCircleKeys' leaf scan: writes the keys of the leaf's entities in range and passing to
  // out, returns how many. REQUIRES: room for leaf.count + 3 at out.
  size_t LeafKeys(const Node& leaf, Vec2 center, float radius_sq, const QueryFilter& filter,
                  RankKey* out) const;
  void PrefetchSlab(int32_t slab) const noexcept;
  [[nodiscard]] int32_t StartNode(const Aabb& bounds) const noexcept;

  [[nodiscard]] Status CheckPosition(Vec2 p) const noexcept;
  [[nodiscard]] const Loc* Find(EntityId id) const noexcept;
  [[nodiscard]] bool CellContains(const Node& n, Vec2 p) const noexcept;
  [[nodiscard]] int32_t ChildFor(const Node& n, Vec2 p) const noexcept;
  [[nodiscard]] int32_t LocateLeaf(int32_t from, Vec2 p) const noexcept;

  // Puts an entity under `from` (descending, splitting as needed); counts are incremented on
  // every node below `from`, and on `from` itself when count_from.
  void InsertBelow(int32_t from, bool count_from, uint32_t raw_id, Vec2 p, float r, uint32_t mask);
  void AppendToLeaf(int32_t leaf, uint32_t raw_id, Vec2 p, float r, uint32_t mask);
  // Removes the entry at loc from its leaf (swap with the leaf's last entry).
  void RemoveFromLeaf(const Loc& loc);
  // Moves a leaf's entries to scratch_ and releases its slabs.
  void TakeLeafEntries(int32_t leaf);
  void Split(int32_t leaf);
  void Collapse(int32_t node);
  // After entities left the path leaf..stop (exclusive): refresh max radii and collapse the
  // highest node that fell to the merge threshold.
  void Shrink(int32_t leaf, int32_t stop, float removed_radius);
  void RecomputeMaxRadius(int32_t node);
  // Points every directory cell under `node` at it (node depth <= dir_depth_).
  void PointDirectoryAt(int32_t node);

  // The one depth-first walk over the nodes: calls visit(index, node) on `root` and, below
  // every internal node it returns true for, on its children (pushed in child order, so taken
  // last child first). Every walk of the tree's nodes but QueryCircleKeys' (which carries a bit
  // per entry) and the breadth-first Collect goes through it.
  template <typename Visit>
  void VisitNodes(int32_t root, Visit&& visit) const {
    int32_t stack[kWalkStack];
    int top = 0;
    stack[top++] = root;
    while (top > 0) {
      const int32_t index = stack[--top];
      const Node& n = nodes_[index];
      if (!visit(index, n) || n.children < 0) continue;
      for (int32_t k = 0; k < 4; ++k) stack[top++] = n.children + k;
    }
  }

  int32_t AllocChildren();
  void FreeChildren(int32_t first);
  int32_t AllocSlab();
  [[nodiscard]] int32_t TailSlab(int32_t leaf) const noexcept;
  // The one walk over a leaf's contents: calls fn(slab, count) for each slab of `leaf` in
  // chain order, `count` being the slots in use (kSlabSize for all but the last).
  template <typename Fn>
  void ForEachSlab(const Node& leaf, Fn&& fn) const {
    uint32_t left = leaf.count;
    for (int32_t s = leaf.slab; s >= 0; s = slabs_[s].next) {
      const uint32_t count = left < kSlabSize ? left : kSlabSize;
      left -= count;
      fn(slabs_[s], count);
    }
  }

  // The deepest a config may ask for (max_depth), and so the most entries a depth-first walk's
  // stack holds: three siblings waiting per level above, four children at the bottom.
  static constexpr uint32_t kMaxDepth = 20;
  static constexpr int kWalkStack = 4 * (static_cast<int>(kMaxDepth) + 1);

  QuadtreeConfig config_;
  uint32_t merge_threshold_;
  size_t size_ = 0;
  // Entities whose mask is 0. They pass no filter, not even the default one, so the queries'
  // shortcuts for the default filter (no per-entity mask test) are off while any exist.
  size_t zero_masks_ = 0;

  std::vector<Node> nodes_;
  std::vector<int32_t> free_blocks_;
  // Leaf contents: a chain of slabs per leaf (one when the leaf holds at most kSlabSize),
  // structure of arrays inside, so a leaf scan reads contiguous blocks.
  static constexpr uint32_t kSlabSize = 32;  // == bits in the uint32_t hit mask of a scan
  struct Slab {
    float x[kSlabSize];
    float y[kSlabSize];
    float r[kSlabSize];
    uint32_t id[kSlabSize];
    uint32_t mask[kSlabSize];
    int32_t next = -1;  // next slab of the same leaf, -1 for none
  };
  std::vector<Slab> slabs_;
  std::vector<int32_t> free_slabs_;
  std::vector<Loc> locs_;  // indexed by EntityIndex(id)
  // Directory: for each cell of a 2^dir_depth_ square grid over the world, the deepest node of
  // depth <= dir_depth_ that contains it. A query finds its start node with one lookup instead
  // of descending level by level through nodes that are rarely in cache. Maintained on every
  // split and collapse at depth < dir_depth_.
  uint32_t dir_depth_ = 0;
  Vec2 dir_scale_;  // cells per world unit, per axis
  std::vector<int32_t> dir_;
  // Scratch reused by Split/Collapse.
  struct Entry {
    uint32_t raw_id;
    Vec2 p;
    float r;
    uint32_t mask;
  };
  std::vector<Entry> scratch_;
};

}  // namespace zs::spatial
