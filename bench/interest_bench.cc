// Interest selection benchmark: what it costs, per viewer and tick, to find a viewer's K nearest
// entities within radius R as rank classes (what TieredInterest asks NearestRanker for: the
// near_max, near_max + mid_max and near_max + mid_max + tier_margin nearest), four ways on the
// same crowd:
//   ours       NearestRanker::Rank over spatial::Quadtree (default config, updated with Move),
//              each viewer's radius hint carried from its previous tick as the policy does;
//   grid       a flat grid, points packed contiguously per cell (counting-sort rebuild every
//              tick), searched in rings outward from the viewer's cell, each row run clipped to
//              the search circle, until K are found and the next ring lies beyond the K-th;
//   grid+hint  the same grid searched the ranker's way: one pass over the rows of the disc of
//              the viewer's hinted radius (grown when it holds fewer than K);
//   brute      every entity scanned.
// Grids have cells of 16, 32, 64 and 128 units; the fastest per workload is reported. All end
// with the ranker's cuts (interest::CutRanks at K, 248 and 48) on interest::MakeRankKey keys.
// Before timing, the rank classes ([0,48), [0,248), [0,264)) of every viewer are compared
// across all of them, and brute force's against a full sort, on three ticks (cold hints, then
// warm); a mismatch fails the run (exit status 1).
//
//   build/release/bench/interest_bench
//   build/release/bench/interest_bench --benchmark_filter=uniform
//
// One benchmark iteration is one tick: every entity moves (untimed), the tree and the grids are
// updated (each timed on its own), then 256 viewers select with each method, each method timed
// over all viewers in thread CPU time. The iteration time is the whole tick; the counters and
// the tables printed at the end are what to read. Thread: everything on the calling thread.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <map>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "bench/table_reporter.h"
#include "interest/nearest.h"
#include "spatial/quadtree.h"

namespace zs::bench {
namespace {

using interest::KeyDistanceSq;
using interest::KeyRawId;
using interest::MakeRankKey;
using interest::RankKey;

constexpr float kWorld = 1024.0f;
constexpr float kRadius = 110.0f;  // view radius 100 + hysteresis 10: the policy's leave radius
constexpr uint32_t kNearMax = 48;
constexpr uint32_t kEnterRank = kNearMax + 200;  // + mid_max
constexpr uint32_t kKeep = kEnterRank + 16;      // + tier_margin: K = 264
constexpr uint32_t kViewers = 256;
constexpr uint32_t kCheckTicks = 3;
constexpr float kOrbitMax = 10.0f;  // an entity never strays farther than this from its home
constexpr std::array<float, 4> kCellSizes = {16.0f, 32.0f, 64.0f, 128.0f};
constexpr size_t kGrids = kCellSizes.size();
constexpr float kPad = 1e-3f;  // grid culling slack against rounding: never drop a true hit
constexpr uint32_t kSeed = 20261122;

// This thread's CPU time in ns: on a shared machine, time spent descheduled is not counted.
double ThreadNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

template <typename F>
double TimeNs(F&& f) {
  const double t0 = ThreadNs();
  f();
  return ThreadNs() - t0;
}

// ---- the crowd ----

enum class Layout { kUniform, kClustered };

// N entities, each circling its own home (radius 2..10, 0.1..1.2 units per tick, either way
// round), so everything moves a little every tick and the density stays as built. Uniform:
// homes anywhere. Clustered: 90% of homes in 16 Gaussian blobs (sigma 60), 10% anywhere.
class Crowd {
 public:
  Crowd(Layout layout, uint32_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> anywhere(kOrbitMax, kWorld - kOrbitMax);
    std::uniform_real_distribution<float> blob_at(2 * kRadius, kWorld - 2 * kRadius);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    std::normal_distribution<float> gauss(0.0f, 60.0f);
    std::vector<Vec2> blobs;
    blobs.reserve(16);
    for (int b = 0; b < 16; ++b) blobs.push_back({blob_at(rng), blob_at(rng)});
    for (uint32_t i = 0; i < n; ++i) {
      Vec2 home{anywhere(rng), anywhere(rng)};
      if (layout == Layout::kClustered && i % 10 != 0) {
        const Vec2 c = blobs[i % blobs.size()];
        home = {Clamp(c.x + gauss(rng)), Clamp(c.y + gauss(rng))};
      }
      const float turn = (0.05f + 0.07f * unit(rng)) * (unit(rng) < 0.5f ? -1.0f : 1.0f);
      home_.push_back(home);
      offset_.push_back(FromAngle(2 * kPi * unit(rng)) * (2.0f + 8.0f * unit(rng)));
      spin_.push_back(FromAngle(turn));
      pos_.push_back(home + offset_.back());
    }
  }

