// Determinism across thread counts: the same world and inputs, ticked by World::Tick with no
// runner, InlineRunner, and host::WorkerPool with 1 and 4 threads, produce the same outputs bit
// for bit (every view's full content, states, events, transfers: output_hash.h) and the same
// encoded frames byte for byte (wire::TickEncoder, run on the same runner). Lives apart from
// zone_test because it links host (the pool) and wire (the encoder).
#include <gtest/gtest.h>

#include <memory>

#include "core/task_runner.h"
#include "host/worker_pool.h"
#include "wire/encoder.h"
#include "zone/determinism_world.h"

namespace zs::zone {
namespace {

using testing::Hasher;
using testing::RunOptions;
using testing::RunResult;
using testing::RunWorld;

// Small budgets, so every tier, the byte budget and the staleness rule are exercised; overload
// levels sweep up and back down, so the budgets also change while the players play.
interest::InterestConfig TightInterest() {
  return {.near_max = 8,
          .mid_max = 24,
          .tier_margin = 4,
          .bytes_per_tick = 60,
          .max_staleness_ticks = 12,
          .summary_interval_ticks = 10,
          .summary_grid = 4,
          .relevant_max = 6};
}

struct Encoded {
  RunResult run;
  size_t frames = 0;
  size_t frame_bytes = 0;
};

Encoded RunAndEncode(TaskRunner* runner) {
  const interest::InterestConfig interest = TightInterest();
  Encoded e;
  std::vector<wire::TickEncoder> encoders;
  RunOptions opt{.seed = 42,
                 .ticks = 2000,
                 .players = 48,
                 .travellers = 4,
                 .interest = &interest,
                 .levels = {0, 2, 5, 8, 3, 0},
                 .level_period = 60,
                 .runner = runner};
  opt.after_tick = [&](const World& w, Hasher* h) {
    encoders.resize(w.zone_count());
    for (size_t z = 0; z < w.zone_count(); ++z) {
      const ZoneTickOutput& o = w.output(z);
      encoders[z].Encode(o, {}, runner);
      for (size_t i = 0; i < o.views.size(); ++i) {
        const std::string& frame = encoders[z].Frame(i);
        h->Add(std::string_view(frame));
        ++e.frames;
        e.frame_bytes += frame.size();
      }
    }
  };
  e.run = RunWorld(opt);
  return e;
}

// The first tick whose running hash differs, or -1.
int FirstDivergence(const RunResult& a, const RunResult& b) {
  for (size_t t = 0; t < a.tick_hashes.size() && t < b.tick_hashes.size(); ++t) {
    if (a.tick_hashes[t] != b.tick_hashes[t]) return static_cast<int>(t);
  }
  return a.tick_hashes.size() == b.tick_hashes.size() ? -1 : 0;
}

TEST(ParallelDeterminism, SameOutputsAndFramesWhateverTheThreadCount) {
  const Encoded none = RunAndEncode(nullptr);
  InlineRunner inline_runner;
  const Encoded inlined = RunAndEncode(&inline_runner);
  host::WorkerPool one(1);
  ASSERT_EQ(one.workers(), 1u);
  const Encoded pool1 = RunAndEncode(&one);
  host::WorkerPool four(4);
  ASSERT_EQ(four.workers(), 4u);
  const Encoded pool4 = RunAndEncode(&four);

  // The run exercised what threads could disturb: many views per tick, every kind of news,
  // players crossing portals, overload levels changing the budgets.
  EXPECT_GT(none.frames, 2000u * 40);
  EXPECT_GT(none.run.entered, 1000u);
  EXPECT_GT(none.run.updated, 1000u);
  EXPECT_GT(none.run.moved, 1000u);
  EXPECT_GT(none.run.left, 500u);
  EXPECT_GT(none.run.hits, 100u);
  EXPECT_GT(none.run.transfers, 20u);

  EXPECT_EQ(FirstDivergence(none.run, inlined.run), -1);
  EXPECT_EQ(FirstDivergence(none.run, pool1.run), -1);
  EXPECT_EQ(FirstDivergence(none.run, pool4.run), -1);
  EXPECT_EQ(none.run.hash, pool4.run.hash);
  EXPECT_EQ(none.frame_bytes, pool4.frame_bytes);
  EXPECT_EQ(pool1.frame_bytes, pool4.frame_bytes);
}

}  // namespace
}  // namespace zs::zone
