// Quadtree unit tests: bad input, structure (split, collapse, O(1) moves), each query kind on
// hand-made layouts, filters, ordering, stats and debug export.
#include "spatial/quadtree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace zs::spatial {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

EntityId Id(uint32_t index, uint32_t generation = 0) { return MakeEntityId(index, generation); }

QuadtreeConfig SmallConfig() {
  QuadtreeConfig c;
  c.bounds = {{0, 0}, {100, 100}};
  c.leaf_capacity = 4;
  c.max_depth = 6;
  return c;
}

// Everything observable about a tree, to check that a rejected operation changed nothing.
struct Snapshot {
  std::vector<NodeInfo> nodes;
  std::vector<std::pair<uint32_t, Vec2>> entities;
  size_t size;

  explicit Snapshot(const Quadtree& t) : size(t.size()) {
    t.ExportNodes(&nodes);
    QueryResults r;
    t.QueryAabb(t.config().bounds, {}, QueryOrder::kById, &r);
    for (EntityId id : r.ids) {
      Vec2 p;
      EXPECT_TRUE(t.GetPosition(id, &p));
      entities.emplace_back(ToRaw(id), p);
    }
  }
  bool operator==(const Snapshot& o) const {
    if (size != o.size || entities != o.entities || nodes.size() != o.nodes.size()) return false;
    for (size_t i = 0; i < nodes.size(); ++i) {
      const NodeInfo& a = nodes[i];
      const NodeInfo& b = o.nodes[i];
      if (!(a.rect.min == b.rect.min) || !(a.rect.max == b.rect.max) || a.count != b.count ||
          a.leaf != b.leaf || a.depth != b.depth) {
        return false;
      }
    }
    return true;
  }
};

std::vector<uint32_t> Raw(const IdBuffer& ids) {
  std::vector<uint32_t> out;
  for (EntityId id : ids) out.push_back(ToRaw(id));
  return out;
}

TEST(QuadtreeConfig, RejectsBadConfigWithReason) {
  QuadtreeConfig c = SmallConfig();
  c.leaf_capacity = 0;
  EXPECT_EQ(Quadtree::ValidateConfig(c).code(), StatusCode::kInvalidArgument);
  c = SmallConfig();
  c.max_depth = 21;
  EXPECT_FALSE(Quadtree::ValidateConfig(c).ok());
  c = SmallConfig();
  c.bounds = {{0, 0}, {0, 10}};
  EXPECT_FALSE(Quadtree::ValidateConfig(c).ok());
  c.bounds = {{0, 0}, {kNaN, 10}};
  EXPECT_FALSE(Quadtree::ValidateConfig(c).ok());
  EXPECT_THROW(Quadtree{c}, std::invalid_argument);
  c.bounds = {{1e6f, 0}, {1e6f + 1, 1}};  // cells at depth 6 would be below float resolution
  EXPECT_EQ(Quadtree::ValidateConfig(c).code(), StatusCode::kInvalidArgument);
  c.bounds = {{1e6f, 0}, {1e6f + 1000, 1000}};  // 1000 / 2^6 is ample at 1e6
  EXPECT_TRUE(Quadtree::ValidateConfig(c).ok());
  EXPECT_TRUE(Quadtree::ValidateConfig(SmallConfig()).ok());
}

