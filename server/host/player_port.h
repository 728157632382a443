// PlayerPort: what a client connection asks of the zones it plays in, and nothing more. The
// session never sees a world, a runner or a thread: it names itself by its session id, and the
// port routes the request to the zone runner that has (or will have) its character
// (host::ZoneRunners); every call queues and returns at once. Once in the world, everything a
// client asks goes through one call, Submit, as a ClientInput.
// Threads: any (the sessions' I/O threads).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "host/client_input.h"
#include "host/session_sink.h"
#include "storage/character_record.h"
#include "zone/zone_types.h"

namespace zs::host {

// Who a connection logs in as (auth::Identity without the token's expiry).
struct LoginIdentity {
  uint64_t account = 0;  // 0: auth mode none
  std::string name;
};

class PlayerPort {
 public:
  virtual ~PlayerPort() = default;
  virtual void Join(uint64_t session, std::weak_ptr<SessionSink> sink, LoginIdentity who) = 0;
  // A client with a redeemed hand-off ticket, as `character`.
  virtual void Arrive(uint64_t session, std::weak_ptr<SessionSink> sink,
                      storage::CharacterRecord character) = 0;
  virtual void Leave(uint64_t session) = 0;
  // An input of a player in the world (dropped if the session plays nowhere yet or any more).
  virtual void Submit(uint64_t session, ClientInput input) = 0;
  // The last tick of the zone the session plays in (Pong.server_tick).
  [[nodiscard]] virtual uint64_t TickOf(uint64_t session) const = 0;
};

}  // namespace zs::host
