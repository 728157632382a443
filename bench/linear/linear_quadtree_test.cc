// LinearQuadtree: its own contract (bad items, an empty index, warm rebuilds) and, at sizes where
// the directory is deep and crowded buckets are split below it, exact agreement with the
// BruteForceIndex oracle. Random operation sequences against the oracle: quadtree_fuzz.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "bench/linear/linear_quadtree.h"
#include "spatial/brute_force_index.h"

namespace zs::bench {
namespace {

using spatial::BruteForceIndex;
using spatial::QueryOrder;

LinearQuadtree MakeTree(uint32_t leaf_capacity = 32) {
  return LinearQuadtree({.bounds = {{-500, 0}, {1500, 1000}}, .leaf_capacity = leaf_capacity});
}

// The tree's ids and rank keys for one circle, each exactly the oracle's (in any order).
::testing::AssertionResult SameAsOracle(const LinearQuadtree& t, const BruteForceIndex& oracle,
                                        const Circle& c, const QueryFilter& f) {
  QueryResults r;
  t.QueryCircle(c, f, &r);
  std::vector<EntityId> got = r.ids.ToVector();
  std::sort(got.begin(), got.end(), [](EntityId a, EntityId b) { return ToRaw(a) < ToRaw(b); });
  const std::vector<EntityId> want = oracle.QueryCircle(c, f, QueryOrder::kById);
  if (got != want) {
    return ::testing::AssertionFailure()
           << "ids: " << got.size() << " found, " << want.size() << " expected";
  }
  std::vector<RankKey> keys;
  t.QueryCircleKeys(c.center, c.radius, f, &keys);
  std::sort(keys.begin(), keys.end());
  if (keys != oracle.QueryCircleKeys(c.center, c.radius, f)) {
    return ::testing::AssertionFailure() << "rank keys differ";
  }
  return ::testing::AssertionSuccess();
}

TEST(LinearQuadtree, RefusesBadConfigs) {
  EXPECT_FALSE(LinearQuadtree::ValidateConfig({.bounds = {{0, 0}, {0, 10}}}).ok());
  EXPECT_FALSE(LinearQuadtree::ValidateConfig(
                   {.bounds = {{0, 0}, {std::numeric_limits<float>::infinity(), 10}}})
                   .ok());
  EXPECT_FALSE(LinearQuadtree::ValidateConfig({.leaf_capacity = 0}).ok());
  EXPECT_FALSE(LinearQuadtree::ValidateConfig({.leaf_capacity = 5000}).ok());
  EXPECT_THROW(LinearQuadtree({.leaf_capacity = 0}), std::invalid_argument);
}

TEST(LinearQuadtree, ABadItemLeavesTheIndexEmptyWithTheReason) {
  LinearQuadtree t = MakeTree();
  const EntityId a = MakeEntityId(1, 0);
  std::vector<LinearQuadtree::Item> items = {{.id = a, .center = {10, 10}}};
  ASSERT_TRUE(t.Rebuild(items).ok());
  EXPECT_EQ(t.size(), 1u);
  items.push_back({.id = MakeEntityId(2, 0), .center = {2000, 10}});
  EXPECT_EQ(t.Rebuild(items).code(), StatusCode::kOutOfBounds);
  EXPECT_EQ(t.size(), 0u);
  items.back() = {.id = MakeEntityId(2, 0), .center = {std::nanf(""), 10}};
  EXPECT_EQ(t.Rebuild(items).code(), StatusCode::kOutOfBounds);
  items.back() = {.id = MakeEntityId(2, 0), .center = {20, 10}, .radius = -1};
  EXPECT_EQ(t.Rebuild(items).code(), StatusCode::kInvalidArgument);
  items.back() = {.id = kInvalidEntity, .center = {20, 10}};
  EXPECT_EQ(t.Rebuild(items).code(), StatusCode::kInvalidArgument);
  QueryResults r;
  t.QueryCircle({{10, 10}, 100}, {}, &r);
  EXPECT_TRUE(r.ids.empty()) << "empty after a refused rebuild";
}

TEST(LinearQuadtree, BadQueriesMatchNothing) {
  LinearQuadtree t = MakeTree();
  const std::vector<LinearQuadtree::Item> items = {{.id = MakeEntityId(1, 0), .center = {0, 0}}};
  ASSERT_TRUE(t.Rebuild(items).ok());
  QueryResults r;
  for (const Circle c :
       {Circle{{0, 0}, -1}, Circle{{0, 0}, std::nanf("")}, Circle{{std::nanf(""), 0}, 5},
        Circle{{0, 0}, std::numeric_limits<float>::infinity()}}) {
    t.QueryCircle(c, {}, &r);
    EXPECT_TRUE(r.ids.empty());
    std::vector<RankKey> keys;
    t.QueryCircleKeys(c.center, c.radius, {}, &keys);
    EXPECT_TRUE(keys.empty());
  }
}

// Thousands of entities (a deep directory, crowded buckets split below it by their codes, one
// spot holding hundreds): every query exactly as the oracle's, ids and keys, with filters.
TEST(LinearQuadtree, MatchesTheOracleAtScale) {
  std::mt19937 rng(20261126);
  std::uniform_real_distribution<float> ux(-500, 1500), uy(0, 1000), ur(0, 3);
  std::normal_distribution<float> blob(0, 15);
  for (const uint32_t n : {300u, 5000u, 40000u}) {
    SCOPED_TRACE(n);
    BruteForceIndex oracle;
    std::vector<LinearQuadtree::Item> items;
    for (uint32_t i = 0; i < n; ++i) {
      Vec2 p{ux(rng), uy(rng)};
      if (i % 3 == 0) p = {std::clamp(200 + blob(rng), -500.0f, 1500.0f), 500 + blob(rng)};
      if (i % 10 == 0) p = {700, 300};  // one spot: a node no depth can split
      const float radius = i % 4 == 0 ? ur(rng) : 0.0f;
      const uint32_t mask = 1u << (i % 3);
      items.push_back({.id = MakeEntityId(i, i % 5), .center = p, .radius = radius, .mask = mask});
      oracle.Insert(items.back().id, p, radius, mask);
    }
    LinearQuadtree t = MakeTree(1 + n % 37);
    ASSERT_TRUE(t.Rebuild(items).ok());
    for (int q = 0; q < 300; ++q) {
      const Vec2 c = q % 2 == 0 ? items[rng() % n].center : Vec2{ux(rng), uy(rng)};
      const float radius = std::pow(10.0f, std::uniform_real_distribution<float>(-1, 3)(rng));
      const QueryFilter f{.mask = q % 3 == 0 ? 0xFFFFFFFFu : 1u + (q % 5),
                          .exclude = q % 4 == 0 ? items[rng() % n].id : kInvalidEntity};
      ASSERT_TRUE(SameAsOracle(t, oracle, {c, radius}, f)) << q;
    }
  }
}

// The directory sized for a query radius, and items that all share one radius or one mask (kept
// once, not per item): still exactly the oracle's answers, across rebuilds that switch between
// shared and varying values, for radii far from the one the directory was sized for.
TEST(LinearQuadtree, MatchesTheOracleWithARadiusHintAndSharedRadiiOrMasks) {
  std::mt19937 rng(20261127);
  std::uniform_real_distribution<float> ux(-500, 1500), uy(0, 1000), ur(0.1f, 4);
  std::normal_distribution<float> blob(0, 20);
  for (const float hint : {0.5f, 30.0f, 250.0f, 5000.0f}) {
    SCOPED_TRACE(hint);
    LinearQuadtree t(
        {.bounds = {{-500, 0}, {1500, 1000}}, .leaf_capacity = 24, .query_radius = hint});
    // 0: radius and mask shared; 1: radius shared (not 0), masks vary; 2: masks shared (one
    // that some filters refuse), radii vary; 3: both vary.
    for (int kind = 0; kind < 4; ++kind) {
      SCOPED_TRACE(kind);
      const uint32_t n = 6000;
      const float shared_radius = kind == 1 ? 1.5f : 0.0f;
      BruteForceIndex oracle;
      std::vector<LinearQuadtree::Item> items;
      for (uint32_t i = 0; i < n; ++i) {
        Vec2 p{ux(rng), uy(rng)};
        if (i % 2 == 0) p = {std::clamp(900 + blob(rng), -500.0f, 1500.0f), 200 + blob(rng)};
        if (i % 17 == 0) p = {1500, 1000};  // on the bounds' far corner
        const float radius = kind >= 2 ? (i % 3 == 0 ? ur(rng) : 0.0f) : shared_radius;
        const uint32_t mask = kind == 0 || kind == 2 ? 4u : 1u << (i % 3);
        items.push_back({.id = MakeEntityId(i, 1), .center = p, .radius = radius, .mask = mask});
        oracle.Insert(items.back().id, p, radius, mask);
      }
      ASSERT_TRUE(t.Rebuild(items).ok());
      for (int q = 0; q < 200; ++q) {
        const Vec2 c = q % 2 == 0 ? items[rng() % n].center : Vec2{ux(rng), uy(rng)};
        const float radius = std::pow(10.0f, std::uniform_real_distribution<float>(-1, 3.3f)(rng));
        const QueryFilter f{.mask = q % 3 == 0 ? 0xFFFFFFFFu : 1u + (q % 6),
                            .exclude = q % 4 == 0 ? items[rng() % n].id : kInvalidEntity};
        ASSERT_TRUE(SameAsOracle(t, oracle, {c, radius}, f)) << q;
      }
    }
  }
}

// A circle so large that its reach squared overflows to infinity, centred far outside the
// world: every entity is within it, as the oracle says (a chord computed from inf - inf would
// read one column).
TEST(LinearQuadtree, AnEnormousCircleFarAwayFindsEveryone) {
  for (const float hint : {0.0f, 100.0f}) {
    LinearQuadtree t({.bounds = {{0, 0}, {1024, 1024}}, .leaf_capacity = 4, .query_radius = hint});
    BruteForceIndex oracle;
    std::vector<LinearQuadtree::Item> items;
    for (uint32_t i = 0; i < 200; ++i) {
      const Vec2 p{static_cast<float>(i * 5 % 1024), static_cast<float>(i * 37 % 1024)};
      items.push_back({.id = MakeEntityId(i, 0), .center = p, .radius = i % 2 ? 1.0f : 0.0f});
      oracle.Insert(items.back().id, p, items.back().radius, 1);
    }
    ASSERT_TRUE(t.Rebuild(items).ok());
    const Circle c{{0, 2e19f}, 3e19f};
    EXPECT_EQ(oracle.QueryCircle(c, {}, QueryOrder::kById).size(), items.size());
    EXPECT_TRUE(SameAsOracle(t, oracle, c, {})) << hint;
  }
}

TEST(LinearQuadtree, RefusesABadQueryRadius) {
  for (const float bad :
       {-1.0f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
    EXPECT_FALSE(LinearQuadtree::ValidateConfig({.query_radius = bad}).ok()) << bad;
  }
  EXPECT_TRUE(LinearQuadtree::ValidateConfig({.query_radius = 40.0f}).ok());
}

// Every rebuild replaces what was there (the zone rebuilds it every tick), with a directory no
// deeper than the one before when there are fewer entities.
TEST(LinearQuadtree, ARebuildWithFewerReplacesTheContents) {
  LinearQuadtree t = MakeTree();
  std::vector<LinearQuadtree::Item> items;
  for (uint32_t i = 0; i < 1000; ++i) {
    items.push_back({.id = MakeEntityId(i, 0), .center = {static_cast<float>(i), 500}});
  }
  ASSERT_TRUE(t.Rebuild(items).ok());
  const uint32_t depth = t.directory_depth();
  items.resize(900);
  ASSERT_TRUE(t.Rebuild(items).ok());
  EXPECT_EQ(t.size(), 900u);
  EXPECT_LE(t.directory_depth(), depth);
  QueryResults r;
  t.QueryCircle({{100, 500}, 10.5f}, {}, &r);
  EXPECT_EQ(r.ids.size(), 21u);  // x = 90..110 (touching counts)
}

}  // namespace
}  // namespace zs::bench