  void Step() {
    for (size_t i = 0; i < pos_.size(); ++i) {
      const Vec2 o = offset_[i], s = spin_[i];
      offset_[i] = {o.x * s.x - o.y * s.y, o.x * s.y + o.y * s.x};
      pos_[i] = {Clamp(home_[i].x + offset_[i].x), Clamp(home_[i].y + offset_[i].y)};
    }
  }

  [[nodiscard]] const std::vector<Vec2>& positions() const { return pos_; }
  [[nodiscard]] size_t size() const { return pos_.size(); }
  [[nodiscard]] static EntityId Id(size_t i) {
    return MakeEntityId(static_cast<uint32_t>(i), static_cast<uint32_t>(i % 3));
  }

  // `count` distinct entities whose view circle always lies inside the world.
  [[nodiscard]] std::vector<uint32_t> PickViewers(uint32_t count, uint32_t seed) const {
    const float lo = kRadius + kOrbitMax, hi = kWorld - kRadius - kOrbitMax;
    std::vector<uint32_t> inside;
    for (uint32_t i = 0; i < home_.size(); ++i) {
      const Vec2 h = home_[i];
      if (h.x >= lo && h.x <= hi && h.y >= lo && h.y <= hi) inside.push_back(i);
    }
    std::mt19937 rng(seed);
    std::shuffle(inside.begin(), inside.end(), rng);
    inside.resize(std::min<size_t>(count, inside.size()));
    return inside;
  }

 private:
  static float Clamp(float v) { return std::clamp(v, 0.0f, kWorld); }

  std::vector<Vec2> home_, offset_, pos_;
  std::vector<Vec2> spin_;  // (cos, sin) of the per-tick turn of offset_
};

// ---- keys and the common finish ----

// The keys of one selection. The buffer never shrinks, so a scan can write every candidate's
// key branch-free and advance only over the hits.
struct Keys {
  std::vector<RankKey> buf;
  size_t n = 0;
  std::vector<RankKey> scratch;  // CutRanks'

