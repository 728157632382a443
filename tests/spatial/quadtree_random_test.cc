// Differential tests: thousands of random operation sequences on a Quadtree and on the
// BruteForceIndex oracle, every query kind compared after mutations, invariants checked after
// every operation. Each sequence has a fixed seed, printed on failure (SCOPED_TRACE).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "spatial/brute_force_index.h"
#include "spatial/quadtree.h"

namespace zs::spatial {
namespace {

enum class Layout {
  kUniform,     // anywhere in the world
  kClustered,   // Gaussian blobs
  kOnePoint,    // everything at one spot
  kSplitLines,  // exactly on the quadtree's split lines
  kEdges,       // on the world's edges and corners
  kHugeRadius,  // some hitboxes larger than the world
};

const char* LayoutName(Layout l) {
  switch (l) {
    case Layout::kUniform:
      return "uniform";
    case Layout::kClustered:
      return "clustered";
    case Layout::kOnePoint:
      return "one_point";
    case Layout::kSplitLines:
      return "split_lines";
    case Layout::kEdges:
      return "edges";
    case Layout::kHugeRadius:
      return "huge_radius";
  }
  return "?";
}

class Sequence {
 public:
  Sequence(Layout layout, uint32_t seed) : layout_(layout), rng_(seed) {
    QuadtreeConfig c;
    // Power-of-two bounds make split lines exact floats for kSplitLines; other layouts use an
    // awkward world so the float midpoints are not round numbers.
    c.bounds = layout == Layout::kSplitLines ? Aabb{{0, 0}, {256, 256}}
                                             : Aabb{{-37.25f, 11.5f}, {263.0f, 190.75f}};
    c.leaf_capacity = 1 + static_cast<uint32_t>(Next() % 8);
    c.max_depth = 2 + static_cast<uint32_t>(Next() % 6);
    tree_ = std::make_unique<Quadtree>(c);
    bounds_ = c.bounds;
    blob_ = {Uniform(bounds_.min.x, bounds_.max.x), Uniform(bounds_.min.y, bounds_.max.y)};
    one_point_ = blob_;
    generation_.assign(64, 0);
    live_.assign(64, false);
  }

  void Run(int steps) {
    for (int step = 0; step < steps && !::testing::Test::HasFailure(); ++step) {
      const uint32_t op = Next() % 100;
      if (op < 30) {
        DoInsert();
      } else if (op < 45) {
        DoRemove();
      } else if (op < 75) {
        DoMove();
      } else if (op < 77) {
        tree_->Clear();
        oracle_.Clear();
        for (size_t i = 0; i < live_.size(); ++i) {
          if (live_[i]) ++generation_[i];
          live_[i] = false;
        }
      } else if (op < 80) {
        DoStaleOps();
      } else {
        DoQuery();
      }
      const std::string broken = tree_->CheckInvariants();
      ASSERT_EQ(broken, "") << "after step " << step;
      ASSERT_EQ(tree_->size(), oracle_.size());
    }
    DoQuery();
    for (int i = 0; i < 20; ++i) DoQuery();
  }

 private:
  uint32_t Next() { return static_cast<uint32_t>(rng_()); }
  float Uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng_); }

  Vec2 Position() {
    const Vec2 lo = bounds_.min;
    const Vec2 hi = bounds_.max;
    switch (layout_) {
      case Layout::kUniform:
      case Layout::kHugeRadius:
        return {Uniform(lo.x, hi.x), Uniform(lo.y, hi.y)};
      case Layout::kClustered: {
        std::normal_distribution<float> n(0.0f, 6.0f);
        return {std::clamp(blob_.x + n(rng_), lo.x, hi.x),
                std::clamp(blob_.y + n(rng_), lo.y, hi.y)};
      }
      case Layout::kOnePoint:
        return Next() % 8 == 0 ? Vec2{Uniform(lo.x, hi.x), Uniform(lo.y, hi.y)} : one_point_;
      case Layout::kSplitLines: {
        // Multiples of 256 / 2^k: every split line of every depth, including the edges.
        const uint32_t k = Next() % 7;
        const uint32_t cells = 1u << k;
        const auto at = [&] {
          return 256.0f * static_cast<float>(Next() % (cells + 1)) / static_cast<float>(cells);
        };
        return {at(), at()};
      }
      case Layout::kEdges: {
        const float xs[] = {lo.x, hi.x, Uniform(lo.x, hi.x)};
        const float ys[] = {lo.y, hi.y, Uniform(lo.y, hi.y)};
        return {xs[Next() % 3], ys[Next() % 3]};
      }
    }
    return lo;
  }