TEST(Quadtree, BadInputLeavesTreeUnchanged) {
  Quadtree t(SmallConfig());
  for (uint32_t i = 0; i < 20; ++i) {
    ASSERT_TRUE(t.Insert(Id(i), {5.0f * static_cast<float>(i), 50}, 1).ok());
  }
  const Snapshot before(t);
  struct Case {
    const char* what;
    Status status;
    StatusCode want;
  };
  const Case cases[] = {
      {"insert NaN x", t.Insert(Id(100), {kNaN, 1}, 1), StatusCode::kOutOfBounds},
      {"insert inf y", t.Insert(Id(100), {1, kInf}, 1), StatusCode::kOutOfBounds},
      {"insert outside", t.Insert(Id(100), {100.5f, 1}, 1), StatusCode::kOutOfBounds},
      {"insert below", t.Insert(Id(100), {1, -0.01f}, 1), StatusCode::kOutOfBounds},
      {"insert NaN radius", t.Insert(Id(100), {1, 1}, kNaN), StatusCode::kInvalidArgument},
      {"insert negative radius", t.Insert(Id(100), {1, 1}, -1), StatusCode::kInvalidArgument},
      {"insert invalid id", t.Insert(kInvalidEntity, {1, 1}, 1), StatusCode::kInvalidArgument},
      {"duplicate insert", t.Insert(Id(3), {1, 1}, 1), StatusCode::kAlreadyExists},
      {"duplicate index, other generation", t.Insert(Id(3, 1), {1, 1}, 1),
       StatusCode::kAlreadyExists},
      {"move unknown", t.Move(Id(100), {1, 1}), StatusCode::kNotFound},
      {"move stale", t.Move(Id(3, 1), {1, 1}), StatusCode::kNotFound},
      {"move NaN", t.Move(Id(3), {kNaN, kNaN}), StatusCode::kOutOfBounds},
      {"move outside", t.Move(Id(3), {-1, 50}), StatusCode::kOutOfBounds},
      {"remove unknown", t.Remove(Id(100)), StatusCode::kNotFound},
      {"remove stale", t.Remove(Id(3, 5)), StatusCode::kNotFound},
      {"remove invalid", t.Remove(kInvalidEntity), StatusCode::kNotFound},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.status.code(), c.want) << c.what << ": " << c.status.message();
    EXPECT_FALSE(c.status.message().empty()) << c.what;
  }
  EXPECT_TRUE(Snapshot(t) == before);
  EXPECT_EQ(t.CheckInvariants(), "");
}

TEST(Quadtree, WorldEdgesAreInside) {
  Quadtree t(SmallConfig());
  const Vec2 corners[] = {{0, 0}, {100, 0}, {0, 100}, {100, 100}, {50, 50}, {100, 50}};
  for (uint32_t i = 0; i < 6; ++i) ASSERT_TRUE(t.Insert(Id(i), corners[i], 0).ok());
  for (uint32_t i = 0; i < 6; ++i) ASSERT_TRUE(t.Move(Id(i), corners[5 - i]).ok());
  EXPECT_EQ(t.CheckInvariants(), "");
  QueryResults r;
  t.QueryCircle({{100, 100}, 0}, {}, QueryOrder::kById, &r);
  EXPECT_EQ(Raw(r.ids), std::vector<uint32_t>{2});  // entity 2 moved to corners[3]
}

TEST(Quadtree, SplitsAndCollapsesBack) {
  Quadtree t(SmallConfig());
  for (uint32_t i = 0; i < 200; ++i) {
    const uint32_t column = i % 20, row = i / 20;
    const float x = static_cast<float>(column) * 5.0f + 1.0f;
    const float y = static_cast<float>(row) * 10.0f + 1.0f;
    ASSERT_TRUE(t.Insert(Id(i), {x, y}, 0.5f).ok());
  }
  const TreeStats grown = t.Stats();
  EXPECT_GT(grown.leaves, 20u);
  EXPECT_GE(grown.depth, 3u);
  EXPECT_EQ(grown.entities, 200u);
  EXPECT_EQ(t.CheckInvariants(), "");
  for (uint32_t i = 0; i < 198; ++i) ASSERT_TRUE(t.Remove(Id(i)).ok());
  const TreeStats shrunk = t.Stats();
  EXPECT_EQ(shrunk.nodes, 1u) << "two entities left: the root should be a leaf again";
  EXPECT_EQ(shrunk.entities, 2u);
  EXPECT_EQ(t.CheckInvariants(), "");
}

