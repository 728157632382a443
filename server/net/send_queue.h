// SendQueue: one client's outgoing frames, and the rules that keep a slow reader from costing
// the server memory or the other clients their frames.
//
// Pure: no socket, clock or thread. The Session owns it, calls it under its output lock, passes
// the time in, and does what each answer says (start a write, arm the stall timer, kick, resync).
// While the queue is idle the Session sends a frame straight to the socket; the queue holds only
// what the socket did not take at once.
//
// The rules (limits.h):
//   - byte cap: the memory the queue holds (Cost: each frame's buffer plus its bookkeeping)
//     may not pass send_queue_bytes;
//   - age cap: the oldest queued frame may not be older than send_queue_delay_s;
//   - global cap: when all queues together (SendQueueCounters::bytes) pass
//     total_send_queue_bytes, a client that is behind (more queued than the frame in flight)
//     counts as over its cap; one that keeps up never drops for the others;
//   - stall: a write in flight that took no bytes for stall_timeout_s means the reader stopped.
// Over a cap, tick frames are dropped (control frames never are); once the queue drains to
// half of both caps the client must be resynced, and every tick frame is dropped until the
// resync tick comes, so the client never sees a gap. A backlog that does not drain within
// stall_timeout_s is the Session's stall timer to watch (Offer says when one began).
//
// Invariant: bytes() == sum of Cost over the queue, and that sum is counted in the shared
// SendQueueCounters::bytes gauge until the frames are written, Clear()ed or the queue destroyed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "host/metrics.h"
#include "host/session_sink.h"
#include "net/limits.h"

namespace zs::net {

class SendQueue {
 public:
  // A frame to send: bytes [offset, offset + size) of a (possibly shared) buffer.
  struct Chunk {
    std::shared_ptr<const std::string> buffer;
    size_t offset = 0;
    size_t size = 0;
    double queued_at = 0;  // set by Offer
    uint32_t frames = 1;   // whole frames or parts of frames in it, for the frame count
  };
  // What Offer did with a frame.
  enum class Offered : uint8_t {
    kQueued,         // queued; if nothing is in flight, start a write
    kDropped,        // a tick frame dropped: the client is backlogged
    kBeganDropping,  // the same, and the backlog starts now: arm the stall timer
    kStalled,        // a tick frame while the socket took nothing for stall_timeout_s: kick
  };

  // What a queued chunk really holds in memory: its buffer (each client's is its own) plus the
  // bookkeeping of the buffer and the queue entry.
  static constexpr size_t kChunkOverhead = 96;
  [[nodiscard]] static size_t Cost(const Chunk& c) { return c.buffer->capacity() + kChunkOverhead; }

  // `limits` and `counters` outlive the queue.
  SendQueue(const Limits& limits, host::SendQueueCounters& counters);
  ~SendQueue();
  SendQueue(const SendQueue&) = delete;
  SendQueue& operator=(const SendQueue&) = delete;

  // A frame of `kind` at time `now`, by the rules above.
  [[nodiscard]] Offered Offer(Chunk chunk, host::FrameKind kind, double now);
  // The chunk to write next, now in flight; nullptr when the queue is empty or a write is
  // already in flight. The pointer is valid until Written or Clear.
  [[nodiscard]] const Chunk* StartWrite();
  // The chunk in flight was written at `now`. True when a backlog has just drained and the
  // client must be resynced (never while `closing`: a closing client gets no more ticks).
  [[nodiscard]] bool Written(double now, bool closing);
  // Drops everything (the socket failed or closed) and releases its bytes.
  void Clear();

  // Nothing queued or in flight and no backlog rule in force: a frame may go straight out.
  [[nodiscard]] bool idle() const {
    return queue_.empty() && !writing_ && !dropping_ && !awaiting_resync_;
  }
  [[nodiscard]] bool empty() const { return queue_.empty(); }
  [[nodiscard]] bool writing() const { return writing_; }
  [[nodiscard]] bool dropping() const { return dropping_; }
  [[nodiscard]] bool awaiting_resync() const { return awaiting_resync_; }
  [[nodiscard]] size_t bytes() const { return bytes_; }
  [[nodiscard]] size_t size() const { return queue_.size(); }

 private:
  // Over the byte or age cap with `extra` more, or behind under global pressure.
  [[nodiscard]] bool Backlogged(size_t extra, double now) const;
  [[nodiscard]] bool GlobalBacklog(size_t extra) const;
  [[nodiscard]] Offered Drop(size_t cost);
  void Account(int64_t delta);

  const Limits& limits_;
  host::SendQueueCounters& counters_;
  std::deque<Chunk> queue_;
  size_t bytes_ = 0;              // sum of Cost() over the queue
  double last_progress_s_ = 0;    // when the socket last took bytes (or the queue was empty)
  bool writing_ = false;          // the front chunk is in flight
  bool dropping_ = false;         // over a cap: tick frames are being dropped
  bool awaiting_resync_ = false;  // drained; ticks stay dropped until the resync tick comes
};

}  // namespace zs::net
