// SendQueue: the backlog rules of one client's send queue, without a socket: the byte cap,
// the age cap, the global cap, the stall rule, the resync after a drain, and the shared gauge.
#include "net/send_queue.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace zs::net {
namespace {

using host::FrameKind;
using Offered = SendQueue::Offered;

SendQueue::Chunk Frame(size_t bytes) {
  auto buffer = std::make_shared<const std::string>(bytes, 'x');
  return {.buffer = buffer, .offset = 0, .size = bytes};
}

// A queue whose byte cap holds a few 1,000-byte frames (each costs its buffer + overhead).
struct Fixture {
  Limits limits{.send_queue_bytes = 4 * (1000 + SendQueue::kChunkOverhead + 64),
                .stall_timeout_s = 10,
                .send_queue_delay_s = 1,
                .total_send_queue_bytes = 1 << 30};
  host::SendQueueCounters counters;
};

TEST(SendQueue, ControlFramesAreQueuedAndTheFirstStartsAWrite) {
  Fixture f;
  SendQueue q(f.limits, f.counters);
  EXPECT_EQ(q.StartWrite(), nullptr) << "nothing to write";
  EXPECT_EQ(q.Offer(Frame(100), FrameKind::kControl, 0), Offered::kQueued);
  const SendQueue::Chunk* c = q.StartWrite();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->size, 100u);
  EXPECT_EQ(q.StartWrite(), nullptr) << "one write in flight";
  EXPECT_TRUE(q.writing());
  EXPECT_EQ(q.bytes(), SendQueue::Cost(*c));
  EXPECT_EQ(f.counters.bytes.value(), static_cast<int64_t>(q.bytes()));
}

TEST(SendQueue, TickFramesOverTheByteCapAreDroppedUntilAResyncAfterTheDrain) {
  Fixture f;
  SendQueue q(f.limits, f.counters);
  double now = 0;
  ASSERT_EQ(q.Offer(Frame(1000), FrameKind::kTick, now), Offered::kQueued);
  ASSERT_NE(q.StartWrite(), nullptr);  // in flight, never completes for now
  int queued = 1;
  Offered last = Offered::kQueued;
  while (last == Offered::kQueued) {
    last = q.Offer(Frame(1000), FrameKind::kTick, now);
    if (last == Offered::kQueued) ++queued;
  }
  EXPECT_EQ(last, Offered::kBeganDropping) << "the first drop begins the backlog";
  EXPECT_EQ(queued, 4);
  EXPECT_LE(q.bytes(), f.limits.send_queue_bytes);
  EXPECT_EQ(q.Offer(Frame(1000), FrameKind::kTick, now), Offered::kDropped);
  EXPECT_EQ(q.Offer(Frame(10), FrameKind::kTick, now), Offered::kDropped)
      << "small frames too: dropping lasts until the queue drains";
  EXPECT_EQ(q.Offer(Frame(100), FrameKind::kControl, now), Offered::kQueued)
      << "control frames are never dropped";
  EXPECT_EQ(f.counters.overflows.value(), 3u);
  EXPECT_TRUE(q.dropping());

  // Drain: the first completions leave it above half the cap; then it resumes, once.
  int resumed = 0;
  while (!q.empty()) {
    if (!q.writing()) {
      ASSERT_NE(q.StartWrite(), nullptr);
    }
    now += 0.01;
    if (q.Written(now, /*closing=*/false)) ++resumed;
  }
  EXPECT_EQ(resumed, 1);
  EXPECT_FALSE(q.dropping());
  EXPECT_TRUE(q.awaiting_resync());
  EXPECT_EQ(q.Offer(Frame(100), FrameKind::kTick, now), Offered::kDropped)
      << "no tick before the resync tick: the client would see a gap";
  EXPECT_EQ(q.Offer(Frame(100), FrameKind::kResyncTick, now), Offered::kQueued);
  EXPECT_FALSE(q.awaiting_resync());
  EXPECT_EQ(q.Offer(Frame(100), FrameKind::kTick, now), Offered::kQueued);
}