TEST(Quadtree, LongChurnDoesNotGrowStorage) {
  // A tree that lives for days: the same population moving around must reach a steady state.
  Quadtree t(SmallConfig());
  uint32_t state = 12345;
  auto rnd = [&state] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / static_cast<float>(1 << 24);
  };
  for (uint32_t i = 0; i < 300; ++i)
    ASSERT_TRUE(t.Insert(Id(i), {rnd() * 100, rnd() * 100}, 1).ok());
  size_t bytes_after_warmup = 0;
  for (int round = 0; round < 200; ++round) {
    for (uint32_t i = 0; i < 300; ++i) ASSERT_TRUE(t.Move(Id(i), {rnd() * 100, rnd() * 100}).ok());
    if (round == 20) bytes_after_warmup = t.Stats().bytes_used;
  }
  EXPECT_EQ(t.CheckInvariants(), "");
  EXPECT_LE(t.Stats().bytes_used, bytes_after_warmup * 5 / 4);
}

TEST(Quadtree, AllAtOnePointStopsAtMaxDepth) {
  Quadtree t(SmallConfig());
  for (uint32_t i = 0; i < 100; ++i) ASSERT_TRUE(t.Insert(Id(i), {33.3f, 33.3f}, 0).ok());
  EXPECT_EQ(t.CheckInvariants(), "");
  EXPECT_EQ(t.Stats().depth, 6u);
  QueryResults r;
  t.QueryCircle({{33.3f, 33.3f}, 0}, {}, QueryOrder::kAny, &r);
  EXPECT_EQ(r.ids.size(), 100u);
  t.QueryNearest({0, 0}, 3, kInf, {}, &r);
  EXPECT_EQ(Raw(r.ids), (std::vector<uint32_t>{0, 1, 2}));  // equal distance: ties by id
}

TEST(Quadtree, CircleQueryWithFilterOrderAndStats) {
  Quadtree t(SmallConfig());
  // Players (mask 1) on a line, monsters (mask 2) interleaved.
  for (uint32_t i = 0; i < 10; ++i) {
    ASSERT_TRUE(
        t.Insert(Id(i), {10.0f + 3.0f * static_cast<float>(i), 10}, 0.5f, i % 2 == 0 ? 1u : 2u)
            .ok());
  }
  QueryResults r;
  t.QueryCircle({{22, 10}, 6}, {}, QueryOrder::kByDistance, &r);
  // Centres at 10,13,...,37; hit when |x - 22| <= 6.5: 16,19,22,25,28 -> ids 2..6.
  EXPECT_EQ(Raw(r.ids), (std::vector<uint32_t>{4, 3, 5, 2, 6}));
  EXPECT_EQ(r.stats.hits, 5u);
  EXPECT_GE(r.stats.candidates, r.stats.hits);
  t.QueryCircle({{22, 10}, 6}, {.mask = 2, .exclude = Id(5)}, QueryOrder::kById, &r);
  EXPECT_EQ(Raw(r.ids), (std::vector<uint32_t>{3}));
  ASSERT_TRUE(t.SetMask(Id(4), 2).ok());  // entity 4 changes category
  t.QueryCircle({{22, 10}, 6}, {.mask = 2}, QueryOrder::kById, &r);
  EXPECT_EQ(Raw(r.ids), (std::vector<uint32_t>{3, 4, 5}));
  EXPECT_EQ(t.SetMask(Id(4, 1), 1).code(), StatusCode::kNotFound);
}

