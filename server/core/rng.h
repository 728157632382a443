// Rng: a small seeded generator whose sequence is the same on every platform and compiler.
//
// std::mt19937 is portable but std::uniform_*_distribution is not (each standard library maps
// bits to values its own way), and the simulation must be bit-for-bit reproducible from a seed.
// splitmix64: 64 bits of state, good statistical quality, trivially copyable.
#pragma once

#include <cstdint>

namespace zs {

class Rng {
 public:
  explicit constexpr Rng(uint64_t seed) noexcept : state_(seed) {}

  constexpr uint64_t Next() noexcept {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1), 24 bits of precision.
  constexpr float Unit() noexcept {
    return static_cast<float>(Next() >> 40) * (1.0f / 16777216.0f);
  }
  // Uniform in [lo, hi).
  constexpr float Range(float lo, float hi) noexcept { return lo + (hi - lo) * Unit(); }
  // Uniform in [0, n); REQUIRES: n > 0.
  constexpr uint32_t Below(uint32_t n) noexcept {
    return static_cast<uint32_t>((Next() >> 32) * n >> 32);
  }

 private:
  uint64_t state_;
};

}  // namespace zs
