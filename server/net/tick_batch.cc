#include "net/tick_batch.h"

namespace zs::net {

TickBatch::TickBatch(uint32_t ticks_per_send, uint64_t phase)
    : ticks_per_send_(ticks_per_send < 1 ? 1 : ticks_per_send),
      ticks_(static_cast<uint32_t>(phase % ticks_per_send_)) {}

bool TickBatch::Hold(std::string_view frame, host::FrameKind kind) {
  if (kind == host::FrameKind::kControl) return false;
  ticks_ = (ticks_ + 1) % ticks_per_send_;
  if (ticks_ == 0) return false;  // this tick completes a batch: send
  held_.append(frame);
  ++held_frames_;
  held_resync_ = held_resync_ || kind == host::FrameKind::kResyncTick;
  return true;
}

TickBatch::Batch TickBatch::Take(std::string_view frame, host::FrameKind* kind) {
  const uint32_t frames = held_frames_ + (frame.empty() ? 0 : 1);
  if (held_frames_ == 0) return {.bytes = frame, .frames = frames};
  if (held_resync_ && *kind == host::FrameKind::kTick) *kind = host::FrameKind::kResyncTick;
  held_.append(frame);
  return {.bytes = held_, .frames = frames};
}

void TickBatch::Sent() {
  if (held_.capacity() > kKeptBytes) {
    std::string().swap(held_);  // a batch with a big resync in it: do not keep its memory
  } else {
    held_.clear();
  }
  held_frames_ = 0;
  held_resync_ = false;
}

}  // namespace zs::net
