// Vec2: a 2D point/vector in world units (floats: positions in a zone are at most a few
// thousand units from the origin, where float resolution is ~0.001 units).
#pragma once

#include <cmath>

namespace zs {

struct Vec2 {
  float x = 0.0f;
  float y = 0.0f;

  constexpr Vec2 operator+(Vec2 o) const noexcept { return {x + o.x, y + o.y}; }
  constexpr Vec2 operator-(Vec2 o) const noexcept { return {x - o.x, y - o.y}; }
  constexpr Vec2 operator*(float s) const noexcept { return {x * s, y * s}; }
  constexpr bool operator==(const Vec2&) const noexcept = default;
};

[[nodiscard]] constexpr float Dot(Vec2 a, Vec2 b) noexcept { return a.x * b.x + a.y * b.y; }
[[nodiscard]] constexpr float LengthSq(Vec2 v) noexcept { return Dot(v, v); }
[[nodiscard]] inline float Length(Vec2 v) noexcept { return std::sqrt(LengthSq(v)); }
[[nodiscard]] constexpr float DistanceSq(Vec2 a, Vec2 b) noexcept { return LengthSq(a - b); }
[[nodiscard]] inline bool IsFinite(Vec2 v) noexcept {
  return std::isfinite(v.x) && std::isfinite(v.y);
}
// Unit vector pointing at `angle` radians (0 = +x, counter-clockwise).
[[nodiscard]] inline Vec2 FromAngle(float angle) noexcept {
  return {std::cos(angle), std::sin(angle)};
}

inline constexpr float kPi = 3.14159265358979323846f;

// Wraps any finite angle into [-pi, pi). Non-finite input returns 0.
[[nodiscard]] inline float NormalizeAngle(float angle) noexcept {
  if (!std::isfinite(angle)) return 0.0f;
  float a = std::remainder(angle, 2.0f * kPi);  // in [-pi, pi]
  if (a >= kPi) a -= 2.0f * kPi;
  return a;
}

}  // namespace zs
