// Our quadtree and the simple baselines (brute force, uniform grid, the tutorial quadtree),
// behind the BenchIndex interface. Boost's R-tree is in rtree_baseline.cc (heavy headers).
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <vector>

#include "bench/bench_index.h"
#include "bench/linear/linear_quadtree.h"
#include "spatial/quadtree.h"

namespace zs::bench {
namespace {

// Two-pass scan of contiguous arrays: test into a byte mask (vectorises), then compact.
inline size_t ScanPoints(const float* xs, const float* ys, const uint32_t* ids, size_t n, Vec2 c,
                         float reach_sq, std::vector<uint32_t>* out) {
  uint8_t hit[64];
  size_t total = 0;
  for (size_t c0 = 0; c0 < n; c0 += 64) {
    const size_t m = std::min<size_t>(64, n - c0);
    for (size_t i = 0; i < m; ++i) {
      const float dx = c.x - xs[c0 + i];
      const float dy = c.y - ys[c0 + i];
      hit[i] = dx * dx + dy * dy <= reach_sq;
    }
    const size_t k0 = out->size();
    out->resize(k0 + m);
    uint32_t* dst = out->data() + k0;
    size_t k = 0;
    for (size_t i = 0; i < m; ++i) {
      dst[k] = ids[c0 + i];
      k += hit[i];
    }
    out->resize(k0 + k);
    total += k;
  }
  return total;
}

inline float ReachSq(float r) {
  const float reach = r + kContactEpsilon;  // the same "touching counts" rule as ours
  return reach * reach;
}

// ---- ours ----
class Ours final : public BenchIndex {
 public:
  void Build(const Workload& w) override {
    spatial::QuadtreeConfig c;  // defaults: no per-workload tuning
    c.bounds = {{0, 0}, {w.world(), w.world()}};
    tree_ = std::make_unique<spatial::Quadtree>(c);
    for (size_t i = 0; i < w.size(); ++i) {
      (void)tree_->Insert(MakeEntityId(static_cast<uint32_t>(i), 0), w.positions()[i], 0.0f);
    }
  }
  void Update(const Workload& w) override {
    for (size_t i = 0; i < w.size(); ++i) {
      (void)tree_->Move(MakeEntityId(static_cast<uint32_t>(i), 0), w.positions()[i]);
    }
  }
  size_t Query(Vec2 center, float radius, uint64_t* candidates) override {
    tree_->QueryCircle({center, radius}, {}, spatial::QueryOrder::kAny, &results_);
    *candidates += results_.stats.candidates;
    return results_.ids.size();
  }
  [[nodiscard]] const spatial::Quadtree& tree() const { return *tree_; }

 private:
  std::unique_ptr<spatial::Quadtree> tree_;
  spatial::QueryResults results_;
};

// ---- ours, as the interest ranking uses it: QueryCircleKeys ----
// Centres within radius + kContactEpsilon, so the hits are the other indexes' hits exactly.
class OursKeys final : public BenchIndex {
 public:
  void Build(const Workload& w) override { tree_.Build(w); }
  void Update(const Workload& w) override { tree_.Update(w); }
  size_t Query(Vec2 center, float radius, uint64_t* candidates) override {
    keys_.clear();
    spatial::QueryStats stats;
    tree_.tree().QueryCircleKeys(center, radius + kContactEpsilon, {}, &keys_, &stats);
    *candidates += stats.candidates;
    return keys_.size();
  }

 private:
  Ours tree_;
  std::vector<spatial::RankKey> keys_;
};

// ---- the linear quadtree: rows of buckets, crowded ones by Morton code, rebuilt every tick ----
class Linear : public BenchIndex {
 public:
  explicit Linear(float query_radius) : query_radius_(query_radius) {}
  void Build(const Workload& w) override {
    tree_ = std::make_unique<LinearQuadtree>(LinearQuadtreeConfig{
        .bounds = {{0, 0}, {w.world(), w.world()}}, .query_radius = query_radius_});
    Update(w);
  }
  void Update(const Workload& w) override {
    items_.resize(w.size());
    for (size_t i = 0; i < w.size(); ++i) {
      items_[i] = {.id = MakeEntityId(static_cast<uint32_t>(i), 0), .center = w.positions()[i]};
    }
    (void)tree_->Rebuild(items_);
  }
  size_t Query(Vec2 center, float radius, uint64_t* candidates) override {
    tree_->QueryCircle({center, radius}, {}, &results_);
    *candidates += results_.stats.candidates;
    return results_.ids.size();
  }

 protected:
  std::unique_ptr<LinearQuadtree> tree_;

