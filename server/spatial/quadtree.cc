// Quadtree mutation: insert, remove, move, split, collapse, and introspection.
// Queries are in quadtree_query.cc.
#include "spatial/quadtree.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace zs::spatial {

namespace {

constexpr uint32_t kMaxLeafCapacity = 4096;

Vec2 MidPoint(const Aabb& r) {
  return {r.min.x + (r.max.x - r.min.x) * 0.5f, r.min.y + (r.max.y - r.min.y) * 0.5f};
}

}  // namespace

Status Quadtree::ValidateConfig(const QuadtreeConfig& c) noexcept {
  if (!IsFinite(c.bounds.min) || !IsFinite(c.bounds.max)) {
    return {StatusCode::kInvalidArgument, "bounds must be finite"};
  }
  if (!(c.bounds.max.x > c.bounds.min.x) || !(c.bounds.max.y > c.bounds.min.y)) {
    return {StatusCode::kInvalidArgument, "bounds must have positive width and height"};
  }
  if (c.leaf_capacity < 1 || c.leaf_capacity > kMaxLeafCapacity) {
    return {StatusCode::kInvalidArgument, "leaf_capacity must be in 1..4096"};
  }
  if (c.max_depth > kMaxDepth) {
    return {StatusCode::kInvalidArgument, "max_depth must be in 0..20"};
  }
  // The finest cell must stay well above float resolution, or split points would round onto
  // cell edges and two cells could both claim a point.
  const auto scale = static_cast<float>(1u << c.max_depth);
  const float reach_x = std::max(std::abs(c.bounds.min.x), std::abs(c.bounds.max.x));
  const float reach_y = std::max(std::abs(c.bounds.min.y), std::abs(c.bounds.max.y));
  if ((c.bounds.max.x - c.bounds.min.x) / scale < reach_x * 1e-5f ||
      (c.bounds.max.y - c.bounds.min.y) / scale < reach_y * 1e-5f) {
    return {StatusCode::kInvalidArgument,
            "bounds too small for max_depth at float precision (finest cell < 1e-5 of the "
            "coordinates)"};
  }
  return Status::Ok();
}

Quadtree::Quadtree(const QuadtreeConfig& config)
    : config_(config), merge_threshold_(config.leaf_capacity / 2) {
  if (Status s = ValidateConfig(config); !s.ok()) {
    throw std::invalid_argument(std::string("quadtree config: ") + std::string(s.message()));
  }
  dir_depth_ = std::min<uint32_t>(config.max_depth, 6);  // up to 64 x 64 cells, 16 KiB
  const auto side = static_cast<float>(1u << dir_depth_);
  dir_scale_ = {side / (config.bounds.max.x - config.bounds.min.x),
                side / (config.bounds.max.y - config.bounds.min.y)};
  dir_.assign(static_cast<size_t>(1u << dir_depth_) << dir_depth_, 0);
  Clear();
}

void Quadtree::Clear() noexcept {
  nodes_.clear();
  nodes_.push_back(Node{config_.bounds, MidPoint(config_.bounds), 0.0f, 0, -1, -1, -1, 0, 0, 0});
  std::fill(dir_.begin(), dir_.end(), 0);
  free_blocks_.clear();
  slabs_.clear();
  free_slabs_.clear();
  std::fill(locs_.begin(), locs_.end(), Loc{kFree, -1, -1, 0});
  size_ = 0;
  zero_masks_ = 0;
}

// ---- lookups ----

Status Quadtree::CheckPosition(Vec2 p) const noexcept {
  if (!IsFinite(p)) return {StatusCode::kOutOfBounds, "position is not finite"};
  if (!config_.bounds.Contains(p)) return {StatusCode::kOutOfBounds, "position outside the world"};
  return Status::Ok();
}

const Quadtree::Loc* Quadtree::Find(EntityId id) const noexcept {
  const uint32_t index = EntityIndex(id);
  if (id == kInvalidEntity || index >= locs_.size()) return nullptr;
  const Loc& loc = locs_[index];
  return loc.raw_id == ToRaw(id) ? &loc : nullptr;
}

bool Quadtree::Contains(EntityId id) const noexcept { return Find(id) != nullptr; }

bool Quadtree::GetPosition(EntityId id, Vec2* center) const noexcept {
  const Loc* loc = Find(id);
  if (loc == nullptr) return false;
  const Slab& slab = slabs_[loc->slab];
  *center = {slab.x[loc->offset], slab.y[loc->offset]};
  return true;
}

bool Quadtree::CellContains(const Node& n, Vec2 p) const noexcept {
  // Half-open cells [min, max), closed at the world's max edges.
  return p.x >= n.rect.min.x && (p.x < n.rect.max.x || n.rect.max.x >= config_.bounds.max.x) &&
         p.y >= n.rect.min.y && (p.y < n.rect.max.y || n.rect.max.y >= config_.bounds.max.y);
}

