// The benchmark's view of a spatial index: rebuild or update from the workload's positions, then
// answer "which points are within r of c" (exact, points are entities 0..N-1 with radius 0).
// Each implementation keeps its own result buffer; Query returns the number of hits and adds
// the number of candidates it examined.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "bench/workload.h"

namespace zs::bench {

class BenchIndex {
 public:
  virtual ~BenchIndex() = default;
  virtual void Build(const Workload& w) = 0;   // once, before the first tick
  virtual void Update(const Workload& w) = 0;  // after every Workload::Step
  virtual size_t Query(Vec2 center, float radius, uint64_t* candidates) = 0;
};

std::unique_ptr<BenchIndex> MakeOurs();      // the zone's Quadtree: incremental moves
std::unique_ptr<BenchIndex> MakeOursKeys();  // ... its QueryCircleKeys (the interest path)
// LinearQuadtree, rebuilt every tick; told the radius the queries use (0: not told).
std::unique_ptr<BenchIndex> MakeLinear(float query_radius);
std::unique_ptr<BenchIndex> MakeLinearKeys(float query_radius);
std::unique_ptr<BenchIndex> MakeBruteForce();
std::unique_ptr<BenchIndex> MakeGrid(float cell_size);
std::unique_ptr<BenchIndex> MakeNaiveQuadtree();
std::unique_ptr<BenchIndex> MakeRtreeIncremental();
std::unique_ptr<BenchIndex> MakeRtreeBulk();

}  // namespace zs::bench
