// SessionContext: everything a Session needs from the server that owns it, injected (muduo
// style): a session knows nothing above it. The Server builds one context, gives every session
// a reference to it, and outlives them all.
#pragma once

#include <functional>
#include <span>
#include <string>

#include "host/close_reason.h"
#include "host/metrics.h"
#include "host/player_port.h"
#include "net/limits.h"
#include "net/login_gate.h"

namespace zs::net {

class Session;

struct SessionContext {
  const Limits& limits;
  host::PlayerPort& players;  // the zones: joins, inputs, leaves (thread-safe)
  LoginGate& login;           // who a Hello logs in as (thread-safe)
  host::TrafficCounters& traffic;
  host::SendQueueCounters& send_queues;
  // The pages allowed to open the WebSocket door besides its own origin (net/ws_handshake.h).
  std::span<const std::string> allowed_origins;
  // Called once per session, on its strand, when its socket is closed.
  std::function<void(const Session&, host::CloseReason)> on_closed;
};

}  // namespace zs::net
