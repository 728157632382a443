// NearestRanker: the k nearest entities to a point, by centre distance with every distance under a
// floor counted as the floor and the caller's incumbents counted a band nearer (RankDistanceSq),
// ties by ascending id, as rank *classes* rather than
// a full order: after Rank(), keys()[0, a) are the a nearest, [0, b) the b nearest, ... for the cut
// points the caller asked for. This is what interest tiers need (near_max, near_max + mid_max, +
// margin), and it is cheaper than sorting.
//
// One ranking query on the quadtree (Quadtree::QueryCircleKeys: the keys come straight from its
// leaf scans), whose radius starts from a hint (the caller keeps last tick's k-th distance,
// returned through *hint) and grows until it holds k entities or reaches max_radius, and to the
// floor when the k-th one is under it (every entity under the floor ties with it, and one may
// have a lower id), or to an incumbent's banded distance when that is the k-th (one beyond the
// radius is added from its position); the keys' distances are raised to the floor and the
// incumbents' banded, then the 64-bit keys (distance^2
// bits, raw id: spatial/rank_key.h; they compare in one instruction) are bucketed by distance and
// partitioned with nth_element only inside the buckets holding a cut rank (CutRanks). In a crowd it
// looks at about k entities, not everyone in range. Thread: one ranker per thread (it owns its
// scratch); the tree is only read.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

#include "spatial/quadtree.h"
#include "spatial/rank_key.h"

namespace zs::interest {

// Rank order as one integer (distance^2 bits << 32 | raw id): the tree's own key layout, so the
// keys it writes are ranked as they are.
using spatial::KeyDistanceSq;
using spatial::KeyRawId;
using spatial::MakeRankKey;
using spatial::RankKey;

// The squared distance ranks compare: the centre distance, less `band` metres for an incumbent
// (the caller's: interest's near tier of the last tick), or `rank_floor` metres when that is less
// (0: exact), squared; equal ones rank by ascending id.
//   - The floor: everything within it of a viewer ties, so a crowd milling there (a crowd stacked
//     on one spot) keeps its ranks as it shuffles instead of entering and leaving the tiers (each
//     time costing its viewer a whole EntityEnter).
//   - The band: an incumbent keeps its rank until another is `band` metres nearer, so a crowd
//     that shuffles does not replace the nearest ones every tick.
// Non-decreasing in distance_sq, so the keys rank as the distances do, up to ties and the band.
[[nodiscard]] inline float RankDistanceSq(float distance_sq, float rank_floor, float band = 0) {
  if (band > 0) {
    const float d = std::max(0.0f, std::sqrt(distance_sq) - band);
    distance_sq = d * d;
  }
  const float floor_sq = rank_floor * rank_floor;
  return rank_floor > 0 && distance_sq < floor_sq ? floor_sq : distance_sq;
}

// An entity that ranks `RankRule::band` nearer than it is, at its centre as the tree has it.
struct Incumbent {
  EntityId id;
  Vec2 position;
};

// How Rank compares distances (RankDistanceSq).
struct RankRule {
  float floor = 0;  // metres; 0: exact
  float band = 0;   // metres the incumbents rank nearer than they are; 0: none
  // Distinct live entities of the tree (an id whose index was reused would band another one);
  // the excluded entity is not among them.
  std::span<const Incumbent> incumbents;
};

struct RankCut {
  size_t kept = 0;   // min(number of keys, k)
  RankKey last = 0;  // the largest kept key (the k-th nearest when there were k); 0 if none
};

// Rank classes in place: afterwards keys[0, kept) are the kept = min(keys.size(), k) smallest
// keys, and for each cut c < kept, keys[0, c) are the c smallest; keys past `kept` are left
// unspecified. REQUIRES: cuts ascending. `radius`: the range the keys were gathered in; it only
// balances the buckets (any value gives the same classes). `scratch` is reused: no allocation
// once warm.
//
// How: one counting pass over kBuckets buckets of d^2 (linear in d^2 up to radius^2, so a uniform
// crowd fills them evenly: d^2 is uniform over a disc), one scatter into bucket order, then
// nth_element only inside the bucket holding each cut rank, a few keys each, instead of
// nth_element over everything once per cut. The bucket is a non-decreasing function of the key,
// so bucket order is key order across buckets and the classes are exactly nth_element's.
inline RankCut CutRanks(std::span<RankKey> keys, uint32_t k, float radius,
                        std::initializer_list<uint32_t> cuts, std::vector<RankKey>* scratch) {
  constexpr uint32_t kBuckets = 64;
  const size_t n = keys.size();
  RankCut out{.kept = std::min<size_t>(n, k)};
  if (out.kept == 0) return out;
  // d^2 * scale is at most kBuckets (give or take rounding) for keys within radius; the min
  // clamps the rest, which keeps the bucket non-decreasing. A scale that is not finite: one
  // bucket.
  float scale = static_cast<float>(kBuckets) / (radius * radius);
  if (!(scale < 1e30f)) scale = 0.0f;
  const auto bucket = [scale](RankKey key) {
    return std::min(static_cast<uint32_t>(KeyDistanceSq(key) * scale), kBuckets - 1);
  };
  std::array<uint32_t, kBuckets + 1> start{};
  for (const RankKey key : keys) ++start[bucket(key) + 1];
  for (uint32_t b = 0; b < kBuckets; ++b) start[b + 1] += start[b];
  std::array<uint32_t, kBuckets> fill;
  std::copy(start.begin(), start.end() - 1, fill.begin());
  scratch->resize(n);
  RankKey* const data = scratch->data();
  for (const RankKey key : keys) data[fill[bucket(key)]++] = key;
  // The bucket holding sorted position `rank`: start[b] <= rank < start[b + 1].
  const auto bucket_of = [&start](size_t rank) {
    return static_cast<size_t>(
        std::upper_bound(start.begin(), start.end(), static_cast<uint32_t>(rank)) - start.begin() -
        1);
  };
  // Widest first, each within the previous one's prefix.
  size_t end = n;
  const auto cut_at = [&](size_t cut) {
    if (cut >= end) return;
    const size_t b = bucket_of(cut);
    const size_t hi = std::min<size_t>(start[b + 1], end);
    if (start[b] < cut) std::nth_element(data + start[b], data + cut, data + hi);
    end = cut;
  };
  cut_at(k);
  for (auto it = std::rbegin(cuts); it != std::rend(cuts); ++it) cut_at(*it);
  // The largest kept key lies in the bucket holding position kept - 1, at or after its start.
  for (size_t i = start[bucket_of(out.kept - 1)]; i < out.kept; ++i) {
    out.last = std::max(out.last, data[i]);
  }
  std::copy(data, data + out.kept, keys.begin());
  return out;
}

class NearestRanker {
 public:
  // Ranks the k nearest entities to `at` (centre within max_radius, `exclude` left out), by the
  // centres stored in `tree`, their distances as `rule` counts them. `cuts` (ascending, each <= k)
  // are the rank boundaries to partition at. *hint: in, a radius likely to hold k (0: unknown);
  // out, the radius to try next time.
  void Rank(const spatial::Quadtree& tree, Vec2 at, EntityId exclude, uint32_t k, float max_radius,
            const RankRule& rule, std::initializer_list<uint32_t> cuts, float* hint) {
    float r = *hint > 0 ? std::min(*hint, max_radius) : max_radius;
    for (;;) {
      Query(tree, at, exclude, r, max_radius, rule);
      if (keys_.size() < k && r < max_radius) {
        r = std::min(max_radius, r * 1.5f + kRadiusSlack);  // too few: the true k-th lies farther
        continue;
      }
      const RankCut cut = CutRanks(keys_, k, r, cuts, &scratch_);
      keys_.resize(cut.kept);
      // A k-th key beyond r is at the floor or an incumbent: an entity between r and it may rank
      // before it.
      const float kth = std::sqrt(KeyDistanceSq(cut.last));
      if (cut.kept == k && r < kth && r < max_radius) {
        r = std::min(max_radius, kth * (1 + kFloorSlackShare));
        continue;
      }
      *hint = cut.kept < k ? max_radius
                           : kth + std::clamp(kth * kHintSlackShare, kHintSlackMin, kRadiusSlack);
      return;
    }
  }
  [[nodiscard]] const std::vector<RankKey>& keys() const { return keys_; }