int32_t Quadtree::ChildFor(const Node& n, Vec2 p) const noexcept {
  // Child order: 0 = low x low y, 1 = high x low y, 2 = low x high y, 3 = high x high y.
  // The split point is computed once, at split time, and is exactly the children's shared
  // corner, so every test uses the same float.
  return n.children + (p.x >= n.mid.x ? 1 : 0) + (p.y >= n.mid.y ? 2 : 0);
}

int32_t Quadtree::LocateLeaf(int32_t from, Vec2 p) const noexcept {
  int32_t n = from;
  while (nodes_[n].children >= 0) n = ChildFor(nodes_[n], p);
  return n;
}

// ---- storage ----

int32_t Quadtree::AllocChildren() {
  if (!free_blocks_.empty()) {
    const int32_t first = free_blocks_.back();
    free_blocks_.pop_back();
    return first;
  }
  const auto first = static_cast<int32_t>(nodes_.size());
  nodes_.resize(nodes_.size() + 4);
  return first;
}

void Quadtree::FreeChildren(int32_t first) { free_blocks_.push_back(first); }

int32_t Quadtree::AllocSlab() {
  int32_t s;
  if (!free_slabs_.empty()) {
    s = free_slabs_.back();
    free_slabs_.pop_back();
  } else {
    s = static_cast<int32_t>(slabs_.size());
    slabs_.emplace_back();
  }
  slabs_[s].next = -1;
  return s;
}

int32_t Quadtree::TailSlab(int32_t leaf) const noexcept {
  int32_t s = nodes_[leaf].slab;
  while (s >= 0 && slabs_[s].next >= 0) s = slabs_[s].next;
  return s;
}

void Quadtree::AppendToLeaf(int32_t leaf, uint32_t raw_id, Vec2 p, float r, uint32_t mask) {
  const uint32_t pos = nodes_[leaf].count;
  const uint32_t off = pos % kSlabSize;
  int32_t s;
  if (off == 0) {
    s = AllocSlab();
    if (nodes_[leaf].slab < 0) {
      nodes_[leaf].slab = s;
    } else {
      slabs_[TailSlab(leaf)].next = s;
    }
  } else {
    s = TailSlab(leaf);
  }
  Slab& slab = slabs_[s];
  slab.x[off] = p.x;
  slab.y[off] = p.y;
  slab.r[off] = r;
  slab.id[off] = raw_id;
  slab.mask[off] = mask;
  locs_[raw_id & kMaxEntityIndex] = Loc{raw_id, leaf, s, off};
  Node& n = nodes_[leaf];
  n.count = pos + 1;
  n.max_radius = std::max(n.max_radius, r);
}

void Quadtree::RemoveFromLeaf(const Loc& loc) {
  Node& n = nodes_[loc.node];
  const uint32_t last = n.count - 1;
  const uint32_t last_off = last % kSlabSize;
  const int32_t tail = TailSlab(loc.node);
  Slab& hole = slabs_[loc.slab];
  const Slab& from = slabs_[tail];
  const uint32_t removed_raw = hole.id[loc.offset];
  if (loc.slab != tail || loc.offset != last_off) {
    const uint32_t h = loc.offset;
    hole.x[h] = from.x[last_off];
    hole.y[h] = from.y[last_off];
    hole.r[h] = from.r[last_off];
    hole.id[h] = from.id[last_off];
    hole.mask[h] = from.mask[last_off];
    Loc& moved = locs_[hole.id[h] & kMaxEntityIndex];
    moved.slab = loc.slab;
    moved.offset = h;
  }
  n.count = last;
  if (last_off == 0) {  // the tail slab is now empty: unlink and recycle it
    if (n.slab == tail) {
      n.slab = -1;
    } else {
      int32_t s = n.slab;
      while (slabs_[s].next != tail) s = slabs_[s].next;
      slabs_[s].next = -1;
    }
    free_slabs_.push_back(tail);
  }
  locs_[removed_raw & kMaxEntityIndex] = Loc{kFree, -1, -1, 0};
}

void Quadtree::TakeLeafEntries(int32_t leaf) {
  uint32_t left = nodes_[leaf].count;
  for (int32_t s = nodes_[leaf].slab; s >= 0;) {
    const Slab& slab = slabs_[s];
    const uint32_t cnt = std::min(kSlabSize, left);
    for (uint32_t k = 0; k < cnt; ++k) {
      scratch_.push_back(Entry{slab.id[k], {slab.x[k], slab.y[k]}, slab.r[k], slab.mask[k]});
    }
    left -= cnt;
    free_slabs_.push_back(s);
    s = slab.next;
  }
  nodes_[leaf].slab = -1;
}

