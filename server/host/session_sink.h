// SessionSink: what the zone runner needs from a client connection, and nothing more (the loop
// never sees a socket). Implementations must be thread-safe: the runner and its worker pool call
// them from their threads, and one client's frames leave in the order of the calls.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

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
  // A whole encoded frame. Sent or copied before the call returns: the caller keeps its buffer.
  virtual void DeliverFrame(std::string_view frame, FrameKind kind) = 0;
  // A frame that no next tick of its caller may follow (one relayed from the node that owns the
  // player, which may stop at any moment: docs/seamless.md "Relay"): it leaves now, with any
  // ticks held before it, and is never held itself. A sink that holds nothing sends it as
  // DeliverFrame does.
  virtual void DeliverFrameNow(std::string_view frame, FrameKind kind) {
    DeliverFrame(frame, kind);
  }
  // Sends `last_frame` (may be empty) and closes, logging `reason`.
  virtual void CloseWith(std::string last_frame, CloseReason reason) = 0;
  // The protocol version its client speaks (its Hello's), so that its frames are written in it.
  [[nodiscard]] virtual uint32_t ProtocolVersion() const = 0;
};

}  // namespace zs::host