// Found by tests/fuzz/quadtree_fuzz: with the default filter (mask all ones, no exclusion) the
// bulk path for covered subtrees and the leaf scan skipped the mask test, so an entity with mask
// 0, which passes no filter, was returned. The shortcuts now apply only while no entity has
// mask 0.
TEST(Quadtree, MaskZeroPassesNoFilterNotEvenTheDefault) {
  Quadtree t(SmallConfig());
  for (uint32_t i = 0; i < 12; ++i) {  // enough to split: covered subtrees and scanned leaves
    ASSERT_TRUE(t.Insert(Id(i), {5.0f + 7.0f * static_cast<float>(i), 50}, 0.5f, 1).ok());
  }
  ASSERT_TRUE(t.Insert(Id(20), {50, 50}, 0.5f, 0).ok());
  ASSERT_TRUE(t.SetMask(Id(3), 0).ok());
  QueryResults r;
  const auto has_masked = [&r] {
    return std::any_of(r.ids.begin(), r.ids.end(),
                       [](EntityId id) { return id == Id(20) || id == Id(3); });
  };
  t.QueryCircle({{50, 50}, 200}, {}, QueryOrder::kAny, &r);  // covers the whole tree
  EXPECT_EQ(r.ids.size(), 11u);
  EXPECT_FALSE(has_masked());
  t.QueryCircle({{40, 50}, 15}, {}, QueryOrder::kAny, &r);  // leaf scans
  EXPECT_FALSE(has_masked());
  EXPECT_FALSE(r.ids.empty());
  t.QueryAabb({{0, 0}, {100, 100}}, {}, QueryOrder::kById, &r);
  EXPECT_EQ(r.ids.size(), 11u);
  EXPECT_FALSE(has_masked());
  t.QueryCapsule({{0, 50}, {100, 50}, 1}, {}, QueryOrder::kAny, &r);
  EXPECT_EQ(r.ids.size(), 11u);
  EXPECT_FALSE(has_masked());
  // Once no entity has mask 0 the default filter takes its shortcuts again, and sees everyone.
  ASSERT_TRUE(t.SetMask(Id(3), 1).ok());
  ASSERT_TRUE(t.Remove(Id(20)).ok());
  EXPECT_EQ(t.CheckInvariants(), "");
  t.QueryCircle({{50, 50}, 200}, {}, QueryOrder::kAny, &r);
  EXPECT_EQ(r.ids.size(), 12u);
}

// Found by tests/fuzz/quadtree_fuzz: a half-disc sector of range 1.4e6 facing -x, its origin
// 0.004 left of the root's split line. Facing 3*pi rounds to a direction tilted by 9e-8, so over
// 700 km the narrow test's rounding (0.06 at that scale) accepts an entity just right of the
// line, while the node test, with a fixed slack of 0.005, dropped its leaf. The node tests'
// slack now also grows with the shape's length.
TEST(Quadtree, HugeSectorCullKeepsWhatTheNarrowTestHits) {
  QuadtreeConfig c;
  c.bounds = {{34779.4375f, -1000000.0f}, {41767.9805f, 454227.875f}};
  c.leaf_capacity = 1;
  Quadtree t(c);
  ASSERT_TRUE(t.Insert(Id(0), {38273.7148f, -801433.812f}, 0.0f).ok());
  ASSERT_TRUE(t.Insert(Id(1), {35000.0f, 0.0f}, 0.0f).ok());  // the root splits
  const Sector s{{38273.707f, -106354.188f}, 3 * kPi, kPi / 2, 1420262.75f};
  ASSERT_TRUE(SectorHitsCircle(s, {38273.7148f, -801433.812f}, 0.0f));  // the definition of hit
  QueryResults r;
  t.QuerySector(s, {}, QueryOrder::kById, &r);
  EXPECT_EQ(Raw(r.ids), (std::vector<uint32_t>{0, 1}));
}

TEST(Quadtree, SectorQueryIsASwordSwing) {
  Quadtree t(SmallConfig());
  ASSERT_TRUE(t.Insert(Id(0), {50, 50}, 0.5f).ok());     // the attacker
  ASSERT_TRUE(t.Insert(Id(1), {53, 50}, 0.5f).ok());     // in front
  ASSERT_TRUE(t.Insert(Id(2), {47, 50}, 0.5f).ok());     // behind
  ASSERT_TRUE(t.Insert(Id(3), {52, 52}, 0.5f).ok());     // on the 45 degree edge
  ASSERT_TRUE(t.Insert(Id(4), {50, 53}, 0.5f).ok());     // 90 degrees off
  ASSERT_TRUE(t.Insert(Id(5), {54, 50}, 0.5f).ok());     // just reaching with its hitbox
  ASSERT_TRUE(t.Insert(Id(6), {54.6f, 50}, 0.5f).ok());  // out of reach
  QueryResults r;
  t.QuerySector({{50, 50}, 0.0f, kPi / 4, 3.5f}, {.exclude = Id(0)}, QueryOrder::kById, &r);
  EXPECT_EQ(Raw(r.ids), (std::vector<uint32_t>{1, 3, 5}));
}

