// ClockSync and TickClock (zs_client/clock.h): the offset from the least-queued sample, the RTT
// statistics, the tick origin from the earliest arrivals, the jitter, and the tick <-> time maps.
#include "zs_client/clock.h"

#include <gtest/gtest.h>

#include <cmath>

namespace zs::client {
namespace {

TEST(ClientClock, TheOffsetComesFromTheSmallestRoundTrip) {
  ClockSync c;
  EXPECT_TRUE(std::isnan(c.offset()));
  EXPECT_EQ(c.ServerNow(1000), 1000);
  c.AddSample(1000, 1100, 6050);  // rtt 100: offset 5000
  c.AddSample(2000, 2010, 7000);  // rtt 10: offset 4995 (the best)
  c.AddSample(3000, 3300, 8400);  // rtt 300: offset 5250, ignored
  EXPECT_DOUBLE_EQ(c.offset(), 4995);
  EXPECT_DOUBLE_EQ(c.rtt_last(), 300);
  EXPECT_DOUBLE_EQ(c.rtt_min(), 10);
  EXPECT_DOUBLE_EQ(c.rtt_smoothed(), 100 + (10 - 100) / 8.0 + (300 - (100 + (10 - 100) / 8.0)) / 8);
  EXPECT_DOUBLE_EQ(c.ServerNow(10000), 14995);
  for (int i = 0; i < 8; ++i) c.AddSample(4000 + i, 4200 + i, 9300 + i);  // the rtt-10 one ages out
  EXPECT_DOUBLE_EQ(c.offset(), 9300 - 4100.0);
  EXPECT_EQ(c.pongs(), 11U);
}

TEST(ClientClock, AWelcomeGivesAnOffsetButNoRoundTrip) {
  ClockSync c;
  c.AddSample(0, 400, 10200, false);
  EXPECT_DOUBLE_EQ(c.offset(), 10000);
  EXPECT_TRUE(std::isnan(c.rtt_smoothed()));
  EXPECT_EQ(c.pongs(), 0U);
}

TEST(ClientClock, TheTickOriginIsTheEarliestArrivalAndJitterTheLateOnes) {
  TickClock t;
  t.SetTickRate(20);
  EXPECT_FALSE(t.known());
  // Ticks come two at a time (ticks_per_send 2): the odd one 50 ms late.
  for (uint64_t tick = 100; tick < 164; ++tick) {
    const double arrival = 1000 + static_cast<double>(tick - 100) * 50 + (tick % 2 == 0 ? 50 : 0);
    t.Observe(tick, arrival);
  }
  EXPECT_TRUE(t.known());
  EXPECT_DOUBLE_EQ(t.LocalTimeOfTick(101), 1050);
  EXPECT_DOUBLE_EQ(t.TickAt(1050), 101);
  EXPECT_DOUBLE_EQ(t.jitter_ms(), 50);
  EXPECT_DOUBLE_EQ(t.RenderDelayTicks(0.25), 1 + 1 + 0.25);
  EXPECT_DOUBLE_EQ(t.RenderTick(2000, 0.25), 120 - 2.25);
}

TEST(ClientClock, ATickCountThatJumpsStartsAfresh) {
  TickClock t;
  t.SetTickRate(20);
  t.Observe(1000, 0);
  t.Observe(1001, 50);
  t.Observe(5, 100);  // another zone's count
  EXPECT_DOUBLE_EQ(t.newest_tick(), 5);
  EXPECT_DOUBLE_EQ(t.LocalTimeOfTick(5), 100);
}

TEST(ClientClock, ServerTicksMapToServerTimeFromTheAnchor) {
  TickClock t;
  t.SetTickRate(20);
  EXPECT_TRUE(std::isnan(t.ServerTimeOfTick(10)));
  t.Anchor(100, 1'000'000);
  EXPECT_DOUBLE_EQ(t.ServerTimeOfTick(110), 1'000'500);
  EXPECT_DOUBLE_EQ(t.TickAtServerTime(999'975), 99.5);
}

}  // namespace
}  // namespace zs::client