  float Radius() {
    switch (Next() % 6) {
      case 0:
        return 0.0f;
      case 1:
        return layout_ == Layout::kHugeRadius ? Uniform(300.0f, 2000.0f) : 0.5f;
      default:
        return Uniform(0.0f, 4.0f);
    }
  }

  EntityId IdOf(size_t index) const {
    return MakeEntityId(static_cast<uint32_t>(index), generation_[index]);
  }

  int RandomLive() {
    std::vector<int> live;
    for (size_t i = 0; i < live_.size(); ++i) {
      if (live_[i]) live.push_back(static_cast<int>(i));
    }
    return live.empty() ? -1 : live[Next() % live.size()];
  }

  void DoInsert() {
    const size_t index = Next() % live_.size();
    const Vec2 p = Position();
    const float r = Radius();
    const uint32_t mask = 1u << (Next() % 3);
    const Status s = tree_->Insert(IdOf(index), p, r, mask);
    if (live_[index]) {
      ASSERT_EQ(s.code(), StatusCode::kAlreadyExists);
      return;
    }
    ASSERT_TRUE(s.ok()) << s.message();
    oracle_.Insert(IdOf(index), p, r, mask);
    live_[index] = true;
  }

  void DoRemove() {
    const int index = RandomLive();
    if (index < 0) return;
    ASSERT_TRUE(tree_->Remove(IdOf(index)).ok());
    oracle_.Remove(IdOf(index));
    live_[index] = false;
    ++generation_[index];
  }

  void DoMove() {
    const int index = RandomLive();
    if (index < 0) return;
    Vec2 p;
    ASSERT_TRUE(tree_->GetPosition(IdOf(index), &p));
    if (Next() % 2 == 0) {  // a small step, reflected into the world
      p = {std::clamp(p.x + Uniform(-5, 5), bounds_.min.x, bounds_.max.x),
           std::clamp(p.y + Uniform(-5, 5), bounds_.min.y, bounds_.max.y)};
    } else {
      p = Position();
    }
    ASSERT_TRUE(tree_->Move(IdOf(index), p).ok());
    oracle_.Move(IdOf(index), p);
  }

  void DoStaleOps() {
    const size_t index = Next() % live_.size();
    const EntityId stale = MakeEntityId(static_cast<uint32_t>(index), generation_[index] + 1);
    EXPECT_EQ(tree_->Move(stale, Position()).code(), StatusCode::kNotFound);
    EXPECT_EQ(tree_->Remove(stale).code(), StatusCode::kNotFound);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    if (live_[index]) {
      EXPECT_EQ(tree_->Move(IdOf(index), {nan, 0}).code(), StatusCode::kOutOfBounds);
      EXPECT_EQ(tree_->Move(IdOf(index), {bounds_.max.x + 1, bounds_.min.y}).code(),
                StatusCode::kOutOfBounds);
    }
  }

  QueryFilter Filter() {
    QueryFilter f;
    if (Next() % 3 == 0) f.mask = 1u + Next() % 7;
    if (Next() % 3 == 0) {
      const int index = RandomLive();
      if (index >= 0) f.exclude = IdOf(index);
    }
    return f;
  }

  float Angle() {
    const float special[] = {0.0f, kPi, -kPi, kPi / 2, 3 * kPi, -7 * kPi / 2, 100.0f};
    return Next() % 3 == 0 ? special[Next() % 7] : Uniform(-10.0f, 10.0f);
  }

  float HalfAngle() {
    const float special[] = {0.0f, kPi / 2, kPi, 4.0f, -1.0f};
    return Next() % 2 == 0 ? special[Next() % 5] : Uniform(0.0f, kPi);
  }

