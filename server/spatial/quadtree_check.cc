// Quadtree::CheckInvariants: the full structural check the randomized tests run after every
// operation. O(n); never called on the hot path.
#include <sstream>

#include "spatial/quadtree.h"

namespace zs::spatial {

std::string Quadtree::CheckInvariants() const {
  std::ostringstream err;
  size_t seen = 0;
  size_t zero_masks = 0;
  std::vector<int32_t> stack{0};
  while (!stack.empty() && err.tellp() == 0) {
    const int32_t index = stack.back();
    stack.pop_back();
    const Node& n = nodes_[index];
    if (n.depth > config_.max_depth) err << "node " << index << " deeper than max_depth";
    if (n.depth <= dir_depth_ && (n.children < 0 || n.depth == dir_depth_)) {
      // The deepest node of depth <= dir_depth_ over these cells: the directory must name it.
      const uint32_t shift = dir_depth_ - n.depth;
      for (uint32_t y = n.cell_y << shift; y < (n.cell_y + 1) << shift; ++y) {
        for (uint32_t x = n.cell_x << shift; x < (n.cell_x + 1) << shift; ++x) {
          if (dir_[(static_cast<size_t>(y) << dir_depth_) + x] != index) {
            err << "directory cell (" << x << "," << y << ") does not name node " << index;
          }
        }
      }
    }
    if (n.children >= 0) {
      uint32_t sum = 0;
      for (int32_t k = 0; k < 4; ++k) {
        const Node& c = nodes_[n.children + k];
        if (c.parent != index || c.depth != n.depth + 1) {
          err << "child " << n.children + k << " of " << index << " has wrong parent/depth";
        }
        if (c.max_radius > n.max_radius) err << "node " << index << " max_radius below a child's";
        sum += c.count;
        stack.push_back(n.children + k);
      }
      if (sum != n.count) err << "node " << index << " count " << n.count << " != " << sum;
      if (n.count <= merge_threshold_) {
        err << "internal node " << index << " holds " << n.count << " (should have collapsed)";
      }
      if (n.slab != -1) err << "internal node " << index << " owns a slab";
      continue;
    }
    if (n.count > config_.leaf_capacity && n.depth < config_.max_depth) {
      err << "leaf " << index << " over capacity (" << n.count << ") above max depth";
    }
    uint32_t pos = 0;
    int32_t s = n.slab;
    for (; s >= 0 && pos < n.count; s = slabs_[s].next) {
      const Slab& slab = slabs_[s];
      for (uint32_t off = 0; off < kSlabSize && pos < n.count; ++off, ++pos) {
        const uint32_t raw = slab.id[off];
        const Loc& loc = locs_[raw & kMaxEntityIndex];
        if (loc.raw_id != raw || loc.node != index || loc.slab != s || loc.offset != off) {
          err << "id table does not point at entity " << raw << " in leaf " << index;
        }
        const Vec2 p{slab.x[off], slab.y[off]};
        if (LocateLeaf(0, p) != index) err << "entity " << raw << " is in the wrong leaf";
        if (slab.r[off] > n.max_radius) err << "entity " << raw << " radius above leaf max_radius";
        zero_masks += slab.mask[off] == 0 ? 1 : 0;
        ++seen;
      }
    }
    if (pos != n.count) err << "leaf " << index << " has fewer slots than its count";
    if (s >= 0) err << "leaf " << index << " has a spare slab";
  }
  if (err.tellp() == 0) {
    if (seen != size_) err << "tree holds " << seen << " entities, size() says " << size_;
    size_t live = 0;
    for (const Loc& loc : locs_) live += loc.raw_id != kFree ? 1 : 0;
    if (live != size_) err << "id table has " << live << " live entries, size() says " << size_;
    if (nodes_[0].count != size_) err << "root count " << nodes_[0].count << " != " << size_;
    if (zero_masks != zero_masks_) {
      err << zero_masks << " entities have mask 0, zero_masks_ says " << zero_masks_;
    }
  }
  return err.str();
}

}  // namespace zs::spatial
