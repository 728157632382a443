// Fuzz target: the Quadtree driven by arbitrary operation sequences, checked against the
// BruteForceIndex oracle (the differential test of tests/spatial/quadtree_random_test.cc, with
// libFuzzer choosing the world, the tree's shape and every operation and value).
//
// Input: a few bytes choose the bounds (presets, far from the origin, or raw floats that pass
// ValidateConfig), leaf_capacity and max_depth; the rest is a sequence of operations on up to
// kSlots entity slots: insert, remove, move (small steps, jumps, exactly onto split lines and
// world edges, NaN, outside), set mask, clear, stale and bad-argument calls, and queries of every
// kind (circle, rectangle, sector, capsule, nearest, circle keys, pairs) with fuzzed shapes.
//
// Properties (each __builtin_trap() when broken):
//   - every mutation returns exactly the status the contract names, and a refused one leaves the
//     tree unchanged;
//   - after every operation CheckInvariants() is empty, size(), Contains() and GetPosition()
//     agree with the oracle, and a fixed set of queries (everything in the world by distance,
//     the bounds rectangle, all pairs) matches it;
//   - every fuzzed query returns exactly the oracle's ids (in the requested order; kAny sorted),
//     stats.hits equals the result size and candidates >= hits; a circle query also gets the
//     same ids and rank keys from a LinearQuadtree (bench/linear: the benchmarks' index) rebuilt
//     from the oracle's contents.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "bench/linear/linear_quadtree.h"
#include "spatial/brute_force_index.h"
#include "spatial/quadtree.h"

namespace zs::spatial {
namespace {

constexpr size_t kSlots = 48;
constexpr int kMaxOps = 128;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

void Require(bool ok) {
  if (!ok) __builtin_trap();
}

class Driver {
 public:
  explicit Driver(FuzzedDataProvider* in) : in_(*in) {}

  void Run() {
    tree_ = std::make_unique<Quadtree>(ChooseConfig());
    bounds_ = tree_->config().bounds;
    for (int op = 0; op < kMaxOps && in_.remaining_bytes() > 0; ++op) {
      Step();
      CheckState();
    }
  }

 private:
  // ---- the tree's configuration ----

  QuadtreeConfig ChooseConfig() {
    QuadtreeConfig c;
    c.leaf_capacity = in_.ConsumeIntegralInRange<uint32_t>(1, 40);
    c.max_depth = in_.ConsumeIntegralInRange<uint32_t>(0, 20);
    static constexpr std::array<Aabb, 6> kPresets{{
        {{0, 0}, {256, 256}},                   // power of two: exact split lines
        {{-37.25f, 11.5f}, {263.0f, 190.75f}},  // awkward midpoints
        {{0, 0}, {1, 1}},                       // tiny
        {{0, 0}, {4096, 4096}},                 // a large field
        {{-1e6f, -1e6f}, {1e6f, 1e6f}},         // the largest the config loader accepts
        {{99000, -500}, {99300, -200}},         // far from the origin: coarse floats
    }};
    const size_t pick = in_.ConsumeIntegralInRange<size_t>(0, kPresets.size());
    if (pick < kPresets.size()) {
      c.bounds = kPresets[pick];
    } else {  // raw bounds, within what a zone file can say
      const float x = in_.ConsumeFloatingPointInRange(-1e6f, 1e6f);
      const float y = in_.ConsumeFloatingPointInRange(-1e6f, 1e6f);
      const float w = in_.ConsumeFloatingPointInRange(1e-3f, 2e6f);
      const float h = in_.ConsumeFloatingPointInRange(1e-3f, 2e6f);
      c.bounds = {{x, y}, {x + w, y + h}};
    }
    if (!Quadtree::ValidateConfig(c).ok()) c.max_depth = 0;
    if (!Quadtree::ValidateConfig(c).ok()) c.bounds = kPresets[0];
    Require(Quadtree::ValidateConfig(c).ok());
    return c;
  }

  // ---- values ----