TEST(Quadtree, CapsuleAndAabbQueries) {
  Quadtree t(SmallConfig());
  ASSERT_TRUE(t.Insert(Id(0), {10, 10}, 0).ok());
  ASSERT_TRUE(t.Insert(Id(1), {20, 11}, 0).ok());
  ASSERT_TRUE(t.Insert(Id(2), {30, 13}, 0.5f).ok());
  ASSERT_TRUE(t.Insert(Id(3), {41.5f, 10}, 0).ok());
  QueryResults r;
  t.QueryCapsule({{10, 10}, {40, 10}, 1}, {.exclude = Id(0)}, QueryOrder::kByDistance, &r);
  EXPECT_EQ(Raw(r.ids), (std::vector<uint32_t>{1}));
  t.QueryCapsule({{10, 10}, {40, 10}, 2.5f}, {}, QueryOrder::kByDistance, &r);
  EXPECT_EQ(Raw(r.ids), (std::vector<uint32_t>{0, 1, 2, 3}));
  t.QueryAabb({{15, 0}, {30, 12.5f}}, {}, QueryOrder::kById, &r);
  EXPECT_EQ(Raw(r.ids), (std::vector<uint32_t>{1, 2}));
}

TEST(Quadtree, NearestAndPairs) {
  Quadtree t(SmallConfig());
  ASSERT_TRUE(t.Insert(Id(0), {10, 10}, 1).ok());
  ASSERT_TRUE(t.Insert(Id(1), {11.5f, 10}, 1).ok());  // overlaps 0
  ASSERT_TRUE(t.Insert(Id(2), {60, 60}, 5).ok());
  ASSERT_TRUE(t.Insert(Id(3), {69, 60}, 4).ok());  // touches 2 exactly
  ASSERT_TRUE(t.Insert(Id(4), {90, 90}, 0).ok());
  QueryResults r;
  t.QueryNearest({59, 59}, 2, kInf, {}, &r);
  EXPECT_EQ(Raw(r.ids), (std::vector<uint32_t>{2, 3}));
  t.QueryNearest({59, 59}, 10, 20, {}, &r);
  EXPECT_EQ(Raw(r.ids), (std::vector<uint32_t>{2, 3}));
  t.QueryNearest({59, 59}, 10, 20, {.exclude = Id(2)}, &r);
  EXPECT_EQ(Raw(r.ids), (std::vector<uint32_t>{3}));
  std::vector<std::pair<EntityId, EntityId>> pairs;
  const QueryStats s = t.QueryPairs(&pairs);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0], std::pair(Id(0), Id(1)));
  EXPECT_EQ(pairs[1], std::pair(Id(2), Id(3)));
  EXPECT_EQ(s.hits, 2u);
}

TEST(Quadtree, NonFiniteQueriesMatchNothing) {
  Quadtree t(SmallConfig());
  ASSERT_TRUE(t.Insert(Id(0), {10, 10}, 1).ok());
  QueryResults r;
  t.QueryCircle({{kNaN, 10}, 5}, {}, QueryOrder::kAny, &r);
  EXPECT_TRUE(r.ids.empty());
  t.QueryCircle({{10, 10}, kInf}, {}, QueryOrder::kAny, &r);
  EXPECT_TRUE(r.ids.empty());
  t.QuerySector({{10, 10}, kNaN, 1, 5}, {}, QueryOrder::kAny, &r);  // facing NaN -> 0
  EXPECT_EQ(r.ids.size(), 1u);
  t.QueryCapsule({{10, 10}, {kInf, 10}, 1}, {}, QueryOrder::kAny, &r);
  EXPECT_TRUE(r.ids.empty());
  t.QueryNearest({10, 10}, 1, kNaN, {}, &r);
  EXPECT_TRUE(r.ids.empty());
  t.QueryCircle({{10, 10}, -5}, {}, QueryOrder::kAny, &r);  // negative radius
  EXPECT_TRUE(r.ids.empty());
  t.QueryCapsule({{10, 10}, {12, 10}, -1}, {}, QueryOrder::kAny, &r);
  EXPECT_TRUE(r.ids.empty());
  t.QueryAabb({{12, 12}, {8, 8}}, {}, QueryOrder::kAny, &r);  // min > max
  EXPECT_TRUE(r.ids.empty());
}

