#include "core/vec2.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/entity_id.h"

namespace zs {
namespace {

TEST(NormalizeAngle, WrapsIntoHalfOpenRange) {
  for (float a : {0.0f, 1.0f, -1.0f, 3.0f * kPi, -3.0f * kPi, 7.5f * kPi, 100.0f, -100.0f}) {
    const float n = NormalizeAngle(a);
    EXPECT_GE(n, -kPi) << a;
    EXPECT_LT(n, kPi) << a;
    EXPECT_NEAR(std::cos(n), std::cos(a), 1e-4f) << a;
    EXPECT_NEAR(std::sin(n), std::sin(a), 1e-4f) << a;
  }
  EXPECT_FLOAT_EQ(NormalizeAngle(kPi), -kPi);
}

TEST(NormalizeAngle, NonFiniteBecomesZero) {
  EXPECT_EQ(NormalizeAngle(std::numeric_limits<float>::quiet_NaN()), 0.0f);
  EXPECT_EQ(NormalizeAngle(std::numeric_limits<float>::infinity()), 0.0f);
}

TEST(EntityId, PacksIndexAndGeneration) {
  const EntityId id = MakeEntityId(12345, 77);
  EXPECT_EQ(EntityIndex(id), 12345u);
  EXPECT_EQ(EntityGeneration(id), 77u);
  EXPECT_NE(MakeEntityId(12345, 78), id);
  EXPECT_EQ(EntityIndex(MakeEntityId(kMaxEntityIndex, kMaxGeneration)), kMaxEntityIndex);
  EXPECT_EQ(EntityGeneration(MakeEntityId(kMaxEntityIndex, kMaxGeneration)), kMaxGeneration);
}

}  // namespace
}  // namespace zs