  // A coordinate on one axis of [lo, hi]: mostly inside, often exactly on a split line or an
  // edge, sometimes next to a live entity, outside, or not finite.
  float Coord(float lo, float hi, bool x_axis) {
    switch (in_.ConsumeIntegralInRange(0, 9)) {
      case 0: {  // a split line of some depth (exact for power-of-two worlds), edges included
        const int depth = in_.ConsumeIntegralInRange(0, 12);
        const auto cells = static_cast<uint32_t>(1u << depth);
        const auto k = in_.ConsumeIntegralInRange<uint32_t>(0, cells);
        return lo + (hi - lo) * static_cast<float>(k) / static_cast<float>(cells);
      }
      case 1:
        return in_.ConsumeBool() ? lo : hi;
      case 2: {  // one float step beside an edge or a midpoint, inside or out
        const float mid = lo + (hi - lo) * 0.5f;
        const float base = std::array{lo, hi, mid}[in_.ConsumeIntegralInRange(0, 2)];
        return std::nextafter(base, in_.ConsumeBool() ? kInf : -kInf);
      }
      case 3: {  // next to a live entity
        Vec2 p;
        const int index = RandomLive();
        if (index >= 0 && tree_->GetPosition(IdOf(index), &p)) {
          return (x_axis ? p.x : p.y) + in_.ConsumeFloatingPointInRange(-3.0f, 3.0f);
        }
        return lo;
      }
      case 4:
        return std::array{kNaN, kInf, -kInf}[in_.ConsumeIntegralInRange(0, 2)];
      case 5:  // outside, up to a world size away
        return in_.ConsumeBool() ? lo - (hi - lo) * in_.ConsumeProbability<float>()
                                 : hi + (hi - lo) * in_.ConsumeProbability<float>();
      default:
        return lo + (hi - lo) * in_.ConsumeProbability<float>();
    }
  }

  Vec2 Point() {
    return {Coord(bounds_.min.x, bounds_.max.x, true), Coord(bounds_.min.y, bounds_.max.y, false)};
  }

  // A hitbox or query radius: zero, small, up to several world sizes, or bad.
  float Radius() {
    const float world = std::max(bounds_.Width(), bounds_.Height());
    switch (in_.ConsumeIntegralInRange(0, 7)) {
      case 0:
        return 0.0f;
      case 1:
        return in_.ConsumeFloatingPointInRange(0.0f, 1.0f);
      case 2:
        return world * in_.ConsumeFloatingPointInRange(0.0f, 3.0f);
      case 3:
        return std::array{-1.0f, -0.0f, kNaN, kInf}[in_.ConsumeIntegralInRange(0, 3)];
      default:
        return in_.ConsumeFloatingPointInRange(0.0f, 8.0f);
    }
  }

  float Angle() {
    if (in_.ConsumeBool()) {
      return std::array{0.0f, kPi, -kPi, kPi / 2, 3 * kPi, -7 * kPi / 2, 100.0f, kNaN, kInf}
          [in_.ConsumeIntegralInRange(0, 8)];
    }
    return in_.ConsumeFloatingPointInRange(-10.0f, 10.0f);
  }

  QueryFilter Filter() {
    QueryFilter f;
    if (in_.ConsumeBool()) f.mask = in_.ConsumeIntegral<uint32_t>();
    if (in_.ConsumeBool()) {
      const int index = RandomLive();
      f.exclude = index >= 0 ? IdOf(index) : MakeEntityId(in_.ConsumeIntegral<uint32_t>(), 0);
    }
    return f;
  }

  EntityId IdOf(size_t index) const {
    return MakeEntityId(static_cast<uint32_t>(index), generation_[index]);
  }
  int RandomLive() {
    std::vector<int> live;
    for (size_t i = 0; i < kSlots; ++i) {
      if (live_[i]) live.push_back(static_cast<int>(i));
    }
    if (live.empty()) return -1;
    return live[in_.ConsumeIntegralInRange<size_t>(0, live.size() - 1)];
  }

  // ---- operations ----

  void Step() {
    switch (in_.ConsumeIntegralInRange(0, 9)) {
      case 0:
      case 1:
        return Insert();
      case 2:
        return Remove();
      case 3:
      case 4:
        return Move();
      case 5:
        return SetMask();
      case 6:
        return in_.ConsumeIntegralInRange(0, 7) == 0 ? Clear() : BadCalls();
      default:
        return Query();
    }
  }

  static bool Inside(const Aabb& b, Vec2 p) { return IsFinite(p) && b.Contains(p); }

