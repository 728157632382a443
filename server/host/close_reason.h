// CloseReason: why a client's connection ends, one name per reason.
//
// Decided where the reason arises (a session's socket or login, a zone runner's keeper, the
// server's shutdown) and carried as the enum everywhere after: the session's close, the kick
// frame's text, the `zs_kicks_total{reason}` and `zs_login_refusals_total{reason}` labels and the
// churn log all use CloseReasonName, so no two files compare strings.
//
// DO NOT RENAME the names: they are on the wire (a Kick's reason text, which clients read) and
// in operators' dashboards (metric labels). Threads: pure functions, any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "auth/token.h"

namespace zs::host {

enum class CloseReason : uint8_t {
  // The client ended it.
  kClientClosed,  // "client_closed": EOF on the socket
  kLogout,        // "logout": a Logout message
  // The socket failed.
  kReadError,   // "read_error"
  kWriteError,  // "write_error"
  // The client broke the protocol.
  kBadFrame,         // "bad_frame": a frame the decoder refused (length, varint)
  kUnparsable,       // "unparsable": not a ClientMessage
  kUnknownMessage,   // "unknown_message": a ClientMessage with no known field set
  kBadName,          // "bad_name"
  kBadValue,         // "bad_value": NaN, infinite or out-of-range
  kSecondHello,      // "second_hello"
  kProtocolVersion,  // "protocol_version"
  kNotLoggedIn,      // "not_logged_in": an input before Hello
  kFlood,            // "flood": sustained at twice a rate limit
  kBadWebSocket,     // "bad_websocket": a WebSocket frame the door refuses (wire/ws_codec.h)
  kWsRefused,        // "websocket_refused": the WebSocket upgrade was refused (net/ws_upgrade.h)
  // Login refused.
  kLoginTimeout,          // "login_timeout"
  kBadTicket,             // "bad_ticket": unknown, used or expired hand-off ticket
  kAuthOversized,         // "auth_oversized": a token-mode Hello too large for a frame
  kAuthTooLong,           // "auth_too_long": one per auth::Refusal
  kAuthMalformed,         // "auth_malformed"
  kAuthBadSignature,      // "auth_bad_signature"
  kAuthBadPayload,        // "auth_bad_payload"
  kAuthBadName,           // "auth_bad_name"
  kAuthExpired,           // "auth_expired"
  kAuthTooFarAhead,       // "auth_too_far_ahead"
  kAuthReplayed,          // "auth_replayed"
  kAuthCacheFull,         // "auth_cache_full"
  kNameOfAnotherAccount,  // "name_of_another_account"
  kNameLooksLikeAnother,  // "name_looks_like_another": a player online has a look-alike name
  kStorageUnavailable,    // "storage_unavailable": the character could not be loaded
  kZoneUnavailable,       // "zone_unavailable": its zone's server did not take it
  kWorldFull,             // "world_full"
  // The server ended it.
  kIdle,               // "idle": no input within limits.idle_timeout_s
  kSlowReader,         // "slow_reader": a send backlog that did not drain
  kLoggedInElsewhere,  // "logged_in_elsewhere": the account logged in again
  kZoneHandoff,        // "zone_handoff": the character went to another server
  kShutdown,           // "shutdown"
  kRefused,            // "refused": a connection over a connection cap (never a session)
  kCount,              // not a reason: how many there are
};

// The reason's name (snake_case, as in the comments above).
[[nodiscard]] const char* CloseReasonName(CloseReason reason);

// The reason named `name` (CloseReasonName), if any.
[[nodiscard]] std::optional<CloseReason> CloseReasonNamed(std::string_view name);

// True for the reasons the client chose (they are not counted as kicks).
[[nodiscard]] bool ClientChose(CloseReason reason);

// The login refusal for a refused token. REQUIRES: refusal != auth::Refusal::kNone.
[[nodiscard]] CloseReason AuthRefusal(auth::Refusal refusal);

}  // namespace zs::host
