// Cells: one zone split over several processes (issue 22, docs/seamless.md).
//
// A zone's `cells:` block tiles its bounds with columns x rows equal rectangles (powers of two,
// so every cell edge is an edge of the zone quadtree's nodes at depth log2(max(columns, rows))),
// each owned by one node. The node owning a cell simulates the *real* entities whose centre is
// in it; every tick it tells each neighbouring cell (the eight around it) the state of its real
// entities within `ghost_distance` of that cell (a GhostBatch). The receiver keeps them as
// *ghosts*: in its quadtree, seen by its players, never simulated. A monster whose centre
// crosses into a neighbour's cell (past migration_margin) *migrates*: the neighbour makes its
// ghost real with the monster's whole state, and the sender keeps it as a ghost.
//
// Entity ids stay unique across the whole zone: cell k's node hands out only indices congruent
// to k modulo the cell count (IdsOfCell), so a ghost keeps the id its owner gave it.
//
// Pure: plain data and arithmetic.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/entity_id.h"
#include "core/shapes.h"
#include "core/vec2.h"

namespace zs::zone {

inline constexpr uint32_t kMaxCellsPerAxis = 4;         // 4 x 4: at most 16 cells per zone
inline constexpr uint32_t kWholeZone = 0xFFFFFFFFu;     // a Zone that simulates all of its bounds
inline constexpr float kDefaultMigrationMargin = 2.0f;  // metres (CellLayout::migration_margin)

// One cell of a split zone: the one a world simulates (HostedCell), or another node's.
struct CellRef {
  uint32_t zone_id = 0;
  uint32_t cell = 0;
};

struct CellLayout {
  uint32_t columns = 1;  // cells along x: 1, 2 or 4
  uint32_t rows = 1;     // cells along y: 1, 2 or 4
  // The node owning each cell, by cell index (row-major from the zone's minimum corner:
  // index = row * columns + column).
  std::vector<std::string> nodes;
  float ghost_distance = 0;          // metres; validated by the loader (MinGhostDistance)
  uint32_t ghost_timeout_ticks = 0;  // a neighbour silent this long: its ghosts are dropped
  // A real monster moves to the cell its centre is in once it is farther than this past its
  // own cell's border (so one walking along the border does not bounce between nodes).
  float migration_margin = kDefaultMigrationMargin;

  [[nodiscard]] uint32_t count() const { return columns * rows; }
  [[nodiscard]] bool split() const { return count() > 1; }
};

// The rectangle of cell `cell` (< layout.count()) of a zone with `bounds`.
[[nodiscard]] inline Aabb CellBounds(const Aabb& bounds, const CellLayout& layout, uint32_t cell) {
  const uint32_t column = cell % layout.columns;
  const uint32_t row = cell / layout.columns;
  const float w = bounds.Width() / static_cast<float>(layout.columns);
  const float h = bounds.Height() / static_cast<float>(layout.rows);
  const auto edge = [](float lo, float size, uint32_t i, uint32_t n, float hi) {
    return i == n ? hi : lo + size * static_cast<float>(i);  // the last edge is exactly the bound
  };
  return {{edge(bounds.min.x, w, column, layout.columns, bounds.max.x),
           edge(bounds.min.y, h, row, layout.rows, bounds.max.y)},
          {edge(bounds.min.x, w, column + 1, layout.columns, bounds.max.x),
           edge(bounds.min.y, h, row + 1, layout.rows, bounds.max.y)}};
}

// The cell holding point `p` (clamped into the bounds first, NaN to the minimum corner; a point on
// an inner edge belongs to the cell above / to the right of it).
[[nodiscard]] inline uint32_t CellAt(const Aabb& bounds, const CellLayout& layout, Vec2 p) {
  const auto index = [](float v, float lo, float size, uint32_t n) {
    const float t = std::floor((v - lo) / size * static_cast<float>(n));
    if (!(t > 0)) return 0u;  // below the bounds, or NaN
    return static_cast<uint32_t>(std::min(t, static_cast<float>(n - 1)));
  };
  const uint32_t column = index(p.x, bounds.min.x, bounds.Width(), layout.columns);
  const uint32_t row = index(p.y, bounds.min.y, bounds.Height(), layout.rows);
  return row * layout.columns + column;
}

// True when cells `a` and `b` differ and touch (by an edge or a corner).
[[nodiscard]] inline bool Neighbours(const CellLayout& layout, uint32_t a, uint32_t b) {
  if (a == b || a >= layout.count() || b >= layout.count()) return false;
  const auto gap = [](uint32_t x, uint32_t y) { return x > y ? x - y : y - x; };
  return gap(a % layout.columns, b % layout.columns) <= 1 &&
         gap(a / layout.columns, b / layout.columns) <= 1;
}

// The entity indices a cell's node may hand out: offset + stride * j. The cell count is the
// stride, so the cells of one zone never hand out the same index.
struct IdRange {
  uint32_t offset = 0;
  uint32_t stride = 1;
  [[nodiscard]] bool Holds(EntityId id) const {
    return id != kInvalidEntity && EntityIndex(id) % stride == offset;
  }
};
[[nodiscard]] inline IdRange IdsOfCell(const CellLayout& layout, uint32_t cell) {
  return {.offset = cell, .stride = layout.count()};
}

}  // namespace zs::zone
