#include "net/send_queue.h"

#include <algorithm>
#include <utility>

namespace zs::net {

SendQueue::SendQueue(const Limits& limits, host::SendQueueCounters& counters)
    : limits_(limits), counters_(counters) {}

SendQueue::~SendQueue() {
  if (bytes_ != 0) Clear();
}

SendQueue::Offered SendQueue::Offer(Chunk chunk, host::FrameKind kind, double now) {
  const bool tick = kind != host::FrameKind::kControl;
  if (kind == host::FrameKind::kResyncTick && awaiting_resync_) {
    awaiting_resync_ = false;  // the full picture: the client starts over from here
  } else if (tick && writing_ && now - last_progress_s_ > limits_.stall_timeout_s) {
    // The kernel has taken nothing for the whole stall timeout, however small the queue.
    counters_.overflows.Add();
    return Offered::kStalled;
  } else if (tick && (dropping_ || awaiting_resync_ || Backlogged(Cost(chunk), now))) {
    return Drop(Cost(chunk));
  }
  Account(static_cast<int64_t>(Cost(chunk)));
  chunk.queued_at = now;
  queue_.push_back(std::move(chunk));
  if (!writing_) last_progress_s_ = now;
  return Offered::kQueued;
}

SendQueue::Offered SendQueue::Drop(size_t cost) {
  counters_.overflows.Add();
  if (dropping_ || awaiting_resync_) return Offered::kDropped;
  if (GlobalBacklog(cost)) counters_.global_overflows.Add();
  dropping_ = true;
  return Offered::kBeganDropping;
}

const SendQueue::Chunk* SendQueue::StartWrite() {
  if (writing_ || queue_.empty()) return nullptr;
  writing_ = true;
  return &queue_.front();
}

bool SendQueue::Written(double now, bool closing) {
  writing_ = false;
  if (queue_.empty()) return false;
  Account(-static_cast<int64_t>(Cost(queue_.front())));
  queue_.pop_front();
  last_progress_s_ = now;
  const bool drained =
      bytes_ <= limits_.send_queue_bytes / 2 &&
      (queue_.empty() || now - queue_.front().queued_at <= limits_.send_queue_delay_s / 2);
  if (!dropping_ || closing || !drained) return false;
  dropping_ = false;  // drained: resume, starting with a full picture
  awaiting_resync_ = true;
  return true;
}

void SendQueue::Clear() {
  queue_.clear();
  writing_ = false;
  Account(-static_cast<int64_t>(bytes_));
}

bool SendQueue::Backlogged(size_t extra, double now) const {
  if (queue_.empty()) return false;
  return bytes_ + extra > limits_.send_queue_bytes ||
         now - queue_.front().queued_at > limits_.send_queue_delay_s || GlobalBacklog(extra);
}

bool SendQueue::GlobalBacklog(size_t extra) const {
  const int64_t total = counters_.bytes.value();
  return queue_.size() > 1 &&
         static_cast<size_t>(std::max<int64_t>(total, 0)) + extra > limits_.total_send_queue_bytes;
}

void SendQueue::Account(int64_t delta) {
  bytes_ = static_cast<size_t>(static_cast<int64_t>(bytes_) + delta);
  counters_.bytes.Add(delta);
}

}  // namespace zs::net