// ---- structure changes ----

void Quadtree::Split(int32_t leaf) {
  scratch_.clear();
  TakeLeafEntries(leaf);
  const int32_t first = AllocChildren();  // may reallocate nodes_
  Node& parent = nodes_[leaf];
  parent.slab = -1;
  parent.children = first;
  const Aabb r = parent.rect;
  const Vec2 mid = parent.mid;
  const Aabb rects[4] = {{r.min, mid},
                         {{mid.x, r.min.y}, {r.max.x, mid.y}},
                         {{r.min.x, mid.y}, {mid.x, r.max.y}},
                         {mid, r.max}};
  for (int32_t k = 0; k < 4; ++k) {
    nodes_[first + k] = Node{rects[k],
                             MidPoint(rects[k]),
                             0.0f,
                             0,
                             leaf,
                             -1,
                             -1,
                             parent.depth + 1,
                             2 * parent.cell_x + static_cast<uint32_t>(k & 1),
                             2 * parent.cell_y + static_cast<uint32_t>(k >> 1)};
  }
  if (nodes_[leaf].depth < dir_depth_) {
    for (int32_t k = 0; k < 4; ++k) PointDirectoryAt(first + k);
  }
  for (const Entry& e : scratch_) {
    AppendToLeaf(ChildFor(nodes_[leaf], e.p), e.raw_id, e.p, e.r, e.mask);
  }
  for (int32_t k = 0; k < 4; ++k) {
    const Node& c = nodes_[first + k];
    if (c.count > config_.leaf_capacity && c.depth < config_.max_depth) Split(first + k);
  }
}

void Quadtree::Collapse(int32_t node) {
  // Gather every entry of the subtree, release its nodes and slabs, refill `node` as a leaf.
  scratch_.clear();
  // (Safe inside the walk: freeing a block only lists it, and taking a leaf's entries changes
  // its slab, never a node's children; nothing allocates nodes until the walk is done.)
  VisitNodes(node, [&](int32_t index, const Node& nd) {
    if (nd.children < 0) {
      TakeLeafEntries(index);
    } else if (index != node) {
      FreeChildren(nd.children);
    }
    return true;
  });
  Node& n = nodes_[node];
  FreeChildren(n.children);
  n.children = -1;
  n.slab = -1;
  n.count = 0;
  n.max_radius = 0.0f;
  for (const Entry& e : scratch_) AppendToLeaf(node, e.raw_id, e.p, e.r, e.mask);
  if (nodes_[node].depth < dir_depth_) PointDirectoryAt(node);
}

void Quadtree::PointDirectoryAt(int32_t node) {
  const Node& n = nodes_[node];
  const uint32_t shift = dir_depth_ - n.depth;
  const uint32_t side = 1u << dir_depth_;
  const uint32_t x0 = n.cell_x << shift;
  const uint32_t y0 = n.cell_y << shift;
  for (uint32_t y = y0; y < y0 + (1u << shift); ++y) {
    std::fill_n(dir_.begin() + static_cast<std::ptrdiff_t>(y) * side + x0, 1u << shift, node);
  }
}

void Quadtree::RecomputeMaxRadius(int32_t node) {
  Node& n = nodes_[node];
  float m = 0.0f;
  if (n.children >= 0) {
    for (int32_t k = 0; k < 4; ++k) m = std::max(m, nodes_[n.children + k].max_radius);
  } else {
    ForEachSlab(n, [&m](const Slab& slab, uint32_t cnt) {
      for (uint32_t k = 0; k < cnt; ++k) m = std::max(m, slab.r[k]);
    });
  }
  n.max_radius = m;
}

void Quadtree::Shrink(int32_t leaf, int32_t stop, float removed_radius) {
  if (removed_radius > 0.0f && removed_radius >= nodes_[leaf].max_radius) {
    RecomputeMaxRadius(leaf);
    for (int32_t n = nodes_[leaf].parent; n != stop && n >= 0; n = nodes_[n].parent) {
      RecomputeMaxRadius(n);
    }
  }
  int32_t highest = -1;
  for (int32_t n = nodes_[leaf].parent; n != stop && n >= 0; n = nodes_[n].parent) {
    if (nodes_[n].count <= merge_threshold_) highest = n;
  }
  if (highest >= 0) Collapse(highest);
}

