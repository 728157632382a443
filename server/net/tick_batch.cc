#include "net/tick_batch.h"

namespace zs::net {

TickBatch::TickBatch(uint32_t ticks_per_send, uint64_t phase)
    : ticks_per_send_(ticks_per_send < 1 ? 1 : ticks_per_send),
      since_send_(static_cast<uint32_t>(phase % ticks_per_send_)) {}

bool TickBatch::Hold(std::string_view frame, host::FrameKind kind) {
  if (kind == host::FrameKind::kControl || since_send_ + 1 >= ticks_per_send_) return false;
  held_.append(frame);
  ++held_frames_;
  ++since_send_;
  held_resync_ = held_resync_ || kind == host::FrameKind::kResyncTick;
  return true;
}

std::string_view TickBatch::Take(std::string_view frame, host::FrameKind* kind) {
  taken_frames_ = held_frames_ + (frame.empty() ? 0 : 1);
  if (held_frames_ == 0) return frame;
  if (held_resync_ && *kind == host::FrameKind::kTick) *kind = host::FrameKind::kResyncTick;
  held_.append(frame);
  return held_;
}

void TickBatch::Sent() {
  held_.clear();
  held_frames_ = 0;
  held_resync_ = false;
  since_send_ = 0;
}

}  // namespace zs::net