  RankKey* Room(size_t more) {
    if (n + more > buf.size()) buf.resize(std::max(n + more, 2 * buf.size()));
    return buf.data() + n;
  }
  [[nodiscard]] std::span<const RankKey> view() const { return {buf.data(), n}; }
};

// The ranker's finish (interest::CutRanks): keep the K nearest, with rank classes at each cut.
// `radius`: the range the keys were gathered in (balances CutRanks' buckets).
interest::RankCut CutRanks(Keys* keys, float radius) {
  const interest::RankCut cut = interest::CutRanks({keys->buf.data(), keys->n}, kKeep, radius,
                                                   {kNearMax, kEnterRank}, &keys->scratch);
  keys->n = cut.kept;
  return cut;
}

// Writes the key of every point in [0, n) within limit_sq of `at`, except `self`, to dst;
// returns how many. Distances first (vectorised, the arithmetic of DistanceSq), then a
// branch-free compaction.
size_t ScanRun(const float* xs, const float* ys, const uint32_t* ids, size_t n, Vec2 at,
               float limit_sq, uint32_t self, RankKey* dst) {
  float d[64];
  size_t k = 0;
  for (size_t c0 = 0; c0 < n; c0 += 64) {
    const size_t m = std::min<size_t>(64, n - c0);
    for (size_t i = 0; i < m; ++i) {
      const float dx = xs[c0 + i] - at.x, dy = ys[c0 + i] - at.y;
      d[i] = dx * dx + dy * dy;
    }
    for (size_t i = 0; i < m; ++i) {
      dst[k] = MakeRankKey(d[i], ids[c0 + i]);
      k += static_cast<size_t>((d[i] <= limit_sq) & (ids[c0 + i] != self));
    }
  }
  return k;
}

// ---- (b) brute force ----

// Every entity in structure-of-arrays form (the zone's own tables; refreshed untimed).
class BruteForce {
 public:
  void Load(const Crowd& crowd) {
    const size_t n = crowd.size();
    xs_.resize(n);
    ys_.resize(n);
    ids_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      xs_[i] = crowd.positions()[i].x;
      ys_[i] = crowd.positions()[i].y;
      ids_[i] = ToRaw(Crowd::Id(i));
    }
  }
  // Returns the number of entities within the radius (before the cut at K).
  size_t Select(Vec2 at, uint32_t self, Keys* out) const {
    out->n = 0;
    out->n = ScanRun(xs_.data(), ys_.data(), ids_.data(), xs_.size(), at, kRadius * kRadius, self,
                     out->Room(xs_.size()));
    const size_t in_view = out->n;
    CutRanks(out, kRadius);
    return in_view;
  }
  // The obviously-correct answer, for the check only (untimed): every key in range, fully
  // sorted, the K nearest kept. Independent of CutRanks, which every method shares.
  void Reference(Vec2 at, uint32_t self, Keys* out) const {
    out->n = 0;
    out->n = ScanRun(xs_.data(), ys_.data(), ids_.data(), xs_.size(), at, kRadius * kRadius, self,
                     out->Room(xs_.size()));
    std::sort(out->buf.begin(), out->buf.begin() + static_cast<ptrdiff_t>(out->n));
    out->n = std::min<size_t>(out->n, kKeep);
  }
  [[nodiscard]] size_t size() const { return xs_.size(); }

 private:
  std::vector<float> xs_, ys_;
  std::vector<uint32_t> ids_;
};

// ---- (c) flat grid: ring search, and the hinted search ----

// Row-major cells; points sorted by cell, so the cells of one row segment are one contiguous
// run of memory.
class PackedGrid {
 public:
  explicit PackedGrid(float cell) : cell_(cell), cols_(static_cast<int>(std::ceil(kWorld / cell))) {
    start_.assign(static_cast<size_t>(cols_) * static_cast<size_t>(cols_) + 1, 0);
  }

  void Rebuild(const Crowd& crowd) {
    const size_t n = crowd.size();
    cell_of_.resize(n);
    std::fill(start_.begin(), start_.end(), 0);
    for (size_t i = 0; i < n; ++i) {
      const Vec2 p = crowd.positions()[i];
      cell_of_[i] = static_cast<uint32_t>(ClampCell(p.y) * cols_ + ClampCell(p.x));
      ++start_[cell_of_[i] + 1];
    }
    for (size_t c = 1; c < start_.size(); ++c) start_[c] += start_[c - 1];
    fill_.assign(start_.begin(), start_.end() - 1);
    xs_.resize(n);
    ys_.resize(n);
    ids_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t slot = fill_[cell_of_[i]]++;
      xs_[slot] = crowd.positions()[i].x;
      ys_[slot] = crowd.positions()[i].y;
      ids_[slot] = ToRaw(Crowd::Id(i));
    }
  }

  // The K nearest within the radius, cut like the ranker's. Returns the points examined.
  uint64_t Select(Vec2 at, uint32_t self, Keys* out) const {
    out->n = 0;
    const int cx = ClampCell(at.x), cy = ClampCell(at.y);
    float limit_sq = kRadius * kRadius;  // a key enters only within this
    uint64_t examined = 0;
    for (int d = 0; d <= cols_; ++d) {
      const float gap = RingGap(at, cx, cy, d);
      if (gap * gap > limit_sq) break;
      examined += ScanRing(at, cx, cy, d, limit_sq, self, out);
      if (out->n >= kKeep) limit_sq = KeepNearest(out);
    }
    CutRanks(out, std::sqrt(limit_sq));
    return examined;
  }

