// Determinism: the default world, players fighting monsters for thousands of ticks; every
// output of every tick is hashed (every view's full content included). Same seed and inputs:
// same hash. Another seed: another hash. Across thread counts: parallel_determinism_test.cc.
#include <gtest/gtest.h>

#include "zone/determinism_world.h"

namespace zs::zone {
namespace {

using testing::RunResult;
using testing::RunWorld;

TEST(Determinism, SameSeedSameOutputsBitForBit) {
  const RunResult a = RunWorld({.seed = 42, .ticks = 3000});
  const RunResult b = RunWorld({.seed = 42, .ticks = 3000});
  EXPECT_EQ(a.hash, b.hash);
  EXPECT_EQ(a.hits, b.hits);
  // The run was a real fight: players hit monsters, monsters hit players, things died.
  EXPECT_GT(a.hits, 100u);
  EXPECT_GT(a.kills, 5u);
  EXPECT_GT(a.player_damage_events, 20u);
  EXPECT_GT(a.entered, 100u);
  EXPECT_GT(a.moved + a.updated, 1000u);
  const RunResult c = RunWorld({.seed = 43, .ticks = 3000});
  EXPECT_NE(a.hash, c.hash);
}

}  // namespace
}  // namespace zs::zone
