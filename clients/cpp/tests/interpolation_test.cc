// MotionTrack and Interpolation (zs_client/interpolation.h): linear between samples, facing along
// the shorter turn, bounded extrapolation, a held position after a silence, jumps drawn as
// jumps, and tracks that survive a resync.
#include "zs_client/interpolation.h"

#include <gtest/gtest.h>

namespace zs::client {
namespace {

TEST(ClientInterpolation, PositionsBlendLinearlyAndFacingTakesTheShorterTurn) {
  MotionTrack t;
  t.Reset(10, 0, 0, 65000);
  t.Push(11, 100, 50, 500);
  MotionState s;
  ASSERT_TRUE(t.StateAt(10.5, &s));
  EXPECT_DOUBLE_EQ(s.x, 50);
  EXPECT_DOUBLE_EQ(s.y, 25);
  EXPECT_NEAR(s.facing, 65518, 1e-9);  // 65000 -> 500 through 0: 1036 steps, half is 518 on
  EXPECT_DOUBLE_EQ(LerpFacing(100, 65436, 0.5), 0);
  EXPECT_DOUBLE_EQ(LerpFacing(0, 16384, 0.25), 4096);
}

TEST(ClientInterpolation, PastTheNewestItExtrapolatesAtMostTwoTicks) {
  MotionTrack t;
  t.Reset(1, 0, 0, 0);
  t.Push(2, 10, 0, 0);
  MotionState s;
  t.StateAt(3, &s);
  EXPECT_DOUBLE_EQ(s.x, 20);
  t.StateAt(50, &s);
  EXPECT_DOUBLE_EQ(s.x, 30);  // two ticks ahead, then held
  t.StateAt(0, &s);           // older than anything kept: the oldest
  EXPECT_DOUBLE_EQ(s.x, 0);
}

TEST(ClientInterpolation, AWalkerThatStartsAfterASilenceDoesNotSlideFromLongAgo) {
  MotionTrack t;
  t.Reset(1, 0, 0, 0);
  t.Push(30, 100, 0, 0);  // stood still for 29 ticks, then one step
  MotionState s;
  t.StateAt(20, &s);
  EXPECT_DOUBLE_EQ(s.x, 0);  // held until tick 29
  t.StateAt(29.5, &s);
  EXPECT_DOUBLE_EQ(s.x, 50);
}

TEST(ClientInterpolation, ATeleportIsDrawnAsAJumpAndTimeGoingBackStartsAfresh) {
  MotionTrack t;
  t.Reset(1, 0, 0, 0);
  t.Push(2, 5000, 0, 0);  // farther than kSnapCm in one tick
  MotionState s;
  t.StateAt(1.5, &s);
  EXPECT_DOUBLE_EQ(s.x, 0);
  t.StateAt(2, &s);
  EXPECT_DOUBLE_EQ(s.x, 5000);
  t.Push(1, 7, 7, 0);  // a new zone's count
  EXPECT_EQ(t.size(), 1U);
  t.StateAt(100, &s);
  EXPECT_DOUBLE_EQ(s.x, 7);
}

TEST(ClientInterpolation, TracksFollowTheStoreAndSurviveAResync) {
  Interpolation in;
  Entity e{.id = 9,
           .kind = EntityKind::kMonster,
           .template_id = 2,
           .name = "",
           .x = 0,
           .y = 0,
           .facing = 0,
           .radius = 50,
           .hp = 10,
           .max_hp = 10,
           .alive = true};
  in.Enter(e, 1);
  e.x = 100;
  in.Change(e, 2);
  e.hp = 5;  // not a move: no sample
  in.Change(e, 3);
  EXPECT_EQ(in.Find(9)->size(), 2U);
  in.Forget();  // a resync: every entity is listed again
  e.x = 200;
  in.Enter(e, 3);
  in.EndFrame();
  MotionState s;
  ASSERT_TRUE(in.StateAt(9, 2.5, &s));
  EXPECT_DOUBLE_EQ(s.x, 150);  // the track went on
  in.Forget();
  in.EndFrame();  // not listed again: gone
  EXPECT_FALSE(in.StateAt(9, 3, &s));
  in.Enter(e, 4);
  in.Leave(9);
  EXPECT_EQ(in.size(), 0U);
}

}  // namespace
}  // namespace zs::client