// Sorted (distance^2, raw id) pairs of QueryCircleKeys' keys, for readable expectations.
std::vector<std::pair<float, uint32_t>> Decode(std::vector<RankKey> keys) {
  std::sort(keys.begin(), keys.end());
  std::vector<std::pair<float, uint32_t>> out;
  for (const RankKey k : keys) out.emplace_back(KeyDistanceSq(k), KeyRawId(k));
  return out;
}

TEST(Quadtree, CircleKeysRankCentresByDistanceThenId) {
  Quadtree t(SmallConfig());
  ASSERT_TRUE(t.Insert(Id(0), {50, 50}, 0).ok());      // the viewer
  ASSERT_TRUE(t.Insert(Id(1, 3), {53, 50}, 2).ok());   // d^2 9 (hitbox ignored)
  ASSERT_TRUE(t.Insert(Id(2), {50, 47}, 0).ok());      // d^2 9: same distance, smaller raw id
  ASSERT_TRUE(t.Insert(Id(3), {54, 53}, 0, 2).ok());   // d^2 25: exactly on the radius
  ASSERT_TRUE(t.Insert(Id(4), {55, 50.5f}, 10).ok());  // just beyond: its hitbox does not count
  ASSERT_TRUE(t.Insert(Id(5), {50, 50}, 0, 2).ok());   // d^2 0
  std::vector<RankKey> keys;
  QueryStats stats;
  t.QueryCircleKeys({50, 50}, 5, {.exclude = Id(0)}, &keys, &stats);
  const uint32_t id1 = ToRaw(Id(1, 3)), id2 = ToRaw(Id(2));
  ASSERT_LT(id2, id1);
  EXPECT_EQ(Decode(keys),
            (std::vector<std::pair<float, uint32_t>>{
                {0.0f, ToRaw(Id(5))}, {9.0f, id2}, {9.0f, id1}, {25.0f, ToRaw(Id(3))}}));
  // The keys themselves order that way too (distance-then-id in one integer compare).
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(KeyRawId(keys[1]), id2);
  EXPECT_EQ(stats.hits, 4u);
  EXPECT_GE(stats.candidates, 5u);
  // Appends: what the buffer held stays; the mask filter applies.
  keys.assign(1, 42);
  t.QueryCircleKeys({50, 50}, 5, {.mask = 2}, &keys, &stats);
  ASSERT_EQ(keys.size(), 3u);
  EXPECT_EQ(keys[0], 42u);
  keys.erase(keys.begin());
  EXPECT_EQ(Decode(keys),
            (std::vector<std::pair<float, uint32_t>>{{0.0f, ToRaw(Id(5))}, {25.0f, ToRaw(Id(3))}}));
  EXPECT_EQ(stats.hits, 2u);
  // Radius 0: only centres exactly at the point.
  keys.clear();
  t.QueryCircleKeys({50, 50}, 0, {}, &keys);
  EXPECT_EQ(Decode(keys),
            (std::vector<std::pair<float, uint32_t>>{{0.0f, ToRaw(Id(0))}, {0.0f, ToRaw(Id(5))}}));
  // NaN, negative or infinite radius, or a non-finite centre: nothing, and no work.
  for (const float bad : {kNaN, -1.0f, -0.001f, kInf}) {
    keys.clear();
    t.QueryCircleKeys({50, 50}, bad, {}, &keys, &stats);
    EXPECT_TRUE(keys.empty()) << bad;
    EXPECT_EQ(stats.candidates, 0u) << bad;
  }
  t.QueryCircleKeys({kNaN, 50}, 5, {}, &keys);
  t.QueryCircleKeys({50, kInf}, 5, {}, &keys);
  EXPECT_TRUE(keys.empty());
}

