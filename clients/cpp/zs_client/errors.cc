#include "zs_client/errors.h"

#include <array>
#include <utility>

#include "zone.pb.h"

namespace zs::client {
namespace pb = zone::v1;
namespace {

constexpr std::array<std::pair<CloseReason, std::string_view>, 15> kReasonNames = {{
    {CloseReason::kLogout, "logout"},
    {CloseReason::kShutdown, "shutdown"},
    {CloseReason::kIdle, "idle"},
    {CloseReason::kSlowReader, "slow_reader"},
    {CloseReason::kLoggedInElsewhere, "logged_in_elsewhere"},
    {CloseReason::kZoneHandoff, "zone_handoff"},
    {CloseReason::kFlood, "flood"},
    {CloseReason::kBadWebsocket, "bad_websocket"},
    {CloseReason::kBadFrame, "bad_frame"},
    {CloseReason::kProtocolVersion, "protocol_version"},
    {CloseReason::kClientClosed, "client_closed"},
    {CloseReason::kServerError, "server_error"},
    {CloseReason::kHandoffFailed, "handoff_failed"},
    {CloseReason::kGaveUp, "gave_up"},
    {CloseReason::kUnknown, "unknown"},
}};

// The client's own reasons are never read from the wire.
constexpr size_t kKickReasons = 10;

}  // namespace

std::string_view ErrorCodeName(ErrorCode code) {
  static constexpr std::array<std::string_view, 22> kNames = {"ok",
                                                              "frame_too_large",
                                                              "chat_too_long",
                                                              "bad_text",
                                                              "token_too_long",
                                                              "bad_name",
                                                              "invalid_argument",
                                                              "not_in_world",
                                                              "unknown_skill",
                                                              "skill_on_cooldown",
                                                              "result_lost",
                                                              "result_timeout",
                                                              "connection_lost",
                                                              "closed",
                                                              "server_error",
                                                              "kicked",
                                                              "handoff_failed",
                                                              "no_websocket_address",
                                                              "transport_unsupported",
                                                              "protocol_version",
                                                              "inbound_frame_too_large",
                                                              "decode_failed"};
  const auto i = static_cast<size_t>(code);
  return i < kNames.size() ? kNames[i] : "unknown";
}

std::string_view CloseReasonName(CloseReason reason) {
  for (const auto& [r, name] : kReasonNames) {
    if (r == reason) return name;
  }
  return "none";
}

CloseReason CloseReasonOf(std::string_view reason) {
  for (size_t i = 0; i < kKickReasons; ++i) {
    if (kReasonNames[i].second == reason) return kReasonNames[i].first;
  }
  return CloseReason::kUnknown;
}

bool IsFinalKick(CloseReason reason) {
  switch (reason) {
    case CloseReason::kLogout:
    case CloseReason::kIdle:
    case CloseReason::kLoggedInElsewhere:
    case CloseReason::kBadFrame:
    case CloseReason::kBadWebsocket:
    case CloseReason::kProtocolVersion:
      return true;
    default:
      return false;
  }
}

bool IsFinalServerError(int server_code) {
  switch (server_code) {
    case pb::ERROR_CODE_PROTOCOL_VERSION:
    case pb::ERROR_CODE_BAD_FRAME:
    case pb::ERROR_CODE_ALREADY_LOGGED_IN:
    case pb::ERROR_CODE_BAD_VALUE:
    case pb::ERROR_CODE_BAD_NAME:
    case pb::ERROR_CODE_AUTH_FAILED:
      return true;
    default:
      return false;  // SERVER_FULL, STORAGE_UNAVAILABLE, ZONE_UNAVAILABLE, RATE_LIMITED, ...
  }
}

Status Status::Server(int server_code, std::string_view text) {
  const std::string name = pb::ErrorCode_IsValid(server_code)
                               ? pb::ErrorCode_Name(static_cast<pb::ErrorCode>(server_code))
                               : std::to_string(server_code);
  return Status{.code = ErrorCode::kServerError,
                .message = "server error " + name + ": " + std::string(text),
                .server_code = server_code,
                .reason = {},
                .bytes = 0,
                .limit = 0};
}

Status Status::Kicked(std::string_view reason) {
  return Status{.code = ErrorCode::kKicked,
                .message = "kicked: " + std::string(reason),
                .server_code = 0,
                .reason = std::string(reason),
                .bytes = 0,
                .limit = 0};
}

}  // namespace zs::client