  float QueryRadius() {
    switch (Next() % 5) {
      case 4:
        return -Uniform(0.0f, 5.0f);  // negative: matches nothing
      case 0:
        return 0.0f;
      case 1:
        return Uniform(0.0f, 5.0f);
      case 2:
        return Uniform(0.0f, 60.0f);
      default:
        return Uniform(0.0f, 500.0f);  // larger than the world
    }
  }

  Vec2 QueryPoint() {
    // Mostly near entities or inside the world; sometimes outside it.
    const int index = RandomLive();
    Vec2 p;
    if (index >= 0 && Next() % 2 == 0 && tree_->GetPosition(IdOf(index), &p)) return p;
    return {Uniform(bounds_.min.x - 50, bounds_.max.x + 50),
            Uniform(bounds_.min.y - 50, bounds_.max.y + 50)};
  }

  static std::vector<uint32_t> Raw(const std::vector<EntityId>& ids) {
    std::vector<uint32_t> out;
    for (EntityId id : ids) out.push_back(ToRaw(id));
    return out;
  }

  void Compare(const char* what, QueryOrder order, const std::vector<EntityId>& want) {
    std::vector<EntityId> got = results_.ids.ToVector();
    if (order == QueryOrder::kAny) {
      std::sort(got.begin(), got.end(), [](EntityId a, EntityId b) { return ToRaw(a) < ToRaw(b); });
    }
    ASSERT_EQ(Raw(got), Raw(want)) << what;
    ASSERT_EQ(results_.stats.hits, got.size()) << what;
    ASSERT_GE(results_.stats.candidates, results_.stats.hits) << what;
  }

  // The ranking query over the same circle (centres only), keys sorted, against the oracle.
  void CompareKeys(const Circle& c, const QueryFilter& f) {
    keys_.clear();
    QueryStats stats;
    tree_->QueryCircleKeys(c.center, c.radius, f, &keys_, &stats);
    std::sort(keys_.begin(), keys_.end());
    ASSERT_EQ(keys_, oracle_.QueryCircleKeys(c.center, c.radius, f)) << "circle keys";
    ASSERT_EQ(stats.hits, keys_.size()) << "circle keys";
    ASSERT_GE(stats.candidates, stats.hits) << "circle keys";
    if (keys_.empty()) return;
    // Again with the farthest hit on the radius (exactly, whenever sqrt round-trips).
    const float r = std::sqrt(KeyDistanceSq(keys_.back()));
    keys_.clear();
    tree_->QueryCircleKeys(c.center, r, f, &keys_);
    std::sort(keys_.begin(), keys_.end());
    ASSERT_EQ(keys_, oracle_.QueryCircleKeys(c.center, r, f)) << "circle keys on the radius";
  }

  void DoQuery() {
    const QueryFilter f = Filter();
    const auto order = static_cast<QueryOrder>(Next() % 3);
    const QueryOrder oracle_order = order == QueryOrder::kAny ? QueryOrder::kById : order;
    switch (Next() % 6) {
      case 0: {
        const Circle c{QueryPoint(), QueryRadius()};
        tree_->QueryCircle(c, f, order, &results_);
        Compare("circle", order, oracle_.QueryCircle(c, f, oracle_order));
        CompareKeys(c, f);
        break;
      }
      case 1: {
        const Vec2 a = QueryPoint();
        const Aabb box{a, {a.x + QueryRadius(), a.y + QueryRadius()}};
        tree_->QueryAabb(box, f, order, &results_);
        Compare("aabb", order, oracle_.QueryAabb(box, f, oracle_order));
        break;
      }
      case 2: {
        const Sector s{QueryPoint(), Angle(), HalfAngle(), QueryRadius()};
        tree_->QuerySector(s, f, order, &results_);
        Compare("sector", order, oracle_.QuerySector(s, f, oracle_order));
        break;
      }
      case 3: {
        const Vec2 a = QueryPoint();
        const Vec2 b = Next() % 4 == 0 ? a : a + FromAngle(Angle()) * QueryRadius();
        const Capsule c{a, b, Next() % 3 == 0 ? 0.0f : Uniform(0.0f, 10.0f)};
        tree_->QueryCapsule(c, f, order, &results_);
        Compare("capsule", order, oracle_.QueryCapsule(c, f, oracle_order));
        break;
      }
      case 4: {
        const Vec2 p = QueryPoint();
        const uint32_t k = Next() % 12;
        const float max_d =
            Next() % 3 == 0 ? std::numeric_limits<float>::infinity() : QueryRadius();
        tree_->QueryNearest(p, k, max_d, f, &results_);
        Compare("nearest", QueryOrder::kByDistance, oracle_.QueryNearest(p, k, max_d, f));
        break;
      }
      default: {
        std::vector<std::pair<EntityId, EntityId>> got;
        const QueryStats s = tree_->QueryPairs(&got);
        const auto want = oracle_.QueryPairs();
        ASSERT_EQ(got, want) << "pairs";
        ASSERT_EQ(s.hits, got.size());
        break;
      }
    }
  }