TEST(Quadtree, QueriesDoNotAllocateOnceWarm) {
  Quadtree t(SmallConfig());
  for (uint32_t i = 0; i < 500; ++i) {
    const uint32_t column = i % 25, row = i / 25;
    ASSERT_TRUE(
        t.Insert(Id(i), {static_cast<float>(column) * 4, static_cast<float>(row) * 5}, 0.5f).ok());
  }
  QueryResults r;
  t.QueryCircle({{50, 50}, 100}, {}, QueryOrder::kByDistance, &r);  // warm: the largest result
  t.QueryNearest({50, 50}, 500, kInf, {}, &r);
  std::vector<RankKey> keys;
  t.QueryCircleKeys({50, 50}, 100, {}, &keys);
  const auto* ids = r.ids.data();
  const size_t cap = r.ids.capacity();
  const auto* key_data = keys.data();
  for (int i = 0; i < 100; ++i) {
    t.QueryCircle({{static_cast<float>(i), 50}, 20}, {}, QueryOrder::kByDistance, &r);
    t.QuerySector({{50, static_cast<float>(i)}, static_cast<float>(i), 1, 30}, {},
                  QueryOrder::kById, &r);
    t.QueryNearest({static_cast<float>(i), 10}, 20, kInf, {}, &r);
    keys.clear();
    t.QueryCircleKeys({static_cast<float>(i), 50}, 20, {}, &keys);
  }
  EXPECT_EQ(r.ids.data(), ids);
  EXPECT_EQ(r.ids.capacity(), cap);
  EXPECT_EQ(keys.data(), key_data);
}

TEST(Quadtree, MovedFromResultsAreEmptyAndReusable) {
  Quadtree t(SmallConfig());
  ASSERT_TRUE(t.Insert(Id(0), {10, 10}, 1).ok());
  QueryResults a;
  t.QueryCircle({{10, 10}, 5}, {}, QueryOrder::kAny, &a);
  QueryResults b = std::move(a);
  EXPECT_EQ(b.ids.size(), 1u);
  EXPECT_EQ(a.ids.size(), 0u);  // NOLINT(bugprone-use-after-move): reuse after move is allowed
  t.QueryCircle({{10, 10}, 5}, {}, QueryOrder::kAny, &a);
  EXPECT_EQ(a.ids.size(), 1u);
}

TEST(Quadtree, ClearKeepsWorking) {
  Quadtree t(SmallConfig());
  for (uint32_t i = 0; i < 100; ++i)
    ASSERT_TRUE(t.Insert(Id(i), {static_cast<float>(i), static_cast<float>(i)}, 0).ok());
  t.Clear();
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.Stats().nodes, 1u);
  EXPECT_FALSE(t.Contains(Id(5)));
  EXPECT_EQ(t.Remove(Id(5)).code(), StatusCode::kNotFound);
  ASSERT_TRUE(t.Insert(Id(5), {5, 5}, 0).ok());
  EXPECT_EQ(t.CheckInvariants(), "");
}

TEST(Quadtree, ExportNodesCoversTheWorld) {
  Quadtree t(SmallConfig());
  for (uint32_t i = 0; i < 64; ++i) {
    ASSERT_TRUE(
        t.Insert(Id(i), {1.5f * static_cast<float>(i), 100.0f - 1.5f * static_cast<float>(i)}, 0)
            .ok());
  }
  std::vector<NodeInfo> nodes;
  t.ExportNodes(&nodes);
  ASSERT_FALSE(nodes.empty());
  EXPECT_EQ(nodes[0].count, 64u);
  EXPECT_EQ(nodes[0].depth, 0u);
  double leaf_area = 0;
  uint32_t leaf_count = 0;
  for (const NodeInfo& n : nodes) {
    if (!n.leaf) continue;
    leaf_area += static_cast<double>(n.rect.Width()) * n.rect.Height();
    leaf_count += n.count;
  }
  EXPECT_DOUBLE_EQ(leaf_area, 100.0 * 100.0);
  EXPECT_EQ(leaf_count, 64u);
  EXPECT_EQ(nodes.size(), t.Stats().nodes);
}

}  // namespace
}  // namespace zs::spatial
