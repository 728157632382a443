// Zone tick benchmark: the whole tick (inputs, monster AI, movement, combat, interest with the
// default policy, output tables) in one 4096 x 4096 zone with view radius 100, half of everyone
// crowded into a 512 x 512 town square in the middle, the rest spread over the zone.
//
//   build/release/bench/zone_bench
//
// Each iteration is one tick. BM_ZoneTick times Zone::Tick with its views built on 1, 2 or 4
// worker threads (host::WorkerPool; on a 2-core machine 4 threads only shows the overhead);
// BM_ZoneTickAndEncode adds wire::TickEncoder (every player's frame). Players pick a new
// direction now and then and swing when they feel like it; monsters wander, aggro, chase and
// bite as configured.
#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <vector>

#include "core/rng.h"
#include "host/worker_pool.h"
#include "wire/encoder.h"
#include "zone/test_world.h"
#include "zone/zone.h"

namespace zs::bench {
namespace {

class ZoneTick {
 public:
  // `square`: side of the town square where half of everyone crowds (all players when
  // `all_in_square`). `rank_floor`: the interest policy's (negative: its default).
  ZoneTick(uint32_t players, uint32_t monsters, float square_side = 512, bool all_in_square = false,
           float rank_floor = -1)
      : world_(zone::testing::CrowdWorld({.monsters = monsters, .square_side = square_side})),
        rng_(11) {
    if (rank_floor >= 0) world_.zones[0].interest.rank_floor = rank_floor;
    zone_ = std::make_unique<zone::Zone>(world_, world_.zones[0], 99,
                                         [this] { return MakeEntityId(next_id_++, 0); });
    const Aabb square = zone::testing::Crowd{.square_side = square_side}.square();
    const Aabb& all = world_.zones[0].bounds;
    for (uint32_t i = 0; i < players; ++i) {
      const Aabb& area = i % 2 == 0 || all_in_square ? square : all;
      const EntityId id = MakeEntityId(next_id_++, 0);
      (void)zone_->AddPlayer(
          id, {rng_.Range(area.min.x, area.max.x), rng_.Range(area.min.y, area.max.y)});
      players_.push_back(id);
    }
  }

  // Inputs for one tick: ~1 in 20 players turns, ~1 in 10 swings.
  void MakeInputs() {
    inputs_.clear();
    for (EntityId p : players_) {
      if (rng_.Below(20) == 0) {
        inputs_.emplace_back(zone::MoveInput{p, seq_, FromAngle(rng_.Range(-kPi, kPi))});
      }
      if (rng_.Below(10) == 0) {
        inputs_.emplace_back(
            zone::SkillInput{p, seq_, 1 + rng_.Below(2), rng_.Range(-kPi, kPi), {}});
      }
    }
    ++seq_;
  }

  void Tick(TaskRunner* runner, uint32_t level = 0) {
    zone_->Tick(++tick_, inputs_, &out_, level, runner);
  }
  const zone::ZoneTickOutput& out() const { return out_; }

