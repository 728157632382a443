#include "net/login_gate.h"

#include <utility>

namespace zs::net {

LoginGate::LoginGate(auth::Authenticator& auth, host::TicketBook* tickets,
                     host::ReasonCounts& refusals)
    : auth_(auth), tickets_(tickets), refusals_(refusals) {}

LoginGate::Decision LoginGate::Admit(const wire::ClientIntent& hello, double now_s,
                                     int64_t unix_s) {
  if (hello.protocol_version < wire::kMinProtocolVersion ||
      hello.protocol_version > wire::kProtocolVersion) {
    return Refusal{.code = wire::ErrorCode::kProtocolVersion,
                   .text = "protocol version " + std::to_string(hello.protocol_version) +
                           " not supported; this server speaks " +
                           std::to_string(wire::kMinProtocolVersion) + " to " +
                           std::to_string(wire::kProtocolVersion),
                   .reason = host::CloseReason::kProtocolVersion};
  }
  if (!hello.ticket.empty()) return Redeem(hello.ticket, now_s);
  return Identify(hello, unix_s);
}

std::optional<LoginGate::Refusal> LoginGate::OversizedHello() {
  if (auth_.mode() != auth::AuthMode::kToken) return std::nullopt;
  return AuthFailed(host::CloseReason::kAuthOversized);
}

LoginGate::Decision LoginGate::Redeem(const std::string& ticket, double now_s) {
  std::optional<storage::CharacterRecord> character =
      tickets_ != nullptr ? tickets_->Redeem(ticket, now_s) : std::nullopt;
  if (!character) {
    refusals_.Add(host::CloseReason::kBadTicket);
    return Refusal{.code = wire::ErrorCode::kBadTicket,
                   .text = "unknown, used or expired ticket",
                   .reason = host::CloseReason::kBadTicket};
  }
  return Arrive{.character = std::move(*character)};
}

LoginGate::Decision LoginGate::Identify(const wire::ClientIntent& hello, int64_t unix_s) {
  if (auth_.mode() == auth::AuthMode::kNone) {
    if (hello.name_problem != names::NameProblem::kNone) {  // a token came with it: not refused yet
      return Refusal{.code = wire::ErrorCode::kBadName,
                     .text = names::NameProblemText(hello.name_problem),
                     .reason = host::CloseReason::kBadName};
    }
    return Join{.who = {.account = 0, .name = hello.player_name}};
  }
  auth::Identity id;
  const auth::Refusal refusal = auth_.Check(hello.auth_token, unix_s, &id);
  // The client learns only that it failed; the log and the metric say why.
  if (refusal != auth::Refusal::kNone) return AuthFailed(host::AuthRefusal(refusal));
  return Join{.who = {.account = id.account, .name = std::move(id.name)}};
}

LoginGate::Refusal LoginGate::AuthFailed(host::CloseReason reason) {
  refusals_.Add(reason);
  return Refusal{
      .code = wire::ErrorCode::kAuthFailed, .text = "authentication failed", .reason = reason};
}

}  // namespace zs::net
