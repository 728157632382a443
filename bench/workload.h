// The one workload every spatial index runs, so results compare side by side.
//
// N points in a W x W world, each moving 0.5..5 units per tick in a random direction and
// reflecting at the edges. Uniform: anywhere. Clustered: 90% in 20 Gaussian blobs (sigma 150),
// 10% uniform. Crowd: kCrowdSize points in a kCrowdSide x kCrowdSide square at the centre
// (walking 0.05..0.5 per tick, reflecting at the square's edges), the rest uniform. Seeded:
// every index sees exactly the same positions tick after tick.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "core/shapes.h"
#include "core/vec2.h"

namespace zs::bench {

enum class Distribution { kUniform, kClustered, kCrowd };

inline constexpr uint32_t kCrowdSize = 2000;
inline constexpr float kCrowdSide = 20.0f;

class Workload {
 public:
  Workload(Distribution dist, uint32_t n, float world, uint32_t seed) : world_(world) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, world);
    std::uniform_real_distribution<float> angle(0.0f, 2.0f * kPi);
    std::uniform_real_distribution<float> speed(0.5f, 5.0f);
    std::vector<Vec2> blobs;
    blobs.reserve(20);
    for (int b = 0; b < 20; ++b) blobs.push_back({u(rng), u(rng)});
    std::normal_distribution<float> gauss(0.0f, 150.0f);
    pos_.reserve(n);
    vel_.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
      Vec2 p{u(rng), u(rng)};
      if (dist == Distribution::kClustered && i % 10 != 0) {
        const Vec2 c = blobs[i % blobs.size()];
        p = {std::clamp(c.x + gauss(rng), 0.0f, world), std::clamp(c.y + gauss(rng), 0.0f, world)};
      }
      float v = speed(rng);
      if (dist == Distribution::kCrowd && i < kCrowdSize) {
        std::uniform_real_distribution<float> in(Crowd().min.x, Crowd().max.x);
        p = {in(rng), in(rng)};
        v *= 0.1f;
        ++crowd_;
      }
      pos_.push_back(p);
      vel_.push_back(FromAngle(angle(rng)) * v);
    }
  }

  // The crowd's square.
  [[nodiscard]] Aabb Crowd() const {
    const float lo = (world_ - kCrowdSide) / 2;
    return {{lo, lo}, {lo + kCrowdSide, lo + kCrowdSide}};
  }

  void Step() {
    const Aabb all{{0, 0}, {world_, world_}};
    const Aabb crowd = Crowd();
    for (size_t i = 0; i < pos_.size(); ++i) {
      const Aabb& box = i < crowd_ ? crowd : all;
      Vec2& p = pos_[i];
      Vec2& v = vel_[i];
      p = p + v;
      if (p.x < box.min.x) p.x = 2.0f * box.min.x - p.x, v.x = -v.x;
      if (p.x > box.max.x) p.x = 2.0f * box.max.x - p.x, v.x = -v.x;
      if (p.y < box.min.y) p.y = 2.0f * box.min.y - p.y, v.y = -v.y;
      if (p.y > box.max.y) p.y = 2.0f * box.max.y - p.y, v.y = -v.y;
    }
  }

  [[nodiscard]] const std::vector<Vec2>& positions() const { return pos_; }
  [[nodiscard]] float world() const { return world_; }
  [[nodiscard]] size_t size() const { return pos_.size(); }

 private:
  float world_;
  size_t crowd_ = 0;  // the first crowd_ points stay in Crowd()
  std::vector<Vec2> pos_;
  std::vector<Vec2> vel_;
};

}  // namespace zs::bench
