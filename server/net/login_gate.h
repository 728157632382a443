// LoginGate: who a Hello logs in as, or why it may not.
//
// The first message of every connection is a Hello; the gate checks its protocol version, then
// either redeems its hand-off ticket (a character another server handed here) or identifies
// the player (auth mode none: the name it gives; token: the signed token, spent once). It
// knows no socket: the Session passes the Hello and the time, and acts on the decision (join
// the world, arrive with the character, or send the refusal's error and close).
//
// Refusals the operators count as refused logins (bad tickets, every auth_* reason) are added
// to `refusals`; a wrong version or a bad name is a protocol error, counted only as a kick.
// Threads: any (the Authenticator and TicketBook lock inside); one gate serves all sessions.
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "auth/authenticator.h"
#include "host/close_reason.h"
#include "host/metrics.h"
#include "host/player_port.h"
#include "host/ticket_book.h"
#include "storage/character_record.h"
#include "wire/encoder.h"
#include "wire/protocol.h"

namespace zs::net {

class LoginGate {
 public:
  // Log in as this player (a new or stored character, by name or account).
  struct Join {
    host::LoginIdentity who;
  };
  // Arrive with the character another server handed here.
  struct Arrive {
    storage::CharacterRecord character;
  };
  // Refused: send Error{code, text}, close with `reason`.
  struct Refusal {
    wire::ErrorCode code;
    std::string text;
    host::CloseReason reason;
  };
  using Decision = std::variant<Join, Arrive, Refusal>;

  // `tickets` may be null (no server hands characters here). All outlive the gate.
  LoginGate(auth::Authenticator& auth, host::TicketBook* tickets, host::ReasonCounts& refusals);

  // REQUIRES: hello.kind == wire::ClientKind::kHello. `now_s`: monotonic seconds (tickets);
  // `unix_s`: wall-clock Unix seconds (token expiry).
  [[nodiscard]] Decision Admit(const wire::ClientIntent& hello, double now_s, int64_t unix_s);

  // A frame too large to be read while the Hello is awaited: in token mode that can only be
  // an oversized token, refused like any bad token (the client is not told which part was
  // wrong); in mode none, nullopt (a plain BAD_FRAME).
  [[nodiscard]] std::optional<Refusal> OversizedHello();

 private:
  [[nodiscard]] Decision Redeem(const std::string& ticket, double now_s);
  [[nodiscard]] Decision Identify(const wire::ClientIntent& hello, int64_t unix_s);
  [[nodiscard]] Refusal AuthFailed(host::CloseReason reason);

  auth::Authenticator& auth_;
  host::TicketBook* tickets_;
  host::ReasonCounts& refusals_;
};

}  // namespace zs::net
