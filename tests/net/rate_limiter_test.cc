// RateLimiter: bursts up to the rate pass, the excess is dropped, sustained abuse is kicked.
#include <gtest/gtest.h>

#include "net/limits.h"

namespace zs::net {
namespace {

using V = RateLimiter::Verdict;

TEST(RateLimiter, AcceptsTheRateAndDropsTheExcess) {
  RateLimiter r(10);
  int accepted = 0, dropped = 0;
  for (int i = 0; i < 15; ++i) {  // 15 at once: a 1-second burst of 10 passes
    const V v = r.Take(100.0);
    accepted += v == V::kAccept;
    dropped += v == V::kDrop;
  }
  EXPECT_EQ(accepted, 10);
  EXPECT_EQ(dropped, 5);
  EXPECT_EQ(r.Take(100.5), V::kAccept);  // half a second refills five
}

TEST(RateLimiter, SteadyAtTheRateIsNeverKicked) {
  RateLimiter r(10);
  for (int i = 0; i < 600; ++i) EXPECT_EQ(r.Take(i * 0.1), V::kAccept) << i;
}

TEST(RateLimiter, SustainedDoubleRateIsKicked) {
  RateLimiter r(10);
  V last = V::kAccept;
  double t = 0;
  for (; t < 10 && last != V::kKick; t += 1.0 / 25) last = r.Take(t);  // 25/s against 10/s
  EXPECT_EQ(last, V::kKick);
  EXPECT_GT(t, 2.0) << "a short spike is not abuse";
  EXPECT_LT(t, 5.0);
}

TEST(RateLimiter, TenTimesTheRateIsKickedAtOnce) {
  RateLimiter r(10);
  V last = V::kAccept;
  int n = 0;
  for (; n < 1000 && last != V::kKick; ++n) last = r.Take(0.0);
  EXPECT_EQ(last, V::kKick);
  EXPECT_LE(n, 101);
}

}  // namespace
}  // namespace zs::net