  // The ranker's strategy on the grid (not the ring search): one pass over the rows of the disc
  // of the hinted radius, grown like the ranker's while it holds fewer than K; *hint as in
  // NearestRanker::Rank. Returns the points examined.
  uint64_t SelectHinted(Vec2 at, uint32_t self, float* hint, Keys* out) const {
    float r = *hint > 0 ? std::min(*hint, kRadius) : kRadius;
    uint64_t examined = 0;
    for (;;) {
      out->n = 0;
      examined += ScanDisc(at, r, self, out);
      if (out->n >= kKeep || r >= kRadius) break;
      r = std::min(kRadius, r * 1.5f + 2.0f);
    }
    const interest::RankCut cut = CutRanks(out, r);
    *hint = cut.kept < kKeep ? kRadius : std::sqrt(KeyDistanceSq(cut.last)) + 2.0f;
    return examined;
  }

 private:
  [[nodiscard]] int CellIndex(float v) const { return static_cast<int>(std::floor(v / cell_)); }
  [[nodiscard]] int ClampCell(float v) const { return std::clamp(CellIndex(v), 0, cols_ - 1); }

  // Shortest distance from `at` to any cell of ring d (the cells at Chebyshev distance d from
  // the viewer's), less kPad; infinity when the ring has no cell inside the grid.
  [[nodiscard]] float RingGap(Vec2 at, int cx, int cy, int d) const {
    if (d == 0) return 0.0f;
    float gap = std::numeric_limits<float>::infinity();
    if (cx - d >= 0) gap = std::min(gap, at.x - static_cast<float>(cx - d + 1) * cell_);
    if (cx + d < cols_) gap = std::min(gap, static_cast<float>(cx + d) * cell_ - at.x);
    if (cy - d >= 0) gap = std::min(gap, at.y - static_cast<float>(cy - d + 1) * cell_);
    if (cy + d < cols_) gap = std::min(gap, static_cast<float>(cy + d) * cell_ - at.y);
    return std::max(0.0f, gap - kPad);
  }

  // Every row the disc of radius r touches, each clipped to the disc.
  uint64_t ScanDisc(Vec2 at, float r, uint32_t self, Keys* out) const {
    uint64_t n = 0;
    for (int y = ClampCell(at.y - r), y1 = ClampCell(at.y + r); y <= y1; ++y) {
      n += ScanRow(y, 0, cols_ - 1, at, r * r, self, out);
    }
    return n;
  }

  // Ring d: its bottom and top rows whole, and the single cells at both ends of the rows between.
  uint64_t ScanRing(Vec2 at, int cx, int cy, int d, float limit_sq, uint32_t self,
                    Keys* out) const {
    if (d == 0) return ScanRow(cy, cx, cx, at, limit_sq, self, out);
    uint64_t n = ScanRow(cy - d, cx - d, cx + d, at, limit_sq, self, out) +
                 ScanRow(cy + d, cx - d, cx + d, at, limit_sq, self, out);
    const int y0 = std::max(cy - d + 1, 0), y1 = std::min(cy + d - 1, cols_ - 1);
    for (int y = y0; y <= y1; ++y) {
      n += ScanRow(y, cx - d, cx - d, at, limit_sq, self, out) +
           ScanRow(y, cx + d, cx + d, at, limit_sq, self, out);
    }
    return n;
  }

  // Scans cells [x0, x1] of row y, clipped to the grid and to the circle of limit_sq.
  uint64_t ScanRow(int y, int x0, int x1, Vec2 at, float limit_sq, uint32_t self, Keys* out) const {
    if (y < 0 || y >= cols_) return 0;
    const float lo = static_cast<float>(y) * cell_;
    const float dy = std::max({0.0f, lo - at.y - kPad, at.y - (lo + cell_) - kPad});
    const float room = limit_sq - dy * dy;
    if (room < 0.0f) return 0;
    const float half = std::sqrt(room) + kPad;
    x0 = std::max({x0, 0, CellIndex(at.x - half)});
    x1 = std::min({x1, cols_ - 1, CellIndex(at.x + half)});
    if (x0 > x1) return 0;
    const size_t row = static_cast<size_t>(y) * static_cast<size_t>(cols_);
    const uint32_t a = start_[row + static_cast<size_t>(x0)];
    const uint32_t b = start_[row + static_cast<size_t>(x1) + 1];
    RankKey* dst = out->Room(b - a);
    out->n += ScanRun(&xs_[a], &ys_[a], &ids_[a], b - a, at, limit_sq, self, dst);
    return b - a;
  }

