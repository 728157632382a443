// PlayerPort: what a client connection asks of the zones it plays in, and nothing more. The
// session never sees a world, a runner or a thread: it names itself by its session id, and the
// port routes the request to the zone runner that has (or will have) its character
// (host::ZoneRunners); every call queues and returns at once.
// Threads: any (the sessions' I/O threads).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

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
  virtual void Move(uint64_t session, const zone::MoveInput& in) = 0;
  virtual void Skill(uint64_t session, const zone::SkillInput& in) = 0;
  virtual void Resync(uint64_t session) = 0;
  // Chat; `text_ok`: the text passed wire::IsChatText (else the sender is told BAD_TEXT).
  virtual void Chat(uint64_t session, const zone::ChatInput& in, std::string text, bool text_ok,
                    std::string to) = 0;
  // An input the session refused itself (rate limits): told to the player in its next frame.
  virtual void Refused(uint64_t session, zone::InputKind kind, uint32_t seq,
                       zone::Outcome outcome) = 0;
  // The last tick of the zone the session plays in (Pong.server_tick).
  [[nodiscard]] virtual uint64_t TickOf(uint64_t session) const = 0;
};

}  // namespace zs::host
