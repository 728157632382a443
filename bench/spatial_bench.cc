// Spatial index benchmark: our quadtree (ids, and the rank keys the interest policy asks for) and
// the linear quadtree rebuilt every tick, against brute force, a uniform grid rebuilt every tick
// with a counting sort (at several cell sizes: the tables pick the best per workload and the
// best single size for all), Boost's R-tree (incremental and bulk-loaded) and the tutorial
// quadtree, on one shared workload (uniform, clustered, or a dense crowd in a spread world).
//
//   build/release/bench/spatial_bench                       # everything, then the tables
//   build/release/bench/spatial_bench --benchmark_filter='n:1000/'
//
// Each benchmark iteration is one tick: move every point (not timed), update the index, then
// one circle query per point. Counters: update and query ns per entity per tick, candidates
// examined per true hit. After the runs a markdown table per workload compares every index to
// ours, picking the best grid cell size per workload.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench/bench_index.h"
#include "bench/table_reporter.h"
#include "spatial/quadtree.h"

namespace zs::bench {
namespace {

constexpr float kWorld = 10000.0f;
constexpr uint32_t kSeed = 20261121;
// Makes an index for queries of the given radius (which only the linear quadtree is told).
using Factory = std::function<std::unique_ptr<BenchIndex>(float radius)>;

// Exact hit count for one query, computed the plainest way, to check every index before timing.
size_t ReferenceHits(const Workload& w, Vec2 c, float r) {
  const float reach = r + kContactEpsilon;
  size_t hits = 0;
  for (const Vec2& p : w.positions()) hits += DistanceSq(c, p) <= reach * reach ? 1 : 0;
  return hits;
}

void RunTicks(benchmark::State& state, const Factory& make, Distribution dist, uint32_t n,
              float radius) {
  Workload w(dist, n, kWorld, kSeed);
  auto index = make(radius);
  index->Build(w);
  w.Step();
  index->Update(w);
  uint64_t unused = 0;
  for (uint32_t i = 0; i < std::min<uint32_t>(n, 64); ++i) {
    const Vec2 c = w.positions()[i * (n / 64 + 1) % n];
    if (index->Query(c, radius, &unused) != ReferenceHits(w, c, radius)) {
      state.SkipWithError("wrong query result");
      return;
    }
  }
  using Clock = std::chrono::steady_clock;
  double update_ns = 0, query_ns = 0;
  uint64_t candidates = 0, hits = 0, ticks = 0;
  for (auto _ : state) {
    w.Step();
    const auto t0 = Clock::now();
    index->Update(w);
    const auto t1 = Clock::now();
    for (const Vec2& p : w.positions()) hits += index->Query(p, radius, &candidates);
    const auto t2 = Clock::now();
    update_ns += std::chrono::duration<double, std::nano>(t1 - t0).count();
    query_ns += std::chrono::duration<double, std::nano>(t2 - t1).count();
    state.SetIterationTime(std::chrono::duration<double>(t2 - t0).count());
    ++ticks;
  }
  const double per_entity = static_cast<double>(ticks) * n;
  state.counters["upd_ns"] = update_ns / per_entity;
  state.counters["qry_ns"] = query_ns / per_entity;
  state.counters["ns_per_ent"] = (update_ns + query_ns) / per_entity;
  state.counters["cand_per_hit"] =
      hits ? static_cast<double>(candidates) / static_cast<double>(hits) : 0.0;
  state.counters["hits_per_q"] = static_cast<double>(hits) / per_entity;
}

// The classic quadtree demo: 300 moving boxes in 120 x 80, every colliding pair each frame.
void ClassicDemo(benchmark::State& state, bool brute) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> ux(0, 120), uy(0, 80), ur(0.5f, 1.5f), uv(-0.5f, 0.5f);
  struct Box {
    Vec2 p, v;
    float r;
  };
  std::vector<Box> boxes(300);
  for (Box& b : boxes) b = {{ux(rng), uy(rng)}, {uv(rng), uv(rng)}, ur(rng)};
  spatial::QuadtreeConfig c;
  c.bounds = {{0, 0}, {120, 80}};
  spatial::Quadtree tree(c);
  for (uint32_t i = 0; i < boxes.size(); ++i) {
    (void)tree.Insert(MakeEntityId(i, 0), boxes[i].p, boxes[i].r);
  }
  std::vector<std::pair<EntityId, EntityId>> pairs;
  uint64_t checks = 0, found = 0, frames = 0;
  for (auto _ : state) {
    for (uint32_t i = 0; i < boxes.size(); ++i) {
      Box& b = boxes[i];
      b.p = b.p + b.v;
      if (b.p.x < 0 || b.p.x > 120) b.v.x = -b.v.x, b.p.x = std::clamp(b.p.x, 0.0f, 120.0f);
      if (b.p.y < 0 || b.p.y > 80) b.v.y = -b.v.y, b.p.y = std::clamp(b.p.y, 0.0f, 80.0f);
      if (!brute) (void)tree.Move(MakeEntityId(i, 0), b.p);
    }
    if (brute) {  // the tutorial's count: every object against every object
      for (const Box& a : boxes) {
        for (const Box& b : boxes) {
          ++checks;
          found += (&a < &b && CircleHitsCircle({a.p, a.r}, b.p, b.r)) ? 1 : 0;
        }
      }
    } else {
      const spatial::QueryStats s = tree.QueryPairs(&pairs);
      checks += s.candidates;
      found += s.hits;
    }
    ++frames;
  }
  state.counters["checks_per_frame"] = static_cast<double>(checks) / static_cast<double>(frames);
  state.counters["pairs_per_frame"] = static_cast<double>(found) / static_cast<double>(frames);
}

void RegisterAll() {
  struct Named {
    std::string name;
    Factory make;
    uint32_t max_n;
  };
  const auto blind = [](std::unique_ptr<BenchIndex> (*make)()) {
    return [make](float) { return make(); };
  };
  std::vector<Named> indexes = {
      {"ours", blind(MakeOurs), 1u << 31},
      {"ours_keys", blind(MakeOursKeys), 1u << 31},
      {"linear", MakeLinear, 1u << 31},
      {"linear_blind", [](float) { return MakeLinear(0.0f); }, 1u << 31},
      {"linear_keys", MakeLinearKeys, 1u << 31},
      {"brute", blind(MakeBruteForce), 10000},
      {"rtree_incr", blind(MakeRtreeIncremental), 1u << 31},
      {"rtree_bulk", blind(MakeRtreeBulk), 1u << 31},
      {"naive_qt", blind(MakeNaiveQuadtree), 1u << 31},
  };
  for (float cell : {10.0f, 25.0f, 50.0f, 100.0f, 200.0f, 400.0f}) {
    indexes.push_back({"grid_c" + std::to_string(static_cast<int>(cell)),
                       [cell](float) { return MakeGrid(cell); }, 1u << 31});
  }
  for (Distribution dist :
       {Distribution::kUniform, Distribution::kClustered, Distribution::kCrowd}) {
    const char* dist_name = dist == Distribution::kUniform     ? "uniform"
                            : dist == Distribution::kClustered ? "clustered"
                                                               : "crowd";
    for (uint32_t n : {1000u, 10000u, 100000u}) {
      if (dist == Distribution::kCrowd && n <= kCrowdSize) continue;
      for (float r : {50.0f, 300.0f}) {
        for (const Named& ix : indexes) {
          if (n > ix.max_n) continue;
          const std::string name = std::string("tick/") + dist_name + "/n:" + std::to_string(n) +
                                   "/r:" + std::to_string(static_cast<int>(r)) + "/" + ix.name;
          benchmark::RegisterBenchmark(
              name.c_str(), [=](benchmark::State& s) { RunTicks(s, ix.make, dist, n, r); })
              ->UseManualTime()
              ->Unit(benchmark::kMillisecond)
              ->MinTime(0.3);
        }
      }
    }
  }
  benchmark::RegisterBenchmark("classic/300_boxes/brute", ClassicDemo, true)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("classic/300_boxes/ours", ClassicDemo, false)
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace
}  // namespace zs::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  zs::bench::RegisterAll();
  zs::bench::TableReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintSpatialTables(stdout);
  benchmark::Shutdown();
  return reporter.had_errors() ? 1 : 0;
}