 private:
  zone::WorldConfig world_;
  Rng rng_;
  uint32_t next_id_ = 0;
  std::unique_ptr<zone::Zone> zone_;
  std::vector<EntityId> players_;
  std::vector<zone::PlayerInput> inputs_;
  zone::ZoneTickOutput out_;
  uint32_t seq_ = 1;
  uint64_t tick_ = 0;
};

void Run(benchmark::State& state, bool encode) {
  const auto players = static_cast<uint32_t>(state.range(0));
  const auto monsters = static_cast<uint32_t>(state.range(1));
  host::WorkerPool pool(static_cast<size_t>(state.range(2)));
  ZoneTick z(players, monsters);
  wire::TickEncoder encoder;
  for (int i = 0; i < 40; ++i) {  // warm up: everyone has met their neighbours
    z.MakeInputs();
    z.Tick(&pool);
  }
  double known = 0, near = 0, entered = 0, updated = 0, moved = 0, turned = 0, left = 0, events = 0;
  double frame_bytes = 0;
  uint64_t ticks = 0;
  for (auto _ : state) {
    z.MakeInputs();
    const auto t0 = std::chrono::steady_clock::now();
    z.Tick(&pool);
    if (encode) encoder.Encode(z.out(), {}, &pool);
    const auto t1 = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
    const zone::ZoneTickOutput& o = z.out();
    for (size_t i = 0; i < o.views.size(); ++i) {
      const zone::PlayerView& v = o.views[i];
      known += v.known_count;
      near += v.near_count;
      entered += static_cast<double>(v.entered.size());
      updated += static_cast<double>(v.updated.size());
      moved += static_cast<double>(v.moved.size());
      turned += static_cast<double>(v.turned.size());
      left += static_cast<double>(v.left.size());
      if (encode) frame_bytes += static_cast<double>(encoder.Frame(i).size());
    }
    events += static_cast<double>(o.events.size());
    ++ticks;
  }
  const auto per_player = [&](double v) { return v / static_cast<double>(ticks) / players; };
  state.counters["entities"] = players + monsters;
  state.counters["known"] = per_player(known);
  state.counters["near"] = per_player(near);
  state.counters["updated"] = per_player(updated);
  state.counters["moved"] = per_player(moved);
  state.counters["turned"] = per_player(turned);
  state.counters["entered"] = per_player(entered);
  state.counters["left"] = per_player(left);
  state.counters["events_per_tick"] = events / static_cast<double>(ticks);
  if (encode) state.counters["frame_bytes"] = per_player(frame_bytes);
}

void BM_ZoneTick(benchmark::State& state) { Run(state, false); }
void BM_ZoneTickAndEncode(benchmark::State& state) { Run(state, true); }

void Sizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"players", "monsters", "threads"});
  for (const auto& [players, monsters] : {std::pair{1000, 5000}, {2000, 10000}, {5000, 20000}}) {
    for (const int threads : {1, 2, 4}) b->Args({players, monsters, threads});
  }
  b->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);
}

BENCHMARK(BM_ZoneTick)->Apply(Sizes);

// The load test's `crowd`: every player inside one 20 x 20 m square (everyone sees everyone), no
// monsters, at overload level 0 (full budgets) and 8 (the floor), with a rank floor of `floor`
// metres (0: exact ranks, the default). One thread.
void BM_DenseCrowd(benchmark::State& state) {
  const auto players = static_cast<uint32_t>(state.range(0));
  const auto level = static_cast<uint32_t>(state.range(1));
  ZoneTick z(players, 0, 20, true, static_cast<float>(state.range(2)));
  for (int i = 0; i < 40; ++i) {
    z.MakeInputs();
    z.Tick(nullptr, level);
  }
  double known = 0, near = 0, entered = 0;
  for (auto _ : state) {
    z.MakeInputs();
    const auto t0 = std::chrono::steady_clock::now();
    z.Tick(nullptr, level);
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    for (const zone::PlayerView& v : z.out().views) {
      known += v.known_count;
      near += v.near_count;
      entered += static_cast<double>(v.entered.size());
    }
  }
  const double n = static_cast<double>(state.iterations()) * players;
  state.counters["known"] = known / n;
  state.counters["near"] = near / n;
  state.counters["entered"] = entered / n;
}
BENCHMARK(BM_DenseCrowd)
    ->ArgNames({"players", "level", "floor"})
    ->Args({1000, 0, 0})
    ->Args({1000, 0, 4})
    ->Args({2000, 0, 0})
    ->Args({2000, 0, 4})
    ->Args({2000, 8, 0})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(1.0);
BENCHMARK(BM_ZoneTickAndEncode)->Apply(Sizes);

}  // namespace
}  // namespace zs::bench

BENCHMARK_MAIN();