  void Insert() {
    const auto index = in_.ConsumeIntegralInRange<size_t>(0, kSlots - 1);
    const Vec2 p = Point();
    const float r = Radius();
    const uint32_t mask = in_.ConsumeBool() ? 1u << in_.ConsumeIntegralInRange(0, 3)
                                            : in_.ConsumeIntegral<uint32_t>();
    const Status s = tree_->Insert(IdOf(index), p, r, mask);
    StatusCode want = StatusCode::kOk;
    if (!std::isfinite(r) || r < 0.0f) {
      want = StatusCode::kInvalidArgument;
    } else if (!Inside(bounds_, p)) {
      want = StatusCode::kOutOfBounds;
    } else if (live_[index]) {
      want = StatusCode::kAlreadyExists;
    }
    Require(s.code() == want);
    if (!s.ok()) return;
    oracle_.Insert(IdOf(index), p, r, mask);
    live_[index] = true;
  }

  void Remove() {
    const int index = RandomLive();
    if (index < 0) return;
    Require(tree_->Remove(IdOf(index)).ok());
    oracle_.Remove(IdOf(index));
    live_[index] = false;
    ++generation_[index];
  }

  void Move() {
    const int index = RandomLive();
    if (index < 0) return;
    Vec2 p;
    Require(tree_->GetPosition(IdOf(index), &p));
    if (in_.ConsumeBool()) {  // a small step
      p = {p.x + in_.ConsumeFloatingPointInRange(-4.0f, 4.0f),
           p.y + in_.ConsumeFloatingPointInRange(-4.0f, 4.0f)};
    } else {
      p = Point();
    }
    const Status s = tree_->Move(IdOf(index), p);
    Require(s.code() == (Inside(bounds_, p) ? StatusCode::kOk : StatusCode::kOutOfBounds));
    if (s.ok()) oracle_.Move(IdOf(index), p);
  }

  void SetMask() {
    const int index = RandomLive();
    if (index < 0) return;
    const uint32_t mask = in_.ConsumeIntegral<uint32_t>();
    Require(tree_->SetMask(IdOf(index), mask).ok());
    // The oracle has no SetMask: remove and insert again with the new mask.
    for (const auto& e : oracle_.entities()) {
      if (e.id == IdOf(index)) {
        const BruteForceIndex::Entity copy = e;
        oracle_.Remove(copy.id);
        oracle_.Insert(copy.id, copy.center, copy.radius, mask);
        break;
      }
    }
  }

  void Clear() {
    tree_->Clear();
    oracle_.Clear();
    for (size_t i = 0; i < kSlots; ++i) {
      if (live_[i]) ++generation_[i];
      live_[i] = false;
    }
  }

  // Stale ids, ids never issued, the invalid id, bad positions: refused, nothing changes.
  void BadCalls() {
    const auto index = in_.ConsumeIntegralInRange<size_t>(0, kSlots - 1);
    const EntityId stale = MakeEntityId(static_cast<uint32_t>(index), generation_[index] + 1);
    const Vec2 inside = bounds_.min;
    Require(tree_->Move(stale, inside).code() == StatusCode::kNotFound);
    Require(tree_->Remove(stale).code() == StatusCode::kNotFound);
    Require(tree_->SetMask(stale, 1).code() == StatusCode::kNotFound);
    Require(!tree_->Contains(stale));
    Require(tree_->Remove(kInvalidEntity).code() == StatusCode::kNotFound);
    Require(tree_->Insert(kInvalidEntity, inside, 0.0f).code() == StatusCode::kInvalidArgument);
    const EntityId far = MakeEntityId(kMaxEntityIndex - 1, 0);  // beyond the id table
    Require(tree_->Remove(far).code() == StatusCode::kNotFound);
    if (live_[index]) {
      Require(tree_->Move(IdOf(index), {kNaN, inside.y}).code() == StatusCode::kOutOfBounds);
      Require(tree_->Insert(IdOf(index), inside, -1.0f).code() == StatusCode::kInvalidArgument);
    }
  }

  // ---- queries ----

  static std::vector<uint32_t> Raw(const std::vector<EntityId>& ids, bool sort) {
    std::vector<uint32_t> out;
    out.reserve(ids.size());
    for (EntityId id : ids) out.push_back(ToRaw(id));
    if (sort) std::sort(out.begin(), out.end());
    return out;
  }

