// Boost.Geometry's R-tree (quadratic split, 16 per node) behind the BenchIndex interface:
// incrementally (remove + insert per moved point) and bulk-loaded (packing) every tick.
#include <boost/geometry.hpp>
#include <boost/geometry/index/rtree.hpp>
#include <boost/iterator/function_output_iterator.hpp>
#include <vector>

#include "bench/bench_index.h"
#include "core/shapes.h"

namespace zs::bench {
namespace {

namespace bg = boost::geometry;
namespace bgi = boost::geometry::index;
using Point = bg::model::point<float, 2, bg::cs::cartesian>;
using Box = bg::model::box<Point>;
using Value = std::pair<Point, uint32_t>;
using Tree = bgi::rtree<Value, bgi::quadratic<16>>;

class Rtree final : public BenchIndex {
 public:
  explicit Rtree(bool bulk) : bulk_(bulk) {}
  void Build(const Workload& w) override {
    values_.clear();
    for (size_t i = 0; i < w.size(); ++i) {
      values_.emplace_back(Point(w.positions()[i].x, w.positions()[i].y), static_cast<uint32_t>(i));
    }
    tree_ = Tree(values_.begin(), values_.end());
  }
  void Update(const Workload& w) override {
    for (size_t i = 0; i < w.size(); ++i) {
      const Value moved(Point(w.positions()[i].x, w.positions()[i].y), static_cast<uint32_t>(i));
      if (!bulk_) {
        tree_.remove(values_[i]);
        tree_.insert(moved);
      }
      values_[i] = moved;
    }
    if (bulk_) tree_ = Tree(values_.begin(), values_.end());
  }
  size_t Query(Vec2 c, float r, uint64_t* candidates) override {
    out_.clear();
    const Box box(Point(c.x - r, c.y - r), Point(c.x + r, c.y + r));
    const float reach = r + kContactEpsilon;
    const float reach_sq = reach * reach;
    uint64_t examined = 0;
    tree_.query(bgi::intersects(box), boost::make_function_output_iterator([&](const Value& v) {
                  ++examined;
                  const float dx = c.x - bg::get<0>(v.first);
                  const float dy = c.y - bg::get<1>(v.first);
                  if (dx * dx + dy * dy <= reach_sq) out_.push_back(v.second);
                }));
    *candidates += examined;
    return out_.size();
  }

 private:
  bool bulk_;
  Tree tree_;
  std::vector<Value> values_;
  std::vector<uint32_t> out_;
};

}  // namespace

std::unique_ptr<BenchIndex> MakeRtreeIncremental() { return std::make_unique<Rtree>(false); }
std::unique_ptr<BenchIndex> MakeRtreeBulk() { return std::make_unique<Rtree>(true); }

}  // namespace zs::bench
