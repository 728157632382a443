// Exact shape tests at their edges: exactly at range, on an arc's edge, behind, touching.
#include "core/shapes.h"

#include <gtest/gtest.h>

namespace zs {
namespace {

TEST(CircleHitsCircle, BoundaryIsInclusive) {
  const Circle c{{0, 0}, 5};
  EXPECT_TRUE(CircleHitsCircle(c, {3, 4}, 0));  // exactly at range
  EXPECT_TRUE(CircleHitsCircle(c, {6, 8}, 5));  // hitbox exactly touching
  EXPECT_FALSE(CircleHitsCircle(c, {6, 8}, 4.99f));
  EXPECT_FALSE(CircleHitsCircle(c, {5.01f, 0}, 0));
  EXPECT_TRUE(CircleHitsCircle({{0, 0}, 0}, {0, 0}, 0));  // a point on a point
}

TEST(AabbHitsCircle, InsideEdgeAndCorner) {
  const Aabb a{{0, 0}, {10, 4}};
  EXPECT_TRUE(AabbHitsCircle(a, {5, 2}, 0));
  EXPECT_TRUE(AabbHitsCircle(a, {10, 4}, 0));  // on the corner
  EXPECT_TRUE(AabbHitsCircle(a, {13, 8}, 5));  // touching the corner (3,4,5)
  EXPECT_FALSE(AabbHitsCircle(a, {13, 8}, 4.99f));
  EXPECT_TRUE(AabbHitsCircle(a, {-2, 2}, 2));  // touching the left edge
}

TEST(CapsuleHitsCircle, ThrustLine) {
  const Capsule c{{0, 0}, {10, 0}, 1};
  EXPECT_TRUE(CapsuleHitsCircle(c, {5, 1}, 0));  // on the side, exactly at width
  EXPECT_TRUE(CapsuleHitsCircle(c, {5, 3}, 2));  // hitbox touching the side
  EXPECT_FALSE(CapsuleHitsCircle(c, {5, 3.01f}, 2));
  EXPECT_TRUE(CapsuleHitsCircle(c, {11, 0}, 0));  // round end cap
  EXPECT_FALSE(CapsuleHitsCircle(c, {-1.01f, 0}, 0));
  const Capsule dot{{2, 2}, {2, 2}, 0};  // zero length, zero width
  EXPECT_TRUE(CapsuleHitsCircle(dot, {2, 2}, 0));
  EXPECT_TRUE(CapsuleHitsCircle(dot, {5, 6}, 5));
}

TEST(SectorHitsCircle, QuarterArc) {
  // Facing +x, 45 degrees either side, range 10.
  const Sector s{{0, 0}, 0.0f, kPi / 4, 10};
  EXPECT_TRUE(SectorHitsCircle(s, {10, 0}, 0));  // exactly at range
  EXPECT_FALSE(SectorHitsCircle(s, {10.01f, 0}, 0));
  EXPECT_TRUE(SectorHitsCircle(s, {5, 5}, 0));                    // exactly on the edge ray
  EXPECT_TRUE(SectorHitsCircle(s, {7.0710678f, 7.0710678f}, 0));  // edge ray at full range
  EXPECT_FALSE(SectorHitsCircle(s, {-1, 0}, 0));                  // behind the attacker
  EXPECT_TRUE(SectorHitsCircle(s, {-1, 0}, 1));                   // behind, hitbox touching origin
  EXPECT_FALSE(SectorHitsCircle(s, {0, 5}, 0));                   // 90 degrees off
  // Hitbox touching the edge ray: centre at distance 1 from the ray y = x.
  EXPECT_FALSE(SectorHitsCircle(s, {4.0f - 0.70710678f, 4.0f + 0.70710678f}, 0.99f));
  EXPECT_TRUE(SectorHitsCircle(s, {4.0f - 0.70710678f, 4.0f + 0.70710678f}, 1.0f));
  // Hitbox touching the arc from outside the range.
  EXPECT_TRUE(SectorHitsCircle(s, {12, 0}, 2));
  EXPECT_FALSE(SectorHitsCircle(s, {12.01f, 0}, 2));
}

TEST(SectorHitsCircle, HalfAngleZeroIsARay) {
  const Sector s{{0, 0}, kPi / 2, 0.0f, 10};
  EXPECT_TRUE(SectorHitsCircle(s, {0, 7}, 0));
  EXPECT_FALSE(SectorHitsCircle(s, {0.01f, 7}, 0));
  EXPECT_TRUE(SectorHitsCircle(s, {0.5f, 7}, 0.5f));
}

TEST(SectorHitsCircle, HalfDiscAndFullDisc) {
  const Sector half{{0, 0}, 0.0f, kPi / 2, 10};
  EXPECT_TRUE(SectorHitsCircle(half, {0, 10}, 0));  // on the straight edge
  EXPECT_FALSE(SectorHitsCircle(half, {-0.01f, 9}, 0));
  const Sector full{{0, 0}, 1.0f, kPi, 10};
  EXPECT_TRUE(SectorHitsCircle(full, {-10, 0}, 0));
  EXPECT_TRUE(SectorHitsCircle(full, {0, -10}, 0));
  EXPECT_FALSE(SectorHitsCircle(full, {0, -10.01f}, 0));
  const Sector wider{{0, 0}, 0.0f, 10.0f, 10};  // half-angle above pi clamps to a disc
  EXPECT_TRUE(SectorHitsCircle(wider, {-10, 0}, 0));
}

TEST(SectorHitsCircle, FacingWrapsAround) {
  // Facing 3*pi is facing pi (-x); the arc covers points behind on -x.
  for (float facing : {kPi, 3 * kPi, -kPi, -5 * kPi}) {
    const Sector s{{0, 0}, facing, 0.3f, 10};
    EXPECT_TRUE(SectorHitsCircle(s, {-9, 0}, 0)) << facing;
    EXPECT_TRUE(SectorHitsCircle(s, {-9, 0.5f}, 0)) << facing;  // straddling the +-pi seam
    EXPECT_TRUE(SectorHitsCircle(s, {-9, -0.5f}, 0)) << facing;
    EXPECT_FALSE(SectorHitsCircle(s, {9, 0}, 0)) << facing;
  }
}

TEST(SectorHitsCircle, ReflexArcBeyondHalfDisc) {
  // 3/4 of a disc facing +x: only the wedge around -x (45 degrees either side) is missing.
  const Sector s{{0, 0}, 0.0f, 3 * kPi / 4, 10};
  EXPECT_TRUE(SectorHitsCircle(s, {0, -9}, 0));
  EXPECT_FALSE(SectorHitsCircle(s, {-9, 0}, 0));
  EXPECT_TRUE(SectorHitsCircle(s, {-5, -5}, 0));     // on an edge of the missing wedge
  EXPECT_TRUE(SectorHitsCircle(s, {-9, 0}, 6.37f));  // big hitbox reaches the edge
}

}  // namespace
}  // namespace zs
