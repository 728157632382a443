// Limits for untrusted clients (docs/architecture.md "Untrusted input and limits"). Defaults are
// the design's; every one can be changed in config/server.yaml or on the command line.
#pragma once

#include <cstddef>
#include <cstdint>

namespace zs::net {

struct Limits {
  size_t max_frame_bytes = 64 * 1024;  // inbound frame; refused before the body is buffered
  int recursion_limit = 16;            // protobuf nesting
  double login_timeout_s = 10;         // Hello must arrive within this
  double idle_timeout_s = 60;          // in world without any input
  double move_rate = 60;               // per second; excess dropped, 2x sustained 3 s: kick
  double skill_rate = 10;
  double ping_rate = 5;
  double chat_rate = 2;                  // chat lines per second (burst of one second's worth)
  size_t send_queue_bytes = 512 * 1024;  // beyond: drop ticks, resync when drained
  double stall_timeout_s = 10;           // a send backlog not drained this long: kick
  double send_queue_delay_s = 1;         // the oldest queued frame older than this: as over the cap
  // All send queues together. Beyond it, a client that is behind (has anything queued) skips
  // ticks and is resynced later, exactly as over its own cap; a client that keeps up is never
  // affected. The most the server holds is this plus, per connection, one frame and its
  // TickBatch's buffer (ticks_per_send - 1 held ticks, kept up to TickBatch::kKeptBytes).
  size_t total_send_queue_bytes = 256 * 1024 * 1024;
  size_t max_connections = 10000;
  size_t max_connections_per_ip = 64;
  double shutdown_flush_s = 2;          // on SIGTERM: time given to send the kicks
  size_t socket_send_buffer_bytes = 0;  // SO_SNDBUF per client; 0 leaves the OS default
  // TCP_NOTSENT_LOWAT per client: the kernel takes no more from us while this many bytes wait
  // in it unsent, so a slow reader's backlog stays in our queue, where its age is bounded
  // (send_queue_delay_s) and it is resynced, instead of growing unbounded in time in the
  // kernel. 0: no bound.
  size_t socket_unsent_bytes = 64 * 1024;
  // Tick frames leave in batches of this many, in one send (TickBatch): each send is a syscall
  // and a TCP segment for the server and for the client. A tick waits for this many - 1 more
  // of the client's ticks (or its next Pong or other frame). 1: every tick is sent as made.
  uint32_t ticks_per_send = 2;
};

// Token bucket per message type, with "sustained abuse" detection: a second in which more
// than twice the rate arrived is a strike; three strikes in a row and the client is kicked
// (and at once, when ten times the rate arrives within one second).
class RateLimiter {
 public:
  explicit RateLimiter(double per_second) : rate_(per_second), tokens_(per_second) {}

  enum class Verdict { kAccept, kDrop, kKick };

  // `now_s`: a monotonic clock in seconds (passed in, so it is testable).
  Verdict Take(double now_s) {
    if (last_s_ < 0) last_s_ = window_start_s_ = now_s;
    tokens_ = tokens_ + (now_s - last_s_) * rate_;
    if (tokens_ > rate_) tokens_ = rate_;  // at most one second of burst
    last_s_ = now_s;
    if (now_s - window_start_s_ >= 1.0) {
      strikes_ = in_window_ > 2.0 * rate_ ? strikes_ + 1 : 0;
      in_window_ = 0;
      window_start_s_ = now_s;
    }
    ++in_window_;
    if (strikes_ >= 3 || (in_window_ > 2.0 * rate_ && strikes_ >= 2)) return Verdict::kKick;
    if (in_window_ > 10.0 * rate_) return Verdict::kKick;  // no doubt about it: do not wait
    if (tokens_ >= 1.0) {
      tokens_ -= 1.0;
      return Verdict::kAccept;
    }
    return Verdict::kDrop;
  }

 private:
  double rate_;
  double tokens_;
  double last_s_ = -1;
  double window_start_s_ = 0;
  double in_window_ = 0;
  int strikes_ = 0;
};

}  // namespace zs::net