  // The query about to run, for DumpMismatch.
  __attribute__((format(printf, 2, 3))) void Describe(const char* format, ...) {
    va_list args;
    va_start(args, format);
    std::vsnprintf(query_, sizeof query_, format, args);
    va_end(args);
  }

  // What a failing comparison prints before the trap, to make a finding readable.
  void DumpMismatch(const std::vector<uint32_t>& got, const std::vector<uint32_t>& want) const {
    std::fprintf(stderr, "query mismatch: %s\n tree:", query_);
    for (uint32_t id : got) std::fprintf(stderr, " %u", id);
    std::fprintf(stderr, "\n want:");
    for (uint32_t id : want) std::fprintf(stderr, " %u", id);
    std::fprintf(stderr, "\n bounds (%.9g %.9g)-(%.9g %.9g) leaf_capacity %u max_depth %u\n",
                 bounds_.min.x, bounds_.min.y, bounds_.max.x, bounds_.max.y,
                 tree_->config().leaf_capacity, tree_->config().max_depth);
    for (const auto& e : oracle_.entities()) {
      std::fprintf(stderr, "  id %u at (%.9g, %.9g) r %.9g mask %x\n", ToRaw(e.id), e.center.x,
                   e.center.y, e.radius, e.mask);
    }
  }

  void Compare(QueryOrder order, const std::vector<EntityId>& want) {
    const bool any = order == QueryOrder::kAny;
    const std::vector<uint32_t> got = Raw(results_.ids.ToVector(), any);
    const std::vector<uint32_t> expected = Raw(want, any);
    if (got != expected) DumpMismatch(got, expected);
    Require(got == expected);
    Require(results_.stats.hits == results_.ids.size());
    Require(results_.stats.candidates >= results_.stats.hits);
  }

  // The LinearQuadtree over the same world and contents, rebuilt from the oracle's (its
  // directory sized for this circle's radius, or for none): the same circle's ids and rank keys.
  void CompareLinear(const Circle& c, const QueryFilter& f) {
    const bool sized = in_.ConsumeBool() && std::isfinite(c.radius) && c.radius >= 0.0f;
    bench::LinearQuadtree linear({.bounds = bounds_,
                                  .leaf_capacity = tree_->config().leaf_capacity,
                                  .query_radius = sized ? c.radius : 0.0f});
    std::vector<bench::LinearQuadtree::Item> items;
    for (const auto& e : oracle_.entities()) {
      items.push_back({.id = e.id, .center = e.center, .radius = e.radius, .mask = e.mask});
    }
    Require(linear.Rebuild(items).ok());
    Describe("linear circle (%.9g, %.9g) r %.9g", c.center.x, c.center.y, c.radius);
    linear.QueryCircle(c, f, &results_);
    Compare(QueryOrder::kAny, oracle_.QueryCircle(c, f, QueryOrder::kById));
    std::vector<RankKey> keys;
    linear.QueryCircleKeys(c.center, c.radius, f, &keys);
    std::sort(keys.begin(), keys.end());
    Require(keys == oracle_.QueryCircleKeys(c.center, c.radius, f));
  }