  // Keeps the K nearest found so far; returns the K-th's distance^2 (nothing farther can enter).
  static float KeepNearest(Keys* out) {
    RankKey* b = out->buf.data();
    std::nth_element(b, b + (kKeep - 1), b + out->n);
    out->n = kKeep;
    return KeyDistanceSq(b[kKeep - 1]);
  }

  float cell_;
  int cols_;
  std::vector<uint32_t> start_, fill_, cell_of_;
  std::vector<float> xs_, ys_;
  std::vector<uint32_t> ids_;
};

// ---- (a) ours ----

struct RankWork {
  uint64_t candidates = 0;  // entities the tree examined (QueryStats::candidates)
  uint64_t queries = 0;     // circle queries (1 when the hint held K)
  uint64_t keys = 0;        // keys handed to the cuts (in range of the last query)
};

// Replays NearestRanker::Rank's radius schedule (nearest.h: start at the hint, grow by 1.5x + 2
// until K are in range or the radius reaches the maximum) with the same ranking queries, to count
// what it examined. Its time is the search part of the ranker's (the tree's keys, no cuts), on
// caches the ranker has just warmed. Keep in step with nearest.h.
RankWork ReplayRank(const spatial::Quadtree& tree, Vec2 at, EntityId self, float hint,
                    std::vector<RankKey>* keys) {
  RankWork w;
  float r = hint > 0 ? std::min(hint, kRadius) : kRadius;
  for (;;) {
    keys->clear();
    spatial::QueryStats stats;
    tree.QueryCircleKeys(at, r, {.exclude = self}, keys, &stats);
    ++w.queries;
    w.candidates += stats.candidates;
    if (keys->size() >= kKeep || r >= kRadius) {
      w.keys = keys->size();
      return w;
    }
    r = std::min(kRadius, r * 1.5f + 2.0f);
  }
}

// ---- one workload ----

struct Totals {
  uint64_t ticks = 0, in_view = 0, ours_cand = 0, ours_queries = 0, ours_keys = 0;
  uint64_t brute_cand = 0;
  double ours_ns = 0, ours_query_ns = 0, brute_ns = 0, tree_upd_ns = 0;
  std::array<double, kGrids> grid_ns{}, grid_upd_ns{}, hinted_ns{};
  std::array<uint64_t, kGrids> grid_cand{}, hinted_cand{};
};

class Selection {
 public:
  Selection(Layout layout, uint32_t n)
      : crowd_(layout, n, kSeed + n),
        tree_(spatial::QuadtreeConfig{.bounds = {.min = {0, 0}, .max = {kWorld, kWorld}}}),
        viewers_(crowd_.PickViewers(kViewers, kSeed)),
        hints_(viewers_.size(), 0.0f) {
    for (auto& h : grid_hints_) h.assign(viewers_.size(), 0.0f);
    for (size_t i = 0; i < crowd_.size(); ++i) {
      (void)tree_.Insert(Crowd::Id(i), crowd_.positions()[i], 0.0f);
    }
    for (const float cell : kCellSizes) grids_.emplace_back(cell);
  }

  // One tick with every method answering every viewer; false (and a message) on a mismatch.
  bool CheckTick() {
    Update(nullptr);
    Keys grid_keys, brute_keys, reference;
    for (size_t v = 0; v < viewers_.size(); ++v) {
      const Vec2 at = At(v);
      const uint32_t self = Self(v);
      RankOurs(v);
      (void)brute_.Select(at, self, &brute_keys);
      brute_.Reference(at, self, &reference);
      if (!Same(brute_keys.view(), reference.view(), "brute", v)) return false;
      if (!Same(ranker_.keys(), brute_keys.view(), "ours", v)) return false;
      for (size_t g = 0; g < kGrids; ++g) {
        (void)grids_[g].Select(at, self, &grid_keys);
        if (!Same(grid_keys.view(), brute_keys.view(), "grid", v)) return false;
        (void)grids_[g].SelectHinted(at, self, &grid_hints_[g][v], &grid_keys);
        if (!Same(grid_keys.view(), brute_keys.view(), "grid_hint", v)) return false;
      }
    }
    return true;
  }

