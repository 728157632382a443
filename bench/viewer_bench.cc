// What a connected zone viewer costs the tick (issue 11: <= 2% at 5,000 entities).
//
//   build/release/bench/viewer_bench
//
// A World with one 4096 x 4096 zone of 1,000 players and 4,000 monsters (half of each crowded
// into a 512 x 512 square, the rest spread out), ticked at 20 Hz semantics on a 2-thread
// WorkerPool as zone_server runs it. Each iteration is one tick; with `viewer:1` it also does
// what ViewerHub::AfterTick does on the tick thread for one viewer watching that zone with a
// player selected: every tick the swings (CollectSwings), every second tick (10 Hz) the snapshot
// (CaptureZone: entities and quadtree nodes) and the player's interest set (CaptureSelection).
// Counters: tick_ms (the world's tick), viewer_ms (the viewer's work, averaged per tick),
// share_pct = viewer_ms / tick_ms, and encode_ms: EncodeViewerFrame, which runs on an admin I/O
// thread, not the tick's (per frame), with frame_kb its size.
#include <benchmark/benchmark.h>

#include <chrono>
#include <vector>

#include "admin/viewer_frame.h"
#include "core/rng.h"
#include "host/worker_pool.h"
#include "zone/test_world.h"
#include "zone/world.h"

namespace zs::bench {
namespace {

constexpr uint32_t kPlayers = 1000;
constexpr uint64_t kSnapshotEveryTicks = 2;  // 10 Hz at 20 Hz
// 4 km square, 4,000 wolves, half of them in the 512 m town square.
const zone::testing::Crowd kCrowd{.monsters = 4000, .side = 4096, .square_side = 512};

class ViewerWorld {
 public:
  ViewerWorld() : world_(zone::testing::CrowdWorld(kCrowd)), rng_(11) {
    const Aabb square = kCrowd.square();
    const Aabb all = kCrowd.all();
    for (uint32_t i = 0; i < kPlayers; ++i) {
      const Aabb& a = i % 2 == 0 ? square : all;
      zone::PlayerSnapshot at{
          .zone = 1,
          .position = {rng_.Range(a.min.x, a.max.x), rng_.Range(a.min.y, a.max.y)},
          .hp = 100};
      EntityId id = kInvalidEntity;
      (void)world_.RestorePlayer(at, &id, "p" + std::to_string(i));
      players_.push_back(id);
    }
  }
  // One tick: ~1 in 20 players turns, ~1 in 10 swings (as zone_bench).
  void Tick(TaskRunner* runner) {
    moves_.clear();
    skills_.clear();
    for (const EntityId p : players_) {
      if (rng_.Below(20) == 0) moves_.push_back({p, seq_, FromAngle(rng_.Range(-kPi, kPi))});
      if (rng_.Below(10) == 0) {
        skills_.push_back({p, seq_, 1 + rng_.Below(2), rng_.Range(-kPi, kPi), {}});
      }
    }
    ++seq_;
    world_.Tick(moves_, skills_, 0, runner);
  }
  const zone::World& world() const { return world_; }
  EntityId watched() const { return players_.front(); }  // in the crowded square

 private:
  zone::World world_;
  Rng rng_;
  std::vector<EntityId> players_;
  std::vector<zone::MoveInput> moves_;
  std::vector<zone::SkillInput> skills_;
  uint32_t seq_ = 1;
};

double Seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

void BM_TickWithViewer(benchmark::State& state) {
  const bool viewer = state.range(0) != 0;
  host::WorkerPool pool(2);
  ViewerWorld w;
  for (int i = 0; i < 40; ++i) w.Tick(&pool);  // warm up: everyone has met their neighbours
  admin::ViewerSnapshot snap;
  double tick_s = 0, viewer_s = 0, encode_s = 0, frame_bytes = 0, frames = 0;
  uint64_t ticks = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    w.Tick(&pool);
    const auto t1 = std::chrono::steady_clock::now();
    if (viewer) {
      admin::CollectSwings(w.world(), 0, 4096, &snap.swings, &snap.hits);
      if (++ticks % kSnapshotEveryTicks == 0) {
        admin::CaptureZone(w.world(), 0, &snap);
        snap.selections.resize(1);
        admin::CaptureSelection(w.world(), 0, ToRaw(w.watched()), &snap.selections[0]);
        const auto t2 = std::chrono::steady_clock::now();
        const std::string frame = admin::EncodeViewerFrame(snap);  // the I/O thread's part
        encode_s += Seconds(t2, std::chrono::steady_clock::now());
        frame_bytes += static_cast<double>(frame.size());
        ++frames;
        benchmark::DoNotOptimize(frame.data());
        viewer_s += Seconds(t1, t2);
        snap.swings.clear();
        snap.hits.clear();
      } else {
        viewer_s += Seconds(t1, std::chrono::steady_clock::now());
      }
    }
    tick_s += Seconds(t0, t1);
    state.SetIterationTime(Seconds(t0, std::chrono::steady_clock::now()));
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["entities"] = static_cast<double>(w.world().output(0).states.size());
  state.counters["tick_ms"] = 1000 * tick_s / n;
  state.counters["viewer_ms"] = 1000 * viewer_s / n;
  state.counters["share_pct"] = 100 * viewer_s / tick_s;
  if (frames > 0) {
    state.counters["encode_ms"] = 1000 * encode_s / frames;
    state.counters["frame_kb"] = frame_bytes / frames / 1024;
  }
}
BENCHMARK(BM_TickWithViewer)
    ->ArgName("viewer")
    ->Arg(0)
    ->Arg(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);

}  // namespace
}  // namespace zs::bench

BENCHMARK_MAIN();