TEST(SendQueue, AnOldFrameAtTheFrontCountsAsOverTheCap) {
  Fixture f;
  SendQueue q(f.limits, f.counters);
  ASSERT_EQ(q.Offer(Frame(10), FrameKind::kTick, 0), Offered::kQueued);
  ASSERT_NE(q.StartWrite(), nullptr);
  EXPECT_EQ(q.Offer(Frame(10), FrameKind::kTick, 0.5), Offered::kQueued) << "young enough";
  EXPECT_EQ(q.Offer(Frame(10), FrameKind::kTick, 1.5), Offered::kBeganDropping)
      << "the oldest frame waited longer than send_queue_delay_s";
}

TEST(SendQueue, UnderGlobalPressureOnlyAClientThatIsBehindDrops) {
  Fixture f;
  f.limits.total_send_queue_bytes = 10'000;
  f.counters.bytes.Set(20'000);  // the other clients' queues
  SendQueue keeping_up(f.limits, f.counters);
  ASSERT_EQ(keeping_up.Offer(Frame(100), FrameKind::kTick, 0), Offered::kQueued);
  ASSERT_NE(keeping_up.StartWrite(), nullptr);
  EXPECT_EQ(keeping_up.Offer(Frame(100), FrameKind::kTick, 0), Offered::kQueued)
      << "one frame in flight is not behind";
  EXPECT_EQ(keeping_up.Offer(Frame(100), FrameKind::kTick, 0), Offered::kBeganDropping)
      << "more than the frame in flight queued while all queues are over the global cap";
  EXPECT_EQ(f.counters.global_overflows.value(), 1u);
  f.counters.bytes.Set(static_cast<int64_t>(keeping_up.bytes()));
}

TEST(SendQueue, ASocketThatTakesNothingForTheStallTimeoutIsStalled) {
  Fixture f;
  SendQueue q(f.limits, f.counters);
  ASSERT_EQ(q.Offer(Frame(10), FrameKind::kTick, 0), Offered::kQueued);
  ASSERT_NE(q.StartWrite(), nullptr);
  EXPECT_EQ(q.Offer(Frame(10), FrameKind::kControl, 11), Offered::kQueued)
      << "a control frame (the kick itself) is still queued";
  EXPECT_EQ(q.Offer(Frame(10), FrameKind::kTick, 11), Offered::kStalled);
}

TEST(SendQueue, AClosingClientIsNeverResumed) {
  Fixture f;
  SendQueue q(f.limits, f.counters);
  ASSERT_EQ(q.Offer(Frame(1000), FrameKind::kTick, 0), Offered::kQueued);
  ASSERT_NE(q.StartWrite(), nullptr);
  while (q.Offer(Frame(1000), FrameKind::kTick, 0) == Offered::kQueued) {
  }
  while (!q.empty()) {
    if (!q.writing()) {
      ASSERT_NE(q.StartWrite(), nullptr);
    }
    EXPECT_FALSE(q.Written(0.1, /*closing=*/true));
  }
  EXPECT_TRUE(q.dropping());
}

TEST(SendQueue, TheSharedGaugeCountsWhatEveryQueueHoldsUntilItIsReleased) {
  Fixture f;
  {
    SendQueue a(f.limits, f.counters);
    SendQueue b(f.limits, f.counters);
    ASSERT_EQ(a.Offer(Frame(300), FrameKind::kControl, 0), Offered::kQueued);
    ASSERT_EQ(b.Offer(Frame(500), FrameKind::kControl, 0), Offered::kQueued);
    ASSERT_EQ(b.Offer(Frame(700), FrameKind::kTick, 0), Offered::kQueued);
    EXPECT_EQ(f.counters.bytes.value(), static_cast<int64_t>(a.bytes() + b.bytes()));
    ASSERT_NE(b.StartWrite(), nullptr);
    (void)b.Written(0, false);
    EXPECT_EQ(f.counters.bytes.value(), static_cast<int64_t>(a.bytes() + b.bytes()));
    a.Clear();
    EXPECT_EQ(a.bytes(), 0u);
    EXPECT_EQ(f.counters.bytes.value(), static_cast<int64_t>(b.bytes()));
  }
  EXPECT_EQ(f.counters.bytes.value(), 0) << "a destroyed queue releases what it held";
}

}  // namespace
}  // namespace zs::net
