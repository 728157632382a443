// NearestRanker and CutRanks: rank classes against a full sort (the obviously-correct answer),
// on random keys of every shape the buckets can meet (even, skewed, tied, all in one bucket,
// beyond the radius), and the ranker end to end against the brute-force index.
#include "interest/nearest.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "spatial/brute_force_index.h"
#include "spatial/quadtree.h"

namespace zs::interest {
namespace {

std::vector<RankKey> Sorted(std::vector<RankKey> keys) {
  std::sort(keys.begin(), keys.end());
  return keys;
}

// keys[0, c) holds exactly the c smallest of `all` for every c in `ranks` (c clamped to kept).
void ExpectClasses(const std::vector<RankKey>& got, size_t kept, const std::vector<RankKey>& all,
                   std::initializer_list<size_t> ranks, const std::string& what) {
  const std::vector<RankKey> sorted = Sorted(all);
  ASSERT_EQ(kept, std::min(all.size(), *std::max_element(ranks.begin(), ranks.end()))) << what;
  for (const size_t rank : ranks) {
    const size_t c = std::min(rank, kept);
    std::vector<RankKey> prefix(got.begin(), got.begin() + static_cast<ptrdiff_t>(c));
    std::sort(prefix.begin(), prefix.end());
    ASSERT_EQ(prefix,
              std::vector<RankKey>(sorted.begin(), sorted.begin() + static_cast<ptrdiff_t>(c)))
        << what << " rank " << rank;
  }
}

TEST(CutRanks, MatchesAFullSortOnRandomKeys) {
  std::mt19937 rng(7);
  const auto next = [&rng] { return static_cast<uint32_t>(rng()); };
  std::vector<RankKey> scratch;
  for (int round = 0; round < 3000; ++round) {
    const uint32_t n = next() % 700;
    const float radius = std::uniform_real_distribution<float>(0.5f, 200.0f)(rng);
    const uint32_t shape = next() % 5;
    std::vector<RankKey> keys;
    for (uint32_t i = 0; i < n; ++i) {
      float d_sq = 0;
      const float u = std::uniform_real_distribution<float>(0.0f, 1.0f)(rng);
      switch (shape) {
        case 0:  // uniform over the disc: d^2 uniform
          d_sq = u * radius * radius;
          break;
        case 1:  // a crowd close in: skewed buckets
          d_sq = u * u * u * radius * radius;
          break;
        case 2:  // few distinct distances: ties broken by id
          d_sq = static_cast<float>(next() % 4) * radius;
          break;
        case 3:  // some beyond the radius (the clamp to the last bucket)
          d_sq = u * 4.0f * radius * radius;
          break;
        default:  // all at the same point
          d_sq = 0.0f;
      }
      keys.push_back(MakeRankKey(d_sq, next()));
    }
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    std::shuffle(keys.begin(), keys.end(), rng);
    const uint32_t k = next() % 400;
    const uint32_t a = next() % (k + 1);
    const uint32_t b = a + next() % (k - a + 1);
    std::vector<RankKey> got = keys;
    const RankCut cut = CutRanks(got, k, radius, {a, b}, &scratch);
    const std::string what = "round " + std::to_string(round) + " n " + std::to_string(n) + " k " +
                             std::to_string(k) + " shape " + std::to_string(shape);
    ExpectClasses(got, cut.kept, keys, {a, b, k}, what);
    const RankKey last = cut.kept == 0 ? 0 : Sorted(keys)[cut.kept - 1];
    ASSERT_EQ(cut.last, last) << what;
  }
}

TEST(CutRanks, EdgeCases) {
  std::vector<RankKey> scratch;
  std::vector<RankKey> none;
  RankCut cut = CutRanks(none, 5, 10, {1, 2}, &scratch);
  EXPECT_EQ(cut.kept, 0u);
  EXPECT_EQ(cut.last, 0u);
  std::vector<RankKey> keys = {MakeRankKey(4, 9), MakeRankKey(1, 3), MakeRankKey(4, 2)};
  cut = CutRanks(keys, 0, 10, {}, &scratch);  // keep nothing
  EXPECT_EQ(cut.kept, 0u);
  // Fewer than k: all kept, the cut at 1 still made; radius 0 and inf (one bucket) alike.
  for (const float radius : {0.0f, 2.0f, INFINITY, 1e-30f}) {
    keys = {MakeRankKey(4, 9), MakeRankKey(1, 3), MakeRankKey(4, 2)};
    cut = CutRanks(keys, 10, radius, {1, 5}, &scratch);
    EXPECT_EQ(cut.kept, 3u);
    EXPECT_EQ(keys[0], MakeRankKey(1, 3)) << radius;
    EXPECT_EQ(cut.last, MakeRankKey(4, 9)) << radius;
  }
  // Equal distances rank by id.
  keys = {MakeRankKey(4, 9), MakeRankKey(1, 3), MakeRankKey(4, 2)};
  cut = CutRanks(keys, 2, 2, {}, &scratch);
  EXPECT_EQ(Sorted({keys[0], keys[1]}),
            (std::vector<RankKey>{MakeRankKey(1, 3), MakeRankKey(4, 2)}));
  EXPECT_EQ(cut.last, MakeRankKey(4, 2));
}

// The brute-force index's keys within `radius`, their distances as the ranker ranks them: raised
// to `rank_floor`, the incumbents' less `band`.
std::vector<RankKey> RoundedKeys(const spatial::BruteForceIndex& oracle, Vec2 at, float radius,
                                 EntityId self, const RankRule& rule) {
  std::vector<RankKey> all = oracle.QueryCircleKeys(at, radius, {.exclude = self});
  for (RankKey& key : all) {
    const bool incumbent =
        std::any_of(rule.incumbents.begin(), rule.incumbents.end(),
                    [&](const Incumbent& i) { return ToRaw(i.id) == KeyRawId(key); });
    key = MakeRankKey(RankDistanceSq(KeyDistanceSq(key), rule.floor, incumbent ? rule.band : 0),
                      KeyRawId(key));
  }
  return all;
}

// The ranker end to end: random crowds, hints carried across moves as the policy does, each
// viewer's classes against the brute-force index's sorted keys within the full radius: exact;
// with a rank floor (where an entity beyond the k-th's distance but under the floor, with a
// lower id, outranks it: the ranker must reach the floor); and with last tick's nearest 8 as
// incumbents ranked `band` nearer (one beyond the query's radius may outrank those within it:
// the ranker must add them).
TEST(NearestRanker, MatchesBruteForceAcrossTicks) {
  struct Run {
    float floor;
    float band;
  };
  for (const Run run : {Run{0, 0}, Run{0.5f, 0}, Run{2, 0}, Run{5, 0}, Run{0, 3}, Run{2, 3}}) {
    SCOPED_TRACE("rank floor " + std::to_string(run.floor) + ", band " + std::to_string(run.band));
    std::mt19937 rng(11);
    spatial::QuadtreeConfig config;
    config.bounds = {{0, 0}, {200, 200}};
    spatial::Quadtree tree(config);
    spatial::BruteForceIndex oracle;
    std::uniform_real_distribution<float> anywhere(0.0f, 200.0f);
    std::normal_distribution<float> blob(100.0f, 15.0f);
    constexpr uint32_t kN = 3000;
    for (uint32_t i = 0; i < kN; ++i) {
      const Vec2 p = i % 2 == 0 ? Vec2{anywhere(rng), anywhere(rng)}
                                : Vec2{std::clamp(blob(rng), 0.0f, 200.0f),
                                       std::clamp(blob(rng), 0.0f, 200.0f)};
      ASSERT_TRUE(tree.Insert(MakeEntityId(i, i % 5), p, 0.5f, 1u << (i % 3)).ok());
      oracle.Insert(MakeEntityId(i, i % 5), p, 0.5f, 1u << (i % 3));
    }
    NearestRanker ranker;
    std::vector<float> hints(40, 0.0f);
    std::vector<std::vector<EntityId>> near(hints.size());  // by viewer: last tick's nearest 8
    size_t outranked = 0;  // views whose 8th is later than without the band
    std::uniform_real_distribution<float> move(-3.0f, 3.0f);
    for (int tick = 0; tick < 6; ++tick) {
      for (const auto& e : std::vector(oracle.entities())) {
        const Vec2 p{std::clamp(e.center.x + move(rng), 0.0f, 200.0f),
                     std::clamp(e.center.y + move(rng), 0.0f, 200.0f)};
        ASSERT_TRUE(tree.Move(e.id, p).ok());
        oracle.Move(e.id, p);
      }
      for (uint32_t v = 0; v < hints.size(); ++v) {
        const EntityId self = MakeEntityId(v * 70, (v * 70) % 5);
        Vec2 at;
        ASSERT_TRUE(tree.GetPosition(self, &at));
        const uint32_t k = v % 4 == 0 ? 40 : 264;
        const float max_radius = v % 3 == 0 ? 15.0f : 40.0f;
        std::vector<Incumbent> incumbents;
        for (const EntityId id : near[v]) {
          incumbents.push_back({.id = id, .position = {}});
          ASSERT_TRUE(tree.GetPosition(id, &incumbents.back().position));
        }
        const RankRule rule{.floor = run.floor, .band = run.band, .incumbents = incumbents};
        ranker.Rank(tree, at, self, k, max_radius, rule, {8, 30}, &hints[v]);
        const std::vector<RankKey> all = RoundedKeys(oracle, at, max_radius, self, rule);
        const std::vector<RankKey>& got = ranker.keys();
        ExpectClasses(got, got.size(), all, {8, 30, k},
                      "tick " + std::to_string(tick) + " viewer " + std::to_string(v));
        near[v].clear();
        for (size_t i = 0; i < std::min<size_t>(8, got.size()); ++i) {
          near[v].push_back(static_cast<EntityId>(KeyRawId(got[i])));
        }
        const std::vector<RankKey> exact = Sorted(RoundedKeys(
            oracle, at, max_radius, self, {.floor = run.floor, .band = 0, .incumbents = {}}));
        const std::vector<RankKey> banded = Sorted(all);
        if (exact.size() > 8 && KeyRawId(banded[7]) != KeyRawId(exact[7])) ++outranked;
        if (got.size() == k) {
          EXPECT_GE(hints[v], std::sqrt(KeyDistanceSq(Sorted(all)[k - 1])));
        } else {
          EXPECT_EQ(hints[v], max_radius);
        }
      }
    }
    if (run.band > 0) {
      EXPECT_GT(outranked, 30u);
    }
  }
}

// The floor's reach: 200 entities within 1 m of the viewer (ids 100..299) and 20 at 2.7 m with
// the lowest ids (1..20), a floor of 3 m, k = 40 and a stale hint of 0.25 m. The radius grows to
// 2.375 m, which already holds 200 keys, all raised to the floor; the 20 beyond it tie with them
// and rank first by id, so the ranker must query again out to the floor to find them.
TEST(NearestRanker, AStaleHintStillReachesEveryoneUnderTheFloor) {
  spatial::QuadtreeConfig config;
  config.bounds = {{0, 0}, {100, 100}};
  spatial::Quadtree tree(config);
  spatial::BruteForceIndex oracle;
  const Vec2 at{50, 50};
  const EntityId self = MakeEntityId(0, 0);
  const auto add = [&](uint32_t index, Vec2 p) {
    ASSERT_TRUE(tree.Insert(MakeEntityId(index, 0), p, 0.5f, 1).ok());
    oracle.Insert(MakeEntityId(index, 0), p, 0.5f, 1);
  };
  add(0, at);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> unit(-0.7f, 0.7f);
  for (uint32_t i = 100; i < 300; ++i) add(i, at + Vec2{unit(rng), unit(rng)});
  for (uint32_t i = 1; i <= 20; ++i) add(i, at + FromAngle(static_cast<float>(i) * 0.3f) * 2.7f);
  constexpr float kFloor = 3.0f;
  NearestRanker ranker;
  float hint = 0.25f;
  ranker.Rank(tree, at, self, 40, 20.0f, {.floor = kFloor, .band = 0, .incumbents = {}}, {8, 30},
              &hint);
  ExpectClasses(
      ranker.keys(), ranker.keys().size(),
      RoundedKeys(oracle, at, 20.0f, self, {.floor = kFloor, .band = 0, .incumbents = {}}),
      {8, 30, 40}, "stale hint");
  std::vector<uint32_t> ids;
  for (const RankKey key : ranker.keys()) ids.push_back(KeyRawId(key));
  for (uint32_t i = 1; i <= 20; ++i) {
    EXPECT_NE(std::find(ids.begin(), ids.end(), ToRaw(MakeEntityId(i, 0))), ids.end()) << i;
  }
}

// Distances under the floor count as the floor; the rest, and every distance at floor 0, as they
// are; never decreasing.
TEST(RankDistanceSq, RaisesDistancesToTheFloor) {
  EXPECT_EQ(RankDistanceSq(2.25f, 0.0f), 2.25f);
  EXPECT_EQ(RankDistanceSq(2.25f, 2.0f), 4.0f);  // 1.5 m: under the floor
  EXPECT_EQ(RankDistanceSq(0.0f, 2.0f), 4.0f);
  EXPECT_EQ(RankDistanceSq(9.0f, 2.0f), 9.0f);  // 3 m: beyond it
  float last = 0;
  for (float d = 0; d < 50; d += 0.01f) {
    const float r = RankDistanceSq(d * d, 2.0f);
    EXPECT_GE(r, last);
    EXPECT_GE(r, d * d);
    last = r;
  }
}

// An incumbent ranks `band` metres nearer, never below 0, and then the floor applies.
TEST(RankDistanceSq, BandsIncumbentsNearerThenRaisesToTheFloor) {
  EXPECT_EQ(RankDistanceSq(25.0f, 0.0f, 4.0f), 1.0f);  // 5 m, band 4: 1 m
  EXPECT_EQ(RankDistanceSq(9.0f, 0.0f, 4.0f), 0.0f);   // 3 m: nearer than the band
  EXPECT_EQ(RankDistanceSq(25.0f, 2.0f, 4.0f), 4.0f);  // 1 m, under a 2 m floor
  EXPECT_EQ(RankDistanceSq(100.0f, 2.0f, 4.0f), 36.0f);
  float last = 0;
  for (float d = 0; d < 50; d += 0.01f) {
    const float r = RankDistanceSq(d * d, 0.0f, 3.0f);
    EXPECT_GE(r, last);
    EXPECT_LE(r, d * d);
    last = r;
  }
}

}  // namespace
}  // namespace zs::interest
