// SessionSink: what the zone runner needs from a client connection, and nothing more (the loop
// never sees a socket). Implementations must be thread-safe: the loop calls them from its thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "host/close_reason.h"

namespace zs::host {

// What a frame is, for a connection that has to drop some.
enum class FrameKind : uint8_t {
  kControl,     // Welcome, ZoneChanged, Pong, Error, Kick: never dropped
  kTick,        // a TickUpdate: dropped while the connection is backlogged
  kResyncTick,  // a TickUpdate with resync set: ends a backlog's dropping
};

class SessionSink {
 public:
  virtual ~SessionSink() = default;
  virtual void DeliverFrame(std::string frame, FrameKind kind) = 0;
  // A whole encoded frame in a buffer of its own (queued without a copy).
  virtual void DeliverShared(std::shared_ptr<const std::string> frame, FrameKind kind) = 0;
  // Sends `last_frame` (may be empty) and closes, logging `reason`.
  virtual void CloseWith(std::string last_frame, CloseReason reason) = 0;
};

}  // namespace zs::host
