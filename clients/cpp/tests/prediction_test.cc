// Prediction (zs_client/prediction.h) against a simulated server that moves the player as the
// real one does (speed per tick, normalised directions, clamped to the zone): convergence,
// acknowledgement across the 2^32 wrap, the session window, correction smoothing and snapping.
#include "zs_client/prediction.h"

#include <gtest/gtest.h>

#include <cmath>
#include <deque>

namespace zs::client {
namespace {

constexpr double kTickMs = 50;
constexpr uint32_t kSpeed = 400;  // cm/s: 20 cm per tick

ZoneInfo Zone() {
  return ZoneInfo{.id = 1, .name = "z", .min_x = 0, .min_y = 0, .max_x = 10000, .max_y = 10000};
}

// The server's side: inputs arrive `one_way_ms` after they are sent and apply at the next tick.
struct FakeServer {
  double x = 5000;
  double y = 5000;
  double dx = 0;
  double dy = 0;
  uint32_t last_seq = 0;
  struct Input {
    double at;
    uint32_t seq;
    double dx;
    double dy;
  };
  std::deque<Input> inbox;

  void Tick(double now) {
    while (!inbox.empty() && inbox.front().at <= now) {
      const double len = std::hypot(inbox.front().dx, inbox.front().dy);
      dx = len > 0 ? inbox.front().dx / len : 0;
      dy = len > 0 ? inbox.front().dy / len : 0;
      last_seq = inbox.front().seq;
      inbox.pop_front();
    }
    x = std::clamp(x + dx * kSpeed * kTickMs / 1000, 0.0, 10000.0);
    y = std::clamp(y + dy * kSpeed * kTickMs / 1000, 0.0, 10000.0);
  }
};

// Runs `ms` of ticks; frames reach the client `one_way_ms` after each tick.
void RunTicks(FakeServer* server, Prediction* p, uint64_t* tick, double* now, double ms,
              double one_way_ms) {
  for (double end = *now + ms; *now < end; *now += kTickMs) {
    server->Tick(*now);
    ++*tick;
    p->OnFrame(*tick, server->last_seq, server->x, server->y, true, *now + one_way_ms,
               *now + one_way_ms, 2 * one_way_ms);
  }
}

TEST(ClientPrediction, ThePredictionConvergesOnTheServersPosition) {
  Prediction p;
  p.Configure(kSpeed, 20, Zone());
  p.Reset(5000, 5000, true, 0);
  FakeServer server;
  uint64_t tick = 0;
  double now = 0;
  RunTicks(&server, &p, &tick, &now, 500, 40);
  uint32_t seq = 0;
  for (int turn = 0; turn < 8; ++turn) {  // turns every 400 ms
    const double a = turn * 0.8;
    p.AddMove(++seq, 3 * std::cos(a), 3 * std::sin(a), now);  // any length: normalised
    server.inbox.push_back({now + 40, seq, 3 * std::cos(a), 3 * std::sin(a)});
    RunTicks(&server, &p, &tick, &now, 400, 40);
  }
  p.AddMove(++seq, 0, 0, now);
  server.inbox.push_back({now + 40, seq, 0, 0});
  RunTicks(&server, &p, &tick, &now, 1000, 40);
  EXPECT_EQ(p.pending_count(), 0U);
  const Position at = p.PositionAt(now + 40);
  EXPECT_NEAR(at.x, server.x, 1);
  EXPECT_NEAR(at.y, server.y, 1);
  EXPECT_EQ(p.snaps(), 0U);
  EXPECT_LT(p.largest_correction(), 2 * kSpeed * kTickMs / 1000);  // within about two ticks' walk
}

TEST(ClientPrediction, AMoveIsDrawnAtOnceAndClampedToTheZone) {
  Prediction p;
  p.Configure(kSpeed, 20, Zone());
  p.Reset(9990, 100, true, 0);
  p.AddMove(1, 1, 0, 1000);
  EXPECT_DOUBLE_EQ(p.RawAt(1000).x, 9990);
  EXPECT_DOUBLE_EQ(p.RawAt(1010).x, 9994);
  EXPECT_DOUBLE_EQ(p.RawAt(2000).x, 10000);  // the zone's edge
  EXPECT_DOUBLE_EQ(p.direction().x, 1);
  p.AddMove(2, 0, 0, 2000);  // (0, 0) stops
  EXPECT_DOUBLE_EQ(p.direction().x, 0);
}

TEST(ClientPrediction, AcknowledgementsWrapAfter2To32) {
  Prediction p;
  p.Configure(kSpeed, 20, Zone());
  p.Reset(5000, 5000, true, 0xFFFFFFFDU);
  p.AddMove(0xFFFFFFFEU, 1, 0, 0);
  p.AddMove(0xFFFFFFFFU, 0, 1, 10);
  p.AddMove(0, -1, 0, 20);
  p.OnFrame(1, 0xFFFFFFFEU, 5000, 5000, true, 60, 60, 20);
  EXPECT_EQ(p.pending_count(), 2U);
  p.OnFrame(2, 0, 5000, 5000, true, 110, 110, 20);  // 0 comes after 2^32 - 1
  EXPECT_EQ(p.pending_count(), 0U);
  EXPECT_DOUBLE_EQ(p.direction().x, -1);
}

TEST(ClientPrediction, AFreshSessionsZeroAcknowledgesNothing) {
  Prediction p;  // seqs in the upper half: plain serial order would read 0 as newer
  p.Configure(kSpeed, 20, Zone());
  p.Reset(5000, 5000, true, 0x90000000U);
  p.AddMove(0x90000001U, 1, 0, 0);
  p.OnFrame(1, 0, 5000, 5000, true, 50, 50, 20);
  EXPECT_EQ(p.pending_count(), 1U);
  p.OnFrame(2, 0x90000001U, 5020, 5000, true, 100, 100, 20);
  EXPECT_EQ(p.pending_count(), 0U);
}

TEST(ClientPrediction, ARefusedMoveNeverChangedTheDirection) {
  Prediction p;
  p.Configure(kSpeed, 20, Zone());
  p.Reset(5000, 5000, true, 0);
  p.AddMove(1, 1, 0, 0);
  p.OnFrame(1, 1, 5000, 5000, true, 50, 50, 20);
  p.AddMove(2, 0, 1, 60);
  p.MoveRefused(2);
  p.OnFrame(2, 2, 5020, 5000, true, 100, 100, 20);
  EXPECT_DOUBLE_EQ(p.direction().x, 1);
  EXPECT_DOUBLE_EQ(p.direction().y, 0);
}

TEST(ClientPrediction, AnErrorGlidesAwayAndALargeOneSnaps) {
  Prediction p({.correction_ms = 100, .snap_cm = 400});
  p.Configure(kSpeed, 20, Zone());
  p.Reset(5000, 5000, true, 0);
  p.OnFrame(1, 0, 5000, 5000, true, 0, 0, 20);
  const Position before = p.PositionAt(0);
  p.OnFrame(2, 0, 5100, 5000, true, 0, 50, 20);                       // the server says 1 m further
  EXPECT_NEAR(p.PositionAt(0).x, before.x, 1e-9);                     // no jump ...
  EXPECT_NEAR(p.PositionAt(100).x, 5100 - 100 * std::exp(-1), 1e-6);  // ... a glide
  EXPECT_NEAR(p.PositionAt(1000).x, 5100, 0.01);
  EXPECT_EQ(p.snaps(), 0U);
  p.OnFrame(3, 0, 7000, 5000, true, 1000, 100, 20);  // 19 m: snaps
  EXPECT_EQ(p.snaps(), 1U);
  EXPECT_DOUBLE_EQ(p.PositionAt(1000).x, 7000);
}

TEST(ClientPrediction, ADeadPlayerIsNotPredicted) {
  Prediction p;
  p.Configure(kSpeed, 20, Zone());
  p.Reset(5000, 5000, true, 0);
  p.AddMove(1, 1, 0, 0);
  p.OnFrame(1, 1, 5000, 5000, false, 50, 50, 20);
  EXPECT_DOUBLE_EQ(p.RawAt(5000).x, 5000);
}

}  // namespace
}  // namespace zs::client