void Quadtree::InsertBelow(int32_t from, bool count_from, uint32_t raw_id, Vec2 p, float r,
                           uint32_t mask) {
  int32_t n = from;
  if (count_from && nodes_[n].children >= 0) {
    nodes_[n].count++;
    nodes_[n].max_radius = std::max(nodes_[n].max_radius, r);
  }
  while (nodes_[n].children >= 0) {
    n = ChildFor(nodes_[n], p);
    if (nodes_[n].children >= 0) {
      nodes_[n].count++;
      nodes_[n].max_radius = std::max(nodes_[n].max_radius, r);
    }
  }
  AppendToLeaf(n, raw_id, p, r, mask);
  if (nodes_[n].count > config_.leaf_capacity && nodes_[n].depth < config_.max_depth) Split(n);
}

// ---- public mutation ----

Status Quadtree::Insert(EntityId id, Vec2 center, float radius, uint32_t mask) noexcept {
  if (id == kInvalidEntity) return {StatusCode::kInvalidArgument, "invalid entity id"};
  if (!std::isfinite(radius) || radius < 0.0f) {
    return {StatusCode::kInvalidArgument, "radius must be finite and >= 0"};
  }
  if (Status s = CheckPosition(center); !s.ok()) return s;
  const uint32_t index = EntityIndex(id);
  if (index < locs_.size() && locs_[index].raw_id != kFree) {
    return {StatusCode::kAlreadyExists, "entity index already stored"};
  }
  if (index >= locs_.size()) locs_.resize(static_cast<size_t>(index) + 1, Loc{kFree, -1, -1, 0});
  InsertBelow(0, true, ToRaw(id), center, radius, mask);
  ++size_;
  zero_masks_ += mask == 0 ? 1 : 0;
  return Status::Ok();
}

Status Quadtree::Remove(EntityId id) noexcept {
  const Loc* found = Find(id);
  if (found == nullptr) return {StatusCode::kNotFound, "unknown or stale entity id"};
  const Loc loc = *found;
  const float r = slabs_[loc.slab].r[loc.offset];
  zero_masks_ -= slabs_[loc.slab].mask[loc.offset] == 0 ? 1 : 0;
  RemoveFromLeaf(loc);
  for (int32_t n = nodes_[loc.node].parent; n >= 0; n = nodes_[n].parent) nodes_[n].count--;
  --size_;
  Shrink(loc.node, -1, r);
  return Status::Ok();
}

Status Quadtree::SetMask(EntityId id, uint32_t mask) noexcept {
  const Loc* loc = Find(id);
  if (loc == nullptr) return {StatusCode::kNotFound, "unknown or stale entity id"};
  uint32_t& stored = slabs_[loc->slab].mask[loc->offset];
  zero_masks_ = zero_masks_ - (stored == 0 ? 1 : 0) + (mask == 0 ? 1 : 0);
  stored = mask;
  return Status::Ok();
}

Status Quadtree::Move(EntityId id, Vec2 center) noexcept {
  if (Status s = CheckPosition(center); !s.ok()) return s;
  const Loc* found = Find(id);
  if (found == nullptr) return {StatusCode::kNotFound, "unknown or stale entity id"};
  const Loc loc = *found;
  Slab& slab = slabs_[loc.slab];
  if (CellContains(nodes_[loc.node], center)) {  // the common case: O(1)
    slab.x[loc.offset] = center.x;
    slab.y[loc.offset] = center.y;
    return Status::Ok();
  }
  const float r = slab.r[loc.offset];
  const uint32_t mask = slab.mask[loc.offset];
  RemoveFromLeaf(loc);
  // Climb to the lowest ancestor that contains the new centre; the nodes passed lose one.
  int32_t a = nodes_[loc.node].parent;
  while (!CellContains(nodes_[a], center)) {
    nodes_[a].count--;
    a = nodes_[a].parent;
  }
  InsertBelow(a, false, ToRaw(id), center, r, mask);
  Shrink(loc.node, a, r);
  return Status::Ok();
}

// ---- introspection ----

TreeStats Quadtree::Stats() const noexcept {
  TreeStats t;
  t.entities = size_;
  VisitNodes(0, [&t](int32_t, const Node& n) {
    ++t.nodes;
    t.depth = std::max(t.depth, n.depth);
    t.leaves += n.children < 0 ? 1 : 0;
    return true;
  });
  t.bytes_used = nodes_.capacity() * sizeof(Node) + free_blocks_.capacity() * sizeof(int32_t) +
                 slabs_.capacity() * sizeof(Slab) + free_slabs_.capacity() * sizeof(int32_t) +
                 locs_.capacity() * sizeof(Loc) + scratch_.capacity() * sizeof(Entry);
  return t;
}

void Quadtree::ExportNodes(std::vector<NodeInfo>* out) const {
  out->clear();
  VisitNodes(0, [out](int32_t, const Node& n) {
    out->push_back(NodeInfo{n.rect, n.depth, n.count, n.children < 0});
    return true;
  });
}

}  // namespace zs::spatial
