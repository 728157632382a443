// TickBatch: which tick frames a client's session holds back, what leaves with the next send,
// and in which order, without a socket.
#include "net/tick_batch.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace zs::net {
namespace {

using host::FrameKind;

// Sends `frame` the way the Session does: holds it, or takes it with what is held.
struct Sent {
  bool held = true;
  std::string bytes;
  FrameKind kind = FrameKind::kTick;
  uint32_t frames = 0;
};
Sent Offer(TickBatch& b, std::string_view frame, FrameKind kind) {
  if (b.Hold(frame, kind)) return {};
  Sent s{.held = false, .bytes = {}, .kind = kind};
  const TickBatch::Batch batch = b.Take(frame, &s.kind);
  s.bytes = std::string(batch.bytes);
  s.frames = batch.frames;
  b.Sent();
  return s;
}

TEST(TickBatch, OneTickPerSendHoldsNothing) {
  TickBatch b(1, 7);
  for (int t = 0; t < 5; ++t) {
    const Sent s = Offer(b, "t" + std::to_string(t), FrameKind::kTick);
    EXPECT_FALSE(s.held);
    EXPECT_EQ(s.bytes, "t" + std::to_string(t));
    EXPECT_EQ(s.frames, 1u);
    EXPECT_FALSE(b.holding());
  }
}

TEST(TickBatch, TicksLeaveInBatchesInTheirOrder) {
  TickBatch b(3, 0);
  std::string all;
  std::string sent;
  for (int t = 0; t < 9; ++t) {
    const std::string frame = "<" + std::to_string(t) + ">";
    all += frame;
    const Sent s = Offer(b, frame, FrameKind::kTick);
    EXPECT_EQ(s.held, t % 3 != 2) << "tick " << t;
    if (s.held) continue;
    EXPECT_EQ(s.frames, 3u);
    EXPECT_EQ(s.kind, FrameKind::kTick);
    sent += s.bytes;
  }
  EXPECT_EQ(sent, all) << "every tick, once, in order";
  EXPECT_FALSE(b.holding());
}

TEST(TickBatch, ThePhaseSpreadsClientsOverTheTicks) {
  // Two ticks per send: sessions of even and odd ids send on alternate ticks, and a control
  // frame (the Welcome every session gets first, a Pong) does not move a session's phase.
  TickBatch even(2, 10);
  TickBatch odd(2, 11);
  EXPECT_FALSE(Offer(even, "welcome", FrameKind::kControl).held);
  EXPECT_FALSE(Offer(odd, "welcome", FrameKind::kControl).held);
  for (int t = 0; t < 6; ++t) {
    if (t == 3) Offer(odd, "pong", FrameKind::kControl);
    const bool even_sends = !Offer(even, "x", FrameKind::kTick).held;
    const bool odd_sends = !Offer(odd, "x", FrameKind::kTick).held;
    EXPECT_NE(even_sends, odd_sends) << "tick " << t;
  }
}

TEST(TickBatch, AControlFrameTakesTheHeldTicksBeforeIt) {
  TickBatch b(4, 0);
  EXPECT_TRUE(Offer(b, "t1", FrameKind::kTick).held);
  EXPECT_TRUE(Offer(b, "t2", FrameKind::kTick).held);
  const Sent pong = Offer(b, "pong", FrameKind::kControl);
  EXPECT_FALSE(pong.held) << "a control frame is never held";
  EXPECT_EQ(pong.bytes, "t1t2pong");
  EXPECT_EQ(pong.kind, FrameKind::kControl) << "the whole is never dropped";
  EXPECT_EQ(pong.frames, 3u);
  // The batch goes on where it was: the fourth tick still completes it.
  EXPECT_TRUE(Offer(b, "t3", FrameKind::kTick).held);
  EXPECT_EQ(Offer(b, "t4", FrameKind::kTick).bytes, "t3t4");
  EXPECT_TRUE(Offer(b, "t5", FrameKind::kTick).held);
}

TEST(TickBatch, ABigBatchDoesNotKeepItsMemory) {
  TickBatch b(2, 0);
  const std::string resync(TickBatch::kKeptBytes + 1, 'r');
  EXPECT_TRUE(Offer(b, resync, FrameKind::kResyncTick).held);
  const Sent s = Offer(b, "t", FrameKind::kTick);
  EXPECT_EQ(s.bytes.size(), resync.size() + 1);
  EXPECT_LE(b.kept_bytes(), TickBatch::kKeptBytes) << "let go after its send";
  // The next batch works as before (its buffer was let go, then grows again).
  EXPECT_TRUE(Offer(b, "a", FrameKind::kTick).held);
  EXPECT_EQ(Offer(b, "b", FrameKind::kTick).bytes, "ab");
}

TEST(TickBatch, AHeldResyncWidensTheBatchUpToAControlFrame) {
  TickBatch b(2, 0);
  EXPECT_TRUE(Offer(b, "r", FrameKind::kResyncTick).held);
  const Sent tick = Offer(b, "t", FrameKind::kTick);
  EXPECT_EQ(tick.bytes, "rt");
  EXPECT_EQ(tick.kind, FrameKind::kResyncTick) << "the queue must see the resync it carries";
  // It does not stick: the next batch is plain ticks.
  EXPECT_TRUE(Offer(b, "a", FrameKind::kTick).held);
  EXPECT_EQ(Offer(b, "b", FrameKind::kTick).kind, FrameKind::kTick);
  // With a control frame the whole stays control: never dropped, whatever it holds.
  EXPECT_TRUE(Offer(b, "r", FrameKind::kResyncTick).held);
  const Sent kick = Offer(b, "kick", FrameKind::kControl);
  EXPECT_EQ(kick.bytes, "rkick");
  EXPECT_EQ(kick.kind, FrameKind::kControl);
}

TEST(TickBatch, TakingNothingFlushesWhatIsHeld) {
  // CloseWith without a last frame: the held ticks still go.
  TickBatch b(3, 0);
  EXPECT_TRUE(Offer(b, "t1", FrameKind::kTick).held);
  EXPECT_TRUE(b.holding());
  FrameKind kind = FrameKind::kControl;
  const TickBatch::Batch held = b.Take({}, &kind);
  EXPECT_EQ(held.bytes, "t1");
  EXPECT_EQ(held.frames, 1u);
  b.Sent();
  EXPECT_FALSE(b.holding());
  kind = FrameKind::kControl;
  const TickBatch::Batch none = b.Take({}, &kind);
  EXPECT_EQ(none.bytes, "") << "nothing held, nothing to send";
  EXPECT_EQ(none.frames, 0u);
}

}  // namespace
}  // namespace zs::net
