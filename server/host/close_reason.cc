#include "host/close_reason.h"

#include <array>
#include <cstddef>

namespace zs::host {

namespace {

// In the enum's order (DO NOT RENAME: see the header).
constexpr std::array<const char*, static_cast<size_t>(CloseReason::kCount)> kNames = {
    "client_closed",
    "logout",
    "read_error",
    "write_error",
    "bad_frame",
    "unparsable",
    "unknown_message",
    "bad_name",
    "bad_value",
    "second_hello",
    "protocol_version",
    "not_logged_in",
    "flood",
    "bad_websocket",
    "websocket_refused",
    "login_timeout",
    "bad_ticket",
    "auth_oversized",
    "auth_too_long",
    "auth_malformed",
    "auth_bad_signature",
    "auth_bad_payload",
    "auth_bad_name",
    "auth_expired",
    "auth_too_far_ahead",
    "auth_replayed",
    "auth_cache_full",
    "name_of_another_account",
    "name_looks_like_another",
    "storage_unavailable",
    "zone_unavailable",
    "world_full",
    "idle",
    "slow_reader",
    "logged_in_elsewhere",
    "zone_handoff",
    "shutdown",
    "refused",
};

}  // namespace

const char* CloseReasonName(CloseReason reason) {
  const auto i = static_cast<size_t>(reason);
  return i < kNames.size() ? kNames[i] : "unknown";
}

std::optional<CloseReason> CloseReasonNamed(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (name == kNames[i]) return static_cast<CloseReason>(i);
  }
  return std::nullopt;
}

bool ClientChose(CloseReason reason) {
  return reason == CloseReason::kClientClosed || reason == CloseReason::kLogout;
}

CloseReason AuthRefusal(auth::Refusal refusal) {
  switch (refusal) {
    case auth::Refusal::kTooLong:
      return CloseReason::kAuthTooLong;
    case auth::Refusal::kMalformed:
      return CloseReason::kAuthMalformed;
    case auth::Refusal::kBadSignature:
      return CloseReason::kAuthBadSignature;
    case auth::Refusal::kBadPayload:
      return CloseReason::kAuthBadPayload;
    case auth::Refusal::kBadName:
      return CloseReason::kAuthBadName;
    case auth::Refusal::kExpired:
      return CloseReason::kAuthExpired;
    case auth::Refusal::kTooFarAhead:
      return CloseReason::kAuthTooFarAhead;
    case auth::Refusal::kReplayed:
      return CloseReason::kAuthReplayed;
    case auth::Refusal::kCacheFull:
    case auth::Refusal::kNone:  // not a refusal: the caller broke the precondition
      break;
  }
  return CloseReason::kAuthCacheFull;
}

}  // namespace zs::host
