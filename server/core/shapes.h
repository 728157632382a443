// Query shapes and their exact tests against hitbox circles.
//
// Every area question the server asks ("who does this swing hit?", "who is near me?") is one of
// these shapes tested against entities, which are circles (centre, hitbox radius >= 0). The tests
// here are the single definition of "hit": the quadtree's narrow phase and the brute-force oracle
// both call them, so the two agree bit for bit.
//
// Touching counts as a hit: every test accepts up to kContactEpsilon of separation, so a target
// exactly at range, exactly on an arc's edge, or whose hitbox just touches the shape is hit
// regardless of float rounding.
#pragma once

#include <algorithm>
#include <cmath>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "core/vec2.h"

namespace zs {

inline constexpr float kContactEpsilon = 1e-3f;

// Axis-aligned rectangle, min inclusive, max inclusive.
struct Aabb {
  Vec2 min;
  Vec2 max;

  [[nodiscard]] constexpr bool Contains(Vec2 p) const noexcept {
    return p.x >= min.x && p.x <= max.x && p.y >= min.y && p.y <= max.y;
  }
  [[nodiscard]] constexpr bool Valid() const noexcept { return min.x <= max.x && min.y <= max.y; }
  [[nodiscard]] constexpr float Width() const noexcept { return max.x - min.x; }
  [[nodiscard]] constexpr float Height() const noexcept { return max.y - min.y; }
};

struct Circle {
  Vec2 center;
  float radius = 0.0f;
};

// A pie slice: everything within `range` of `origin` whose direction is within `half_angle` of
// `facing`. half_angle 0 is a ray, pi/2 a half disc, pi a full disc. Angles in radians.
struct Sector {
  Vec2 origin;
  float facing = 0.0f;
  float half_angle = 0.0f;
  float range = 0.0f;
};

// A segment from `a` to `b` swept by `radius`: a thrust, a charge, a beam of width 2*radius.
struct Capsule {
  Vec2 a;
  Vec2 b;
  float radius = 0.0f;
};

// max(a, b) as one instruction. Without -ffast-math, GCC compiles `a > b ? a : b` on floats to
// a branch (it cannot assume no NaN); on the hot path that branch mispredicts half the time.
[[nodiscard]] inline float MaxBranchless(float a, float b) noexcept {
#if defined(__SSE__)
  return _mm_cvtss_f32(_mm_max_ss(_mm_set_ss(a), _mm_set_ss(b)));  // a > b ? a : b
#else
  return a > b ? a : b;
#endif
}

// Squared distance from point p to the segment [0, e] (p relative to the segment start).
[[nodiscard]] inline float SegmentDistanceSq(Vec2 p, Vec2 e) noexcept {
  const float len_sq = LengthSq(e);
  float t = len_sq > 0.0f ? Dot(p, e) / len_sq : 0.0f;
  t = std::clamp(t, 0.0f, 1.0f);
  return LengthSq(p - e * t);
}

// Squared distance from p to the rectangle (0 inside).
[[nodiscard]] inline float RectDistanceSq(Vec2 p, const Aabb& r) noexcept {
  // This runs for every node a query looks at, so it must be branch-free: MaxBranchless.
  const float dx = MaxBranchless(MaxBranchless(r.min.x - p.x, 0.0f), p.x - r.max.x);
  const float dy = MaxBranchless(MaxBranchless(r.min.y - p.y, 0.0f), p.y - r.max.y);
  return dx * dx + dy * dy;
}

// ---- exact tests: shape vs hitbox circle (centre c, radius r) ----

[[nodiscard]] inline bool CircleHitsCircle(const Circle& s, Vec2 c, float r) noexcept {
  const float reach = s.radius + r + kContactEpsilon;
  return DistanceSq(s.center, c) <= reach * reach;
}

[[nodiscard]] inline bool AabbHitsCircle(const Aabb& s, Vec2 c, float r) noexcept {
  const float reach = r + kContactEpsilon;
  return RectDistanceSq(c, s) <= reach * reach;
}

[[nodiscard]] inline bool CapsuleHitsCircle(const Capsule& s, Vec2 c, float r) noexcept {
  const float reach = s.radius + r + kContactEpsilon;
  return SegmentDistanceSq(c - s.a, s.b - s.a) <= reach * reach;
}

// A Sector with its trigonometry done once, for testing against many circles.
struct PreparedSector {
  Vec2 origin;
  Vec2 dir;        // unit facing
  Vec2 edge_ccw;   // range * FromAngle(facing + half_angle)
  Vec2 edge_cw;    // range * FromAngle(facing - half_angle)
  float cos_half;  // cos(half_angle)
  float range;
  float half_angle;  // clamped to [0, pi]
  bool full;         // half_angle >= pi: a disc

  explicit PreparedSector(const Sector& s) noexcept {
    const float facing = NormalizeAngle(s.facing);
    half_angle = std::isfinite(s.half_angle) ? std::clamp(s.half_angle, 0.0f, kPi) : 0.0f;
    range = std::max(s.range, 0.0f);
    origin = s.origin;
    dir = FromAngle(facing);
    edge_ccw = FromAngle(facing + half_angle) * range;
    edge_cw = FromAngle(facing - half_angle) * range;
    cos_half = std::cos(half_angle);
    full = half_angle >= kPi;
  }
};

[[nodiscard]] inline bool SectorHitsCircle(const PreparedSector& s, Vec2 c, float r) noexcept {
  const Vec2 v = c - s.origin;
  const float d_sq = LengthSq(v);
  const float rr = r + kContactEpsilon;
  const float reach = s.range + rr;
  if (d_sq > reach * reach) return false;
  if (d_sq <= rr * rr) return true;  // the hitbox covers the origin
  if (s.full) return true;
  // Centre inside the wedge: the sector's nearest point lies on the ray towards c.
  if (Dot(v, s.dir) >= std::sqrt(d_sq) * s.cos_half) return true;
  // Centre outside the wedge: the nearest point lies on one of the two straight edges.
  return SegmentDistanceSq(v, s.edge_ccw) <= rr * rr || SegmentDistanceSq(v, s.edge_cw) <= rr * rr;
}

[[nodiscard]] inline bool SectorHitsCircle(const Sector& s, Vec2 c, float r) noexcept {
  return SectorHitsCircle(PreparedSector(s), c, r);
}

}  // namespace zs