  void TimedTick(Totals* t) {
    Update(t);
    TimeOurs(t);
    TimeGrids(t);
    t->brute_ns += TimeNs([&] {
      for (size_t v = 0; v < viewers_.size(); ++v) {
        t->in_view += brute_.Select(At(v), Self(v), &keys_);
      }
    });
    t->brute_cand += brute_.size() * viewers_.size();
    ++t->ticks;
  }

  [[nodiscard]] size_t entities() const { return crowd_.size(); }
  [[nodiscard]] size_t viewers() const { return viewers_.size(); }

 private:
  [[nodiscard]] Vec2 At(size_t v) const { return crowd_.positions()[viewers_[v]]; }

  // Moves the crowd (untimed), then updates the tree and rebuilds the grids, timed into t.
  void Update(Totals* t) {
    crowd_.Step();
    const double tree_ns = TimeNs([&] {
      for (size_t i = 0; i < crowd_.size(); ++i) {
        (void)tree_.Move(Crowd::Id(i), crowd_.positions()[i]);
      }
    });
    if (t) t->tree_upd_ns += tree_ns;
    for (size_t g = 0; g < kGrids; ++g) {
      const double grid_ns = TimeNs([&] { grids_[g].Rebuild(crowd_); });
      if (t) t->grid_upd_ns[g] += grid_ns;
    }
    brute_.Load(crowd_);
  }

  // Times the ranker over every viewer, then replays its queries (timed apart) to count them.
  void TimeOurs(Totals* t) {
    const std::vector<float> hints_before = hints_;
    t->ours_ns += TimeNs([&] {
      for (size_t v = 0; v < viewers_.size(); ++v) RankOurs(v);
    });
    t->ours_query_ns += TimeNs([&] {
      for (size_t v = 0; v < viewers_.size(); ++v) {
        const RankWork w =
            ReplayRank(tree_, At(v), Crowd::Id(viewers_[v]), hints_before[v], &replay_keys_);
        t->ours_cand += w.candidates;
        t->ours_queries += w.queries;
        t->ours_keys += w.keys;
      }
    });
  }

  void TimeGrids(Totals* t) {
    for (size_t g = 0; g < kGrids; ++g) {
      t->grid_ns[g] += TimeNs([&] {
        for (size_t v = 0; v < viewers_.size(); ++v) {
          t->grid_cand[g] += grids_[g].Select(At(v), Self(v), &keys_);
        }
      });
      t->hinted_ns[g] += TimeNs([&] {
        for (size_t v = 0; v < viewers_.size(); ++v) {
          t->hinted_cand[g] += grids_[g].SelectHinted(At(v), Self(v), &grid_hints_[g][v], &keys_);
        }
      });
    }
  }

  [[nodiscard]] uint32_t Self(size_t v) const { return ToRaw(Crowd::Id(viewers_[v])); }

  void RankOurs(size_t v) {
    // Exact ranks (no rank floor, no near band), as the other methods compute them.
    ranker_.Rank(tree_, At(v), Crowd::Id(viewers_[v]), kKeep, kRadius, {}, {kNearMax, kEnterRank},
                 &hints_[v]);
  }

