// client_sim's own cost per frame: a verifying bot's WorldModel applying a crowd's TickUpdates
// (the checks of every promise and the picture they keep). client_sim must stay cheap per bot
// to drive thousands from two cores; this measures the part that grows with what a bot is sent,
// apart from sockets and the server, so two builds compare on one box without a server's crowd
// state (which changes from run to run) in the way.
//
// The frames: 250 entities known (the crowd scenario's near and mid tiers), every tick 40 of
// them moving and 8 turning (delta-coded), 12 absolute updates (hp) from the mid tier, and two
// leaving and two entering; a crowd summary once a second. Built once (a fixed seed), then
// applied in order, 1,000 ticks per pass, the model reset (a new connection) between passes.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "client_sim/stats.h"
#include "client_sim/world_model.h"
#include "zone.pb.h"

namespace zs::sim {
namespace {

namespace pb = zone::v1;

constexpr uint32_t kSelf = 1;
constexpr int kKnown = 250;
constexpr int kTicks = 1000;
constexpr int kMoved = 40;
constexpr int kTurned = 8;
constexpr int kUpdated = 12;
constexpr int kChurn = 2;
constexpr int kSummaryEvery = 20;
constexpr int32_t kZoneCm = 100000;

pb::Welcome MakeWelcome() {
  pb::Welcome w;
  w.set_entity_id(kSelf);
  w.set_zone_id(1);
  w.set_zone_max_x(kZoneCm);
  w.set_zone_max_y(kZoneCm);
  w.set_x(kZoneCm / 2);
  w.set_y(kZoneCm / 2);
  return w;
}

// Delta-codes `ids` (ascending) into `gaps`.
void Gaps(const std::vector<uint32_t>& ids, google::protobuf::RepeatedField<uint32_t>* gaps) {
  uint32_t previous = 0;
  for (const uint32_t id : ids) {
    gaps->Add(id - previous);
    previous = id;
  }
}

std::vector<pb::TickUpdate> MakeTicks() {
  std::mt19937 rng(7);
  std::set<uint32_t> known;
  uint32_t next_id = 2;
  std::vector<pb::TickUpdate> ticks(kTicks);
  for (int i = 0; i < kTicks; ++i) {
    pb::TickUpdate& t = ticks[static_cast<size_t>(i)];
    t.set_tick(static_cast<uint64_t>(i) + 1);
    t.mutable_self()->set_id(kSelf);
    const int entering = i == 0 ? kKnown : kChurn;
    if (i > 0) {
      for (int k = 0; k < kChurn; ++k) {
        const uint32_t gone = *known.begin();
        known.erase(known.begin());
        t.add_left(gone);
      }
    }
    std::vector<uint32_t> fresh;
    for (int k = 0; k < entering; ++k) {
      pb::EntityEnter* e = t.add_entered();
      e->set_id(next_id);
      e->set_kind(pb::ENTITY_KIND_MONSTER);
      e->set_x(static_cast<int32_t>(rng() % 20000) + 40000);
      e->set_y(static_cast<int32_t>(rng() % 20000) + 40000);
      e->set_hp(10);
      e->set_max_hp(10);
      e->set_alive(true);
      fresh.push_back(next_id++);
    }
    if (i > 0) {  // news only of what was known before this tick
      std::vector<uint32_t> pool(known.begin(), known.end());
      std::shuffle(pool.begin(), pool.end(), rng);
      std::vector<uint32_t> moved(pool.begin(), pool.begin() + kMoved);
      std::vector<uint32_t> turned(pool.begin() + kMoved, pool.begin() + kMoved + kTurned);
      for (int k = 0; k < kUpdated; ++k) {
        pb::EntityUpdate* u = t.add_updated();
        u->set_id(pool[static_cast<size_t>(kMoved) + static_cast<size_t>(kTurned) +
                       static_cast<size_t>(k)]);
        u->set_hp(static_cast<int32_t>(rng() % 10));
      }
      std::sort(moved.begin(), moved.end());
      std::sort(turned.begin(), turned.end());
      Gaps(moved, t.mutable_moved_ids());
      for (size_t k = 0; k < moved.size(); ++k) {
        t.add_moved_deltas(static_cast<int32_t>(i % 2 == 0 ? 7 : -7));
        t.add_moved_deltas(static_cast<int32_t>(i % 2 == 0 ? -3 : 3));
      }
      Gaps(turned, t.mutable_turned_ids());
      for (size_t k = 0; k < turned.size(); ++k) {
        t.add_turned_deltas(i % 2 == 0 ? 5 : -5);
        t.add_turned_deltas(0);
        t.add_turned_facings(static_cast<uint32_t>(rng() % 65536));
      }
    }
    known.insert(fresh.begin(), fresh.end());
    if (i % kSummaryEvery == 0) {
      pb::CrowdSummary* c = t.mutable_crowd();
      c->set_grid(4);
      for (int k = 0; k < 16; ++k) c->add_counts(3);
      c->set_total(48);
    }
  }
  return ticks;
}

void BM_VerifyingBotCrowdTicks(benchmark::State& state) {
  const std::vector<pb::TickUpdate> ticks = MakeTicks();
  const pb::Welcome welcome = MakeWelcome();
  Stats stats;
  WorldModel model(&stats);
  const auto now = WorldModel::Clock::now();
  for (auto _ : state) {
    model.Reset();
    model.Welcome(welcome);
    for (const pb::TickUpdate& t : ticks) model.ApplyTick(t, now);
    model.intervals()->clear();
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kTicks);
  uint64_t violations = 0;
  for (const auto& [kind, n] : stats.violations) violations += n;
  state.counters["violations"] = static_cast<double>(violations);  // a good stream: 0
}
BENCHMARK(BM_VerifyingBotCrowdTicks)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace zs::sim

BENCHMARK_MAIN();