 private:
  // Next time's radius: the k-th distance plus a margin for movement, small in a dense crowd
  // (where a metre holds dozens of entities) and larger in a sparse one. Too small costs one more
  // query (the radius grows until it holds k); too large costs candidates.
  static constexpr float kRadiusSlack = 2.0f;       // metres, when growing
  static constexpr float kHintSlackMin = 0.5f;      // metres
  static constexpr float kHintSlackShare = 0.125f;  // of the k-th distance
  // Beyond the floor (or a banded k-th), so float rounding cannot leave out an entity under it.
  static constexpr float kFloorSlackShare = 1.0f / 64;

  // keys_ = the entities within r and every incumbent within max_radius, their distances as the
  // rule counts them.
  void Query(const spatial::Quadtree& tree, Vec2 at, EntityId exclude, float r, float max_radius,
             const RankRule& rule) {
    keys_.clear();
    tree.QueryCircleKeys(at, r, {.exclude = exclude}, &keys_);
    const bool banded = rule.band > 0 && !rule.incumbents.empty();
    if (!banded && !(rule.floor > 0)) return;
    if (banded) {
      for (const Incumbent& i : rule.incumbents) Mark(EntityIndex(i.id), true);
    }
    // Each key as the rule counts it; an incumbent found here is unmarked as it is banded.
    for (RankKey& key : keys_) {
      const uint32_t index = KeyRawId(key) & kMaxEntityIndex;
      const bool incumbent = banded && Marked(index);
      if (incumbent) Mark(index, false);
      if (incumbent || rule.floor > 0) {
        key = MakeRankKey(RankDistanceSq(KeyDistanceSq(key), rule.floor, incumbent ? rule.band : 0),
                          KeyRawId(key));
      }
    }
    if (!banded) return;
    // The incumbents beyond r (still marked), from their positions.
    const float max_sq = max_radius * max_radius;
    for (const Incumbent& i : rule.incumbents) {
      if (!Marked(EntityIndex(i.id))) continue;
      Mark(EntityIndex(i.id), false);
      const float d = DistanceSq(at, i.position);
      if (d <= max_sq) {
        keys_.push_back(MakeRankKey(RankDistanceSq(d, rule.floor, rule.band), ToRaw(i.id)));
      }
    }
  }
  void Mark(uint32_t index, bool on) {
    if (index / 64 >= marks_.size()) marks_.resize(index / 64 + 1, 0);
    const uint64_t bit = uint64_t{1} << (index % 64);
    marks_[index / 64] = on ? marks_[index / 64] | bit : marks_[index / 64] & ~bit;
  }
  [[nodiscard]] bool Marked(uint32_t index) const {
    return index / 64 < marks_.size() && ((marks_[index / 64] >> (index % 64)) & 1u) != 0;
  }

  std::vector<RankKey> keys_;
  std::vector<RankKey> scratch_;  // CutRanks' buffer
  std::vector<uint64_t> marks_;   // by entity index: the incumbents, while a query is filtered
};

}  // namespace zs::interest
