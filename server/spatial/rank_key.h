// RankKey: an entity's rank by distance as one 64-bit integer, so that ranking (nth_element,
// sort, min/max) is distance-then-id order in one integer compare.
//
// Layout (Quadtree::QueryCircleKeys writes it; interest::NearestRanker and its callers read it):
//   bits 63..32  std::bit_cast<uint32_t>(distance^2), a non-negative float (never NaN, never -0):
//                the bits of such floats order exactly like the floats;
//   bits 31..0   the entity's raw id (ToRaw: index and generation), so equal distances rank by
//                ascending raw id.
// Pure values: no state, any thread.
#pragma once

#include <bit>
#include <cstdint>

namespace zs::spatial {

using RankKey = uint64_t;

// REQUIRES: distance_sq >= +0 and not NaN (a sum of squares is).
[[nodiscard]] constexpr RankKey MakeRankKey(float distance_sq, uint32_t raw_id) noexcept {
  return (static_cast<uint64_t>(std::bit_cast<uint32_t>(distance_sq)) << 32) | raw_id;
}
[[nodiscard]] constexpr float KeyDistanceSq(RankKey k) noexcept {
  return std::bit_cast<float>(static_cast<uint32_t>(k >> 32));
}
[[nodiscard]] constexpr uint32_t KeyRawId(RankKey k) noexcept { return static_cast<uint32_t>(k); }

static_assert(MakeRankKey(1.0f, 7) < MakeRankKey(1.0f, 8), "ties rank by id");
static_assert(MakeRankKey(1.0f, 0xFFFFFFFFu) < MakeRankKey(1.5f, 0), "distance ranks first");
static_assert(MakeRankKey(0.0f, 5) < MakeRankKey(1e-45f, 0), "denormals order too");
static_assert(KeyDistanceSq(MakeRankKey(2.25f, 3)) == 2.25f &&
              KeyRawId(MakeRankKey(2.25f, 3)) == 3);

}  // namespace zs::spatial