  void Query() {
    const QueryFilter f = Filter();
    const auto order = static_cast<QueryOrder>(in_.ConsumeIntegralInRange(0, 2));
    const QueryOrder oracle_order = order == QueryOrder::kAny ? QueryOrder::kById : order;
    switch (in_.ConsumeIntegralInRange(0, 6)) {
      case 0: {
        const Circle c{Point(), Radius()};
        Describe("circle (%.9g, %.9g) r %.9g", c.center.x, c.center.y, c.radius);
        tree_->QueryCircle(c, f, order, &results_);
        Compare(order, oracle_.QueryCircle(c, f, oracle_order));
        return CompareLinear(c, f);
      }
      case 1: {
        const Vec2 a = Point();
        const Vec2 b = in_.ConsumeBool() ? Point() : Vec2{a.x + Radius(), a.y + Radius()};
        const Aabb box{a, b};
        Describe("aabb (%.9g, %.9g)-(%.9g, %.9g)", a.x, a.y, b.x, b.y);
        tree_->QueryAabb(box, f, order, &results_);
        return Compare(order, oracle_.QueryAabb(box, f, oracle_order));
      }
      case 2: {
        const Sector s{Point(), Angle(), Angle(), Radius()};
        Describe("sector (%.9g, %.9g) facing %.9g half %.9g range %.9g", s.origin.x, s.origin.y,
                 s.facing, s.half_angle, s.range);
        tree_->QuerySector(s, f, order, &results_);
        return Compare(order, oracle_.QuerySector(s, f, oracle_order));
      }
      case 3: {
        const Vec2 a = Point();
        const Vec2 b = in_.ConsumeBool() ? a : Point();
        const Capsule c{a, b, Radius()};
        Describe("capsule (%.9g, %.9g)-(%.9g, %.9g) r %.9g", a.x, a.y, b.x, b.y, c.radius);
        tree_->QueryCapsule(c, f, order, &results_);
        return Compare(order, oracle_.QueryCapsule(c, f, oracle_order));
      }
      case 4: {
        const Vec2 p = Point();
        const auto k = in_.ConsumeIntegralInRange<uint32_t>(0, kSlots + 2);
        const float max_d = in_.ConsumeBool() ? kInf : Radius();
        Describe("nearest (%.9g, %.9g) k %u max %.9g", p.x, p.y, k, max_d);
        tree_->QueryNearest(p, k, max_d, f, &results_);
        return Compare(QueryOrder::kByDistance, oracle_.QueryNearest(p, k, max_d, f));
      }
      case 5:
        return CompareKeys(Point(), Radius(), f);
      default:
        return ComparePairs();
    }
  }

  void CompareKeys(Vec2 center, float radius, const QueryFilter& f) {
    keys_.clear();
    keys_.push_back(42);  // appends: what was there stays
    QueryStats stats;
    tree_->QueryCircleKeys(center, radius, f, &keys_, &stats);
    Require(!keys_.empty() && keys_.front() == 42);
    keys_.erase(keys_.begin());
    std::sort(keys_.begin(), keys_.end());
    Require(keys_ == oracle_.QueryCircleKeys(center, radius, f));
    Require(stats.hits == keys_.size() && stats.candidates >= stats.hits);
  }

  void ComparePairs() {
    pairs_.clear();
    const QueryStats s = tree_->QueryPairs(&pairs_);
    Require(pairs_ == oracle_.QueryPairs());
    Require(s.hits == pairs_.size());
  }

  // After every operation: structure, membership, and queries that see everything.
  void CheckState() {
    Require(tree_->CheckInvariants().empty());
    Require(tree_->size() == oracle_.size());
    size_t live = 0;
    for (size_t i = 0; i < kSlots; ++i) {
      Require(tree_->Contains(IdOf(i)) == live_[i]);
      live += live_[i] ? 1 : 0;
    }
    Require(live == oracle_.size());
    for (const auto& e : oracle_.entities()) {
      Vec2 p;
      Require(tree_->GetPosition(e.id, &p) && p == e.center);
    }
    const Vec2 centre{bounds_.min.x + bounds_.Width() * 0.5f,
                      bounds_.min.y + bounds_.Height() * 0.5f};
    const Circle all{centre, std::max(bounds_.Width(), bounds_.Height())};
    Describe("everything: circle (%.9g, %.9g) r %.9g", all.center.x, all.center.y, all.radius);
    tree_->QueryCircle(all, {}, QueryOrder::kByDistance, &results_);
    Compare(QueryOrder::kByDistance, oracle_.QueryCircle(all, {}, QueryOrder::kByDistance));
    Describe("everything: the world's rectangle");
    tree_->QueryAabb(bounds_, {}, QueryOrder::kById, &results_);
    Compare(QueryOrder::kById, oracle_.QueryAabb(bounds_, {}, QueryOrder::kById));
    ComparePairs();
  }

  FuzzedDataProvider& in_;
  std::unique_ptr<Quadtree> tree_;
  BruteForceIndex oracle_;
  Aabb bounds_;
  std::array<uint32_t, kSlots> generation_{};
  std::array<bool, kSlots> live_{};
  QueryResults results_;
  std::vector<RankKey> keys_;
  std::vector<std::pair<EntityId, EntityId>> pairs_;
  char query_[200] = "";
};

}  // namespace
}  // namespace zs::spatial

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 2048) return -1;  // about kMaxOps operations' worth; longer adds nothing
  FuzzedDataProvider in(data, size);
  zs::spatial::Driver(&in).Run();
  return 0;
}