 private:
  float query_radius_;
  std::vector<LinearQuadtree::Item> items_;
  spatial::QueryResults results_;
};

// ---- the linear quadtree as the interest ranking would use it: QueryCircleKeys ----
class LinearKeys final : public Linear {
 public:
  using Linear::Linear;
  size_t Query(Vec2 center, float radius, uint64_t* candidates) override {
    keys_.clear();
    spatial::QueryStats stats;
    tree_->QueryCircleKeys(center, radius + kContactEpsilon, {}, &keys_, &stats);
    *candidates += stats.candidates;
    return keys_.size();
  }

 private:
  std::vector<spatial::RankKey> keys_;
};

// ---- brute force: one contiguous scan of everything ----
class BruteForce final : public BenchIndex {
 public:
  void Build(const Workload& w) override { Update(w); }
  void Update(const Workload& w) override {
    const size_t n = w.size();
    xs_.resize(n);
    ys_.resize(n);
    ids_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      xs_[i] = w.positions()[i].x;
      ys_[i] = w.positions()[i].y;
      ids_[i] = static_cast<uint32_t>(i);
    }
  }
  size_t Query(Vec2 center, float radius, uint64_t* candidates) override {
    out_.clear();
    *candidates += xs_.size();
    return ScanPoints(xs_.data(), ys_.data(), ids_.data(), xs_.size(), center, ReachSq(radius),
                      &out_);
  }

 private:
  std::vector<float> xs_, ys_;
  std::vector<uint32_t> ids_, out_;
};

// ---- flat uniform grid, rebuilt every tick with a counting sort ----
// Cells are row-major and points are sorted by cell, so the cells of one row of a query are
// one contiguous run of memory: a row is a single vectorised scan.
class Grid final : public BenchIndex {
 public:
  explicit Grid(float cell) : cell_(cell) {}
  void Build(const Workload& w) override {
    cols_ = static_cast<int>(std::ceil(w.world() / cell_)) + 1;
    start_.assign(static_cast<size_t>(cols_) * cols_ + 1, 0);
    Update(w);
  }
  void Update(const Workload& w) override {
    const size_t n = w.size();
    cell_of_.resize(n);
    std::fill(start_.begin(), start_.end(), 0);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t c = CellOf(w.positions()[i]);
      cell_of_[i] = c;
      ++start_[c + 1];
    }
    for (size_t c = 1; c < start_.size(); ++c) start_[c] += start_[c - 1];
    fill_.assign(start_.begin(), start_.end() - 1);
    xs_.resize(n);
    ys_.resize(n);
    ids_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t slot = fill_[cell_of_[i]]++;
      xs_[slot] = w.positions()[i].x;
      ys_[slot] = w.positions()[i].y;
      ids_[slot] = static_cast<uint32_t>(i);
    }
  }
  size_t Query(Vec2 center, float radius, uint64_t* candidates) override {
    out_.clear();
    const int x0 = Clamp((center.x - radius) / cell_);
    const int x1 = Clamp((center.x + radius) / cell_);
    const int y0 = Clamp((center.y - radius) / cell_);
    const int y1 = Clamp((center.y + radius) / cell_);
    const float reach_sq = ReachSq(radius);
    size_t hits = 0;
    for (int y = y0; y <= y1; ++y) {
      const uint32_t a = start_[static_cast<size_t>(y) * cols_ + x0];
      const uint32_t b = start_[static_cast<size_t>(y) * cols_ + x1 + 1];
      *candidates += b - a;
      hits += ScanPoints(&xs_[a], &ys_[a], &ids_[a], b - a, center, reach_sq, &out_);
    }
    return hits;
  }

 private:
  int Clamp(float v) const { return std::clamp(static_cast<int>(std::floor(v)), 0, cols_ - 1); }
  uint32_t CellOf(Vec2 p) const {
    return static_cast<uint32_t>(Clamp(p.y / cell_) * cols_ + Clamp(p.x / cell_));
  }

  float cell_;
  int cols_ = 0;
  std::vector<uint32_t> start_, fill_, cell_of_;
  std::vector<float> xs_, ys_;
  std::vector<uint32_t> ids_, out_;
};

