// Morton (Z-order) codes of 16-bit cell coordinates: x in the even bits, y in the odd bits, so
// the cells of any aligned quadtree node are one contiguous run of codes.
// Pure values: no state, any thread.
#pragma once

#include <cstdint>

namespace zs::spatial {

// Spreads the low 16 bits of v to the even bits of the result.
[[nodiscard]] constexpr uint32_t SpreadBits(uint32_t v) noexcept {
  v &= 0xFFFFu;
  v = (v | (v << 8)) & 0x00FF00FFu;
  v = (v | (v << 4)) & 0x0F0F0F0Fu;
  v = (v | (v << 2)) & 0x33333333u;
  v = (v | (v << 1)) & 0x55555555u;
  return v;
}

// The Morton code of cell (x, y), each 0..65535.
[[nodiscard]] constexpr uint32_t Interleave(uint32_t x, uint32_t y) noexcept {
  return SpreadBits(x) | (SpreadBits(y) << 1);
}

static_assert(Interleave(1, 0) == 1 && Interleave(0, 1) == 2 && Interleave(3, 3) == 15);
static_assert(Interleave(0xFFFF, 0xFFFF) == 0xFFFFFFFFu);

}  // namespace zs::spatial