  static std::vector<uint32_t> SortedIds(std::span<const RankKey> keys) {
    std::vector<uint32_t> ids;
    for (const RankKey k : keys) ids.push_back(KeyRawId(k));
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  // Same rank classes: the same ids in [0, 48), [0, 248) and [0, 264).
  static bool Same(std::span<const RankKey> got, std::span<const RankKey> want, const char* who,
                   size_t viewer) {
    bool same = got.size() == want.size();
    for (const size_t cut : {kNearMax, kEnterRank, kKeep}) {
      const size_t m = std::min<size_t>(cut, want.size());
      same = same && got.size() >= m && SortedIds(got.first(m)) == SortedIds(want.first(m));
    }
    if (!same) {
      std::fprintf(stderr, "%s: rank classes differ from brute force for viewer %zu (%zu vs %zu)\n",
                   who, viewer, got.size(), want.size());
    }
    return same;
  }

  Crowd crowd_;
  spatial::Quadtree tree_;
  std::vector<uint32_t> viewers_;  // entity indices
  std::vector<float> hints_;       // by viewer: the ranker's radius hint, carried tick to tick
  interest::NearestRanker ranker_;
  std::vector<RankKey> replay_keys_;
  std::vector<PackedGrid> grids_;
  std::array<std::vector<float>, kGrids> grid_hints_;  // by grid, by viewer (SelectHinted)
  BruteForce brute_;
  Keys keys_;
};

// ---- the benchmark ----

// Entities in the world such that a uniform crowd puts `in_view` within the radius.
uint32_t EntitiesFor(uint32_t in_view) {
  const float span = kWorld - 2 * kOrbitMax;
  return static_cast<uint32_t>(
      std::lround(static_cast<float>(in_view) * span * span / (kPi * kRadius * kRadius)));
}

// Counter name of one grid size, e.g. "c32_ns". (Built by appending: GCC 12 warns falsely on
// "literal" + std::string.)
std::string CellKey(float cell, const char* what) {
  std::string key = "c";
  key += std::to_string(static_cast<int>(cell));
  key += what;
  return key;
}

size_t Fastest(const std::array<double, kGrids>& ns) {
  return static_cast<size_t>(std::min_element(ns.begin(), ns.end()) - ns.begin());
}

void Report(benchmark::State& state, const Totals& t, size_t entities, size_t viewers) {
  const double views = static_cast<double>(t.ticks * viewers);
  const double moves = static_cast<double>(t.ticks * entities);
  const size_t best = Fastest(t.grid_ns), best_hinted = Fastest(t.hinted_ns);
  const double ours = t.ours_ns / views, grid = t.grid_ns[best] / views;
  const double brute = t.brute_ns / views;
  auto& c = state.counters;
  c["entities"] = static_cast<double>(entities);
  c["in_view"] = static_cast<double>(t.in_view) / views;
  c["ours_ns"] = ours;
  c["grid_ns"] = grid;
  c["brute_ns"] = brute;
  c["ours_per_grid"] = ours / grid;
  c["brute_per_ours"] = brute / ours;
  c["grid_cell"] = kCellSizes[best];
  c["ours_cand"] = static_cast<double>(t.ours_cand) / views;
  c["grid_cand"] = static_cast<double>(t.grid_cand[best]) / views;
  c["brute_cand"] = static_cast<double>(t.brute_cand) / views;
  c["ours_queries"] = static_cast<double>(t.ours_queries) / views;
  c["ours_query_ns"] = t.ours_query_ns / views;
  c["ours_keys"] = static_cast<double>(t.ours_keys) / views;
  c["tree_upd_ns"] = t.tree_upd_ns / moves;
  c["grid_upd_ns"] = t.grid_upd_ns[best] / moves;
  c["hint_ns"] = t.hinted_ns[best_hinted] / views;
  c["hint_cell"] = kCellSizes[best_hinted];
  c["hint_cand"] = static_cast<double>(t.hinted_cand[best_hinted]) / views;
  c["ours_per_hint"] = ours / c["hint_ns"];
  for (size_t g = 0; g < kGrids; ++g) {
    c[CellKey(kCellSizes[g], "_ns")] = t.grid_ns[g] / views;
    c[CellKey(kCellSizes[g], "_cand")] = static_cast<double>(t.grid_cand[g]) / views;
    c[CellKey(kCellSizes[g], "_hint_ns")] = t.hinted_ns[g] / views;
  }
}

void RunSelection(benchmark::State& state, Layout layout, uint32_t in_view) {
  Selection s(layout, EntitiesFor(in_view));
  for (uint32_t i = 0; i < kCheckTicks; ++i) {
    if (!s.CheckTick()) {
      state.SkipWithError("rank classes differ from brute force");
      return;
    }
  }
  Totals t;
  for (auto _ : state) s.TimedTick(&t);
  Report(state, t, s.entities(), s.viewers());
}

struct Scenario {
  const char* name;
  Layout layout;
  uint32_t in_view;  // for a uniform crowd; a clustered one has the same entity count
};

constexpr std::array<Scenario, 6> kScenarios = {{
    {.name = "uniform/view:100", .layout = Layout::kUniform, .in_view = 100},
    {.name = "uniform/view:1000", .layout = Layout::kUniform, .in_view = 1000},
    {.name = "uniform/view:5000", .layout = Layout::kUniform, .in_view = 5000},
    {.name = "clustered/view:100", .layout = Layout::kClustered, .in_view = 100},
    {.name = "clustered/view:1000", .layout = Layout::kClustered, .in_view = 1000},
    {.name = "clustered/view:5000", .layout = Layout::kClustered, .in_view = 5000},
}};

std::string Name(const Scenario& w) {
  std::string name = "select/";
  name += w.name;
  return name;
}

void RegisterAll() {
  for (const Scenario& w : kScenarios) {
    benchmark::RegisterBenchmark(Name(w).c_str(), [w](benchmark::State& s) {
      RunSelection(s, w.layout, w.in_view);
    })->Unit(benchmark::kMillisecond);
  }
}

using Counters = std::map<std::string, double>;

// Calls row(name, counters) for every workload that ran, in registration order.
template <typename Row>
void ForEachRun(const TableReporter& reporter, Row&& row) {
  for (const Scenario& w : kScenarios) {
    const auto it = reporter.results().find(Name(w));
    if (it != reporter.results().end()) row(w.name, it->second.counters);
  }
}

void PrintTables(const TableReporter& reporter, std::FILE* out) {
  if (reporter.results().empty()) return;
  std::fprintf(out,
               "\n| workload | entities | in view | ours ns/viewer | grid ns/viewer (cell) | "
               "brute ns/viewer | ours / grid | brute / ours | candidates ours / grid / brute "
               "|\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  ForEachRun(reporter, [out](const char* name, const Counters& c) {
    std::fprintf(
        out,
        "| %s | %.0f | %.0f | %.0f | %.0f (c%.0f) | %.0f | %.2f | %.1fx | %.0f / %.0f / %.0f |\n",
        name, c.at("entities"), c.at("in_view"), c.at("ours_ns"), c.at("grid_ns"),
        c.at("grid_cell"), c.at("brute_ns"), c.at("ours_per_grid"), c.at("brute_per_ours"),
        c.at("ours_cand"), c.at("grid_cand"), c.at("brute_cand"));
  });
  std::fprintf(out,
               "\n| workload | grid+hint ns/viewer (cell) | ours / grid+hint | grid+hint "
               "candidates | ours search ns/viewer (replayed) | ours keys cut | ours queries per "
               "rank | tree Move ns/entity | grid rebuild ns/entity |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  ForEachRun(reporter, [out](const char* name, const Counters& c) {
    std::fprintf(out, "| %s | %.0f (c%.0f) | %.2f | %.0f | %.0f | %.0f | %.2f | %.1f | %.1f |\n",
                 name, c.at("hint_ns"), c.at("hint_cell"), c.at("ours_per_hint"), c.at("hint_cand"),
                 c.at("ours_query_ns"), c.at("ours_keys"), c.at("ours_queries"),
                 c.at("tree_upd_ns"), c.at("grid_upd_ns"));
  });
  std::fprintf(out, "\n| grid cell: ring ns/viewer (candidates), hinted ns/viewer |");
  for (const float cell : kCellSizes) std::fprintf(out, " c%.0f |", cell);
  std::fprintf(out, "\n|---|---:|---:|---:|---:|\n");
  ForEachRun(reporter, [out](const char* name, const Counters& c) {
    std::fprintf(out, "| %s |", name);
    for (const float cell : kCellSizes) {
      std::fprintf(out, " %.0f (%.0f), %.0f |", c.at(CellKey(cell, "_ns")),
                   c.at(CellKey(cell, "_cand")), c.at(CellKey(cell, "_hint_ns")));
    }
    std::fprintf(out, "\n");
  });
}

}  // namespace
}  // namespace zs::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  zs::bench::RegisterAll();
  zs::bench::TableReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  zs::bench::PrintTables(reporter, stdout);
  benchmark::Shutdown();
  return reporter.had_errors() ? 1 : 0;
}