  Layout layout_;
  std::mt19937 rng_;
  std::unique_ptr<Quadtree> tree_;
  BruteForceIndex oracle_;
  Aabb bounds_;
  Vec2 blob_;
  Vec2 one_point_;
  std::vector<uint32_t> generation_;
  std::vector<bool> live_;
  QueryResults results_;
  std::vector<RankKey> keys_;
};

class QuadtreeDifferential : public ::testing::TestWithParam<Layout> {};

TEST_P(QuadtreeDifferential, MatchesBruteForce) {
  // 400 sequences of 300 operations per layout; 2400 sequences in all.
  for (uint32_t seed = 1; seed <= 400 && !HasFailure(); ++seed) {
    SCOPED_TRACE(std::string("layout=") + LayoutName(GetParam()) + " seed=" + std::to_string(seed));
    Sequence(GetParam(), seed * 7919u + static_cast<uint32_t>(GetParam())).Run(300);
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, QuadtreeDifferential,
                         ::testing::Values(Layout::kUniform, Layout::kClustered, Layout::kOnePoint,
                                           Layout::kSplitLines, Layout::kEdges,
                                           Layout::kHugeRadius),
                         [](const auto& param_info) {
                           return std::string(LayoutName(param_info.param));
                         });

// A larger population (thousands of entities, deep trees) with fewer operations.
TEST(QuadtreeDifferentialLarge, ThousandsOfMovingEntities) {
  std::mt19937 rng(424242);
  QuadtreeConfig c;
  c.bounds = {{0, 0}, {1000, 1000}};
  Quadtree tree(c);
  BruteForceIndex oracle;
  std::uniform_real_distribution<float> u(0, 1000);
  for (uint32_t i = 0; i < 3000; ++i) {
    const Vec2 p{u(rng), u(rng)};
    ASSERT_TRUE(tree.Insert(MakeEntityId(i, 0), p, 0.5f, 1u << (i % 2)).ok());
    oracle.Insert(MakeEntityId(i, 0), p, 0.5f, 1u << (i % 2));
  }
  QueryResults r;
  std::vector<RankKey> keys;
  std::uniform_real_distribution<float> step(-8, 8);
  for (int tick = 0; tick < 30; ++tick) {
    for (const auto& e : std::vector(oracle.entities())) {
      const Vec2 p{std::clamp(e.center.x + step(rng), 0.0f, 1000.0f),
                   std::clamp(e.center.y + step(rng), 0.0f, 1000.0f)};
      ASSERT_TRUE(tree.Move(e.id, p).ok());
      oracle.Move(e.id, p);
    }
    ASSERT_EQ(tree.CheckInvariants(), "") << "tick " << tick;
    for (int q = 0; q < 20; ++q) {
      const Circle circle{{u(rng), u(rng)}, u(rng) / 4};
      tree.QueryCircle(circle, {.mask = 2}, QueryOrder::kByDistance, &r);
      ASSERT_EQ(r.ids.ToVector(), oracle.QueryCircle(circle, {.mask = 2}, QueryOrder::kByDistance));
      const QueryFilter f{.exclude = MakeEntityId(static_cast<uint32_t>(q), 0)};
      keys.clear();
      tree.QueryCircleKeys(circle.center, circle.radius, f, &keys);
      std::sort(keys.begin(), keys.end());
      ASSERT_EQ(keys, oracle.QueryCircleKeys(circle.center, circle.radius, f)) << "tick " << tick;
    }
  }
}

}  // namespace
}  // namespace zs::spatial
