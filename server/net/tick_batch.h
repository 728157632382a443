// TickBatch: one client's tick frames held back so that `ticks_per_send` of them leave the
// server in one send (one syscall, one TCP segment) instead of one each.
//
// Why: a large part of a player-tick is the kernel's work for one small segment per client
// per tick, on the server's side and on the client's (docs/performance.md). Held
// ticks are the same frames, in the same order, sent a little later: a client sees every tick,
// in pairs (ticks_per_send 2) every other tick, and renders by tick number as before. Nothing on
// the wire changes. A tick waits for at most ticks_per_send - 1 more of its client's ticks, or
// until any other frame (a Pong, a ZoneChanged, a Kick) is sent: that frame takes the held
// ticks with it, before it.
//
// Clients are spread over the ticks by `phase` (their session id), so each tick sends to
// 1 / ticks_per_send of them rather than to all of them every ticks_per_send-th tick. The phase
// counts tick frames only: a control frame that takes held ticks early does not move it.
//
// Pure: no socket, clock or thread. The Session owns one, calls it under its output lock and
// sends what it is told to. Its buffer is reused: nothing is allocated per tick once warm (a
// buffer grown past kKeptBytes, by a batch holding a big resync, is let go after its send).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "host/session_sink.h"

namespace zs::net {

class TickBatch {
 public:
  static constexpr size_t kKeptBytes = 64 * 1024;

  // What to send: the bytes and the frames they hold (the held ticks and the new frame).
  struct Batch {
    std::string_view bytes;
    uint32_t frames = 0;
  };

  // REQUIRES: ticks_per_send >= 1 (1: nothing is ever held).
  TickBatch(uint32_t ticks_per_send, uint64_t phase);

  // Holds `frame` when it is a tick that does not complete a batch (every ticks_per_send-th
  // tick, counted from the phase, does). False: send it now, through Take.
  bool Hold(std::string_view frame, host::FrameKind kind);
  // `frame` (may be empty) with the held ticks before it, and `kind` widened to cover them (a
  // control frame stays control; a resync among the ticks makes the whole a resync tick). The
  // bytes are valid until Sent.
  [[nodiscard]] Batch Take(std::string_view frame, host::FrameKind* kind);
  // What Take returned was sent or copied: the batch starts over (keeping its buffer).
  void Sent();

  [[nodiscard]] bool holding() const { return held_frames_ > 0; }
  // The memory its buffer keeps between batches.
  [[nodiscard]] size_t kept_bytes() const { return held_.capacity(); }

 private:
  const uint32_t ticks_per_send_;
  uint32_t ticks_;  // tick frames seen, modulo ticks_per_send_ (starts at the phase)
  uint32_t held_frames_ = 0;
  bool held_resync_ = false;
  std::string held_;
};

}  // namespace zs::net
