// NearestRanker: the k nearest entities to a point, by centre distance, ties by ascending id, as
// rank *classes* rather than a full order: after Rank(), keys()[0, a) are the a nearest, [0, b)
// the b nearest, ... for the cut points the caller asked for. This is what interest tiers need
// (near_max, near_max + mid_max, + margin), and it is cheaper than sorting.
//
// One circle query on the quadtree, whose radius starts from a hint (the caller keeps last
// tick's k-th distance, returned through *hint) and grows until it holds k entities or reaches
// max_radius; then nth_element partitions on 64-bit keys (distance bits, raw id), which compare
// in one instruction. In a crowd it looks at about k entities, not everyone in range.
// Thread: one ranker per thread (it owns its scratch); the tree is only read.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "spatial/quadtree.h"

namespace zs::interest {

// Rank order as one integer: the bits of a non-negative float order like the float, so
// (distance^2 bits << 32 | raw id) compares by distance, ties by id.
using RankKey = uint64_t;
[[nodiscard]] inline RankKey MakeRankKey(float distance_sq, uint32_t raw_id) {
  return (static_cast<uint64_t>(std::bit_cast<uint32_t>(distance_sq)) << 32) | raw_id;
}
[[nodiscard]] inline float KeyDistanceSq(RankKey k) {
  return std::bit_cast<float>(static_cast<uint32_t>(k >> 32));
}
[[nodiscard]] inline uint32_t KeyRawId(RankKey k) { return static_cast<uint32_t>(k); }

class NearestRanker {
 public:
  // Ranks the k nearest entities to `at` (centre within max_radius, `exclude` left out). `cuts`
  // (ascending, each <= k) are the rank boundaries to partition at. *hint: in, a radius likely to
  // hold k (0: unknown); out, the radius to try next time. position_of(EntityId) -> Vec2 gives
  // an entity's centre (the caller's own table: cheaper than asking the tree).
  template <typename PositionOf>
  void Rank(const spatial::Quadtree& tree, Vec2 at, EntityId exclude, uint32_t k,
            float max_radius, std::initializer_list<uint32_t> cuts, float* hint,
            PositionOf&& position_of) {
    float r = *hint > 0 ? std::min(*hint, max_radius) : max_radius;
    for (;;) {
      tree.QueryCircle({at, r}, {.exclude = exclude}, spatial::QueryOrder::kAny, &query_);
      keys_.clear();
      const float r_sq = r * r;
      for (const EntityId id : query_.ids) {
        const float d = DistanceSq(position_of(id), at);
        if (d <= r_sq) keys_.push_back(MakeRankKey(d, ToRaw(id)));
      }
      if (keys_.size() >= k || r >= max_radius) break;
      r = std::min(max_radius, r * 1.5f + kRadiusSlack);  // too few: the true k-th lies farther
    }
    Partition(k, max_radius, cuts, hint);
  }
  [[nodiscard]] const std::vector<RankKey>& keys() const { return keys_; }

 private:
  static constexpr float kRadiusSlack = 2.0f;  // metres: how far the k-th may move in a tick

  void Partition(uint32_t k, float max_radius, std::initializer_list<uint32_t> cuts,
                 float* hint) {
    if (keys_.size() > k) {
      std::nth_element(keys_.begin(), keys_.begin() + k, keys_.end());
      keys_.resize(k);
    }
    float farthest = 0;
    for (const RankKey key : keys_) farthest = std::max(farthest, KeyDistanceSq(key));
    *hint = keys_.size() < k ? max_radius : std::sqrt(farthest) + kRadiusSlack;
    // Partition at each cut, widest first, each within the previous one's prefix.
    size_t end = keys_.size();
    for (auto it = std::rbegin(cuts); it != std::rend(cuts); ++it) {
      const size_t cut = *it;
      if (cut < end) {
        std::nth_element(keys_.begin(), keys_.begin() + static_cast<ptrdiff_t>(cut),
                         keys_.begin() + static_cast<ptrdiff_t>(end));
        end = cut;
      }
    }
  }

  spatial::QueryResults query_;
  std::vector<RankKey> keys_;
};

}  // namespace zs::interest