// ---- the quadtree of the tutorials ----
// Cleared and re-inserted every frame; nodes allocated one by one; capacity 10, max depth 5;
// an object that straddles a split line stays in the parent. Unlike the famous tutorial, its
// retrieve visits every child the query overlaps (the tutorial's version misses hits), so its
// results are exact and comparable.
class NaiveQuadtree final : public BenchIndex {
 public:
  void Build(const Workload& w) override { Update(w); }
  void Update(const Workload& w) override {
    root_ = std::make_unique<Node>(Aabb{{0, 0}, {w.world(), w.world()}}, 0);
    for (size_t i = 0; i < w.size(); ++i) {
      root_->Insert(Object{w.positions()[i], static_cast<uint32_t>(i)});
    }
  }
  size_t Query(Vec2 center, float radius, uint64_t* candidates) override {
    candidates_.clear();
    root_->Retrieve(
        Aabb{{center.x - radius, center.y - radius}, {center.x + radius, center.y + radius}},
        &candidates_);
    *candidates += candidates_.size();
    out_.clear();
    const float reach_sq = ReachSq(radius);
    for (const Object& o : candidates_) {
      if (DistanceSq(center, o.p) <= reach_sq) out_.push_back(o.id);
    }
    return out_.size();
  }

 private:
  struct Object {
    Vec2 p;
    uint32_t id;
  };
  struct Node {
    static constexpr size_t kMaxObjects = 10;
    static constexpr int kMaxLevels = 5;
    Aabb bounds;
    int level;
    std::vector<Object> objects;
    std::array<std::unique_ptr<Node>, 4> nodes;

    Node(Aabb b, int l) : bounds(b), level(l) {}

    // Which child fully contains the point (radius 0), or -1 when it lies on a split line.
    int Index(Vec2 p) const {
      const float mx = (bounds.min.x + bounds.max.x) * 0.5f;
      const float my = (bounds.min.y + bounds.max.y) * 0.5f;
      if (p.x == mx || p.y == my) return -1;
      return (p.x > mx ? 1 : 0) + (p.y > my ? 2 : 0);
    }
    void Split() {
      const float mx = (bounds.min.x + bounds.max.x) * 0.5f;
      const float my = (bounds.min.y + bounds.max.y) * 0.5f;
      nodes[0] = std::make_unique<Node>(Aabb{bounds.min, {mx, my}}, level + 1);
      nodes[1] = std::make_unique<Node>(Aabb{{mx, bounds.min.y}, {bounds.max.x, my}}, level + 1);
      nodes[2] = std::make_unique<Node>(Aabb{{bounds.min.x, my}, {mx, bounds.max.y}}, level + 1);
      nodes[3] = std::make_unique<Node>(Aabb{{mx, my}, bounds.max}, level + 1);
    }
    void Insert(const Object& o) {
      if (nodes[0]) {
        const int i = Index(o.p);
        if (i >= 0) {
          nodes[static_cast<size_t>(i)]->Insert(o);
          return;
        }
      }
      objects.push_back(o);
      if (objects.size() > kMaxObjects && level < kMaxLevels) {
        if (!nodes[0]) Split();
        size_t k = 0;
        while (k < objects.size()) {
          const int i = Index(objects[k].p);
          if (i >= 0) {
            nodes[static_cast<size_t>(i)]->Insert(objects[k]);
            objects.erase(objects.begin() + static_cast<std::ptrdiff_t>(k));
          } else {
            ++k;
          }
        }
      }
    }
    void Retrieve(const Aabb& r, std::vector<Object>* out) const {
      out->insert(out->end(), objects.begin(), objects.end());
      if (!nodes[0]) return;
      for (const auto& n : nodes) {
        if (n->bounds.min.x <= r.max.x && n->bounds.max.x >= r.min.x &&
            n->bounds.min.y <= r.max.y && n->bounds.max.y >= r.min.y) {
          n->Retrieve(r, out);
        }
      }
    }
  };

  std::unique_ptr<Node> root_;
  std::vector<Object> candidates_;
  std::vector<uint32_t> out_;
};

}  // namespace

std::unique_ptr<BenchIndex> MakeOurs() { return std::make_unique<Ours>(); }
std::unique_ptr<BenchIndex> MakeOursKeys() { return std::make_unique<OursKeys>(); }
std::unique_ptr<BenchIndex> MakeLinear(float query_radius) {
  return std::make_unique<Linear>(query_radius);
}
std::unique_ptr<BenchIndex> MakeLinearKeys(float query_radius) {
  return std::make_unique<LinearKeys>(query_radius);
}
std::unique_ptr<BenchIndex> MakeBruteForce() { return std::make_unique<BruteForce>(); }
std::unique_ptr<BenchIndex> MakeGrid(float cell_size) { return std::make_unique<Grid>(cell_size); }
std::unique_ptr<BenchIndex> MakeNaiveQuadtree() { return std::make_unique<NaiveQuadtree>(); }

}  // namespace zs::bench
