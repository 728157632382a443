// Typed errors and close reasons, as the TypeScript SDK's errors.ts. Every limit the library
// knows is refused before sending with a Status naming it; every Error and Kick from the server
// becomes a typed value (ErrorCode::kServerError with the server's code, CloseReason).
// Errors are values, never exceptions. Pure; any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace zs::client {

// What went wrong on the client's side (or what the server's answer means for the caller).
enum class ErrorCode : uint8_t {
  kOk = 0,
  kFrameTooLarge,         // the encoded message is over the server's max_frame_bytes
  kChatTooLong,           // chat text over 256 bytes of UTF-8
  kBadText,               // empty chat text, malformed UTF-8 or a control character
  kTokenTooLong,          // login token over 512 bytes
  kBadName,               // player name empty or over 32 bytes
  kInvalidArgument,       // NaN/inf direction, facing out of range, no name nor token, ...
  kNotInWorld,            // an input while not in the world
  kUnknownSkill,          // a skill the Welcome did not list
  kSkillOnCooldown,       // the skill is still cooling down
  kResultLost,            // the input was acknowledged but its result was in a dropped frame
  kResultTimeout,         // no result in time
  kConnectionLost,        // the connection ended (or went silent) before the answer came
  kClosed,                // the client was closed
  kServerError,           // the server sent Error (see Status::server_code)
  kKicked,                // the server sent Kick (see Status::reason)
  kHandoffFailed,         // a hand-off could not be followed
  kNoWebsocketAddress,    // a hand-off over WebSocket without the next node's WebSocket door
  kTransportUnsupported,  // a URL whose scheme is not tcp://, ws:// or wss://
  kProtocolVersion,       // the server speaks no version this library does
  kInboundFrameTooLarge,  // the server sent a frame over max_inbound_frame_bytes
  kDecodeFailed,          // a server frame that does not parse (or a malformed length)
};

[[nodiscard]] std::string_view ErrorCodeName(ErrorCode code);

// Why a session ended. The first group mirrors zone.proto's Kick reasons (and the WebSocket
// close reasons of docs/protocol.md, which carry the same names); the second is the client's own.
enum class CloseReason : uint8_t {
  kNone = 0,  // not closed
  // DO NOT RENAME their names (CloseReasonName): they are the server's Kick.reason values.
  kLogout,
  kShutdown,
  kIdle,
  kSlowReader,
  kLoggedInElsewhere,
  kZoneHandoff,
  kFlood,
  kBadWebsocket,
  kBadFrame,
  kProtocolVersion,
  // The client's own.
  kClientClosed,   // Close() was called
  kServerError,    // an Error the library cannot retry (bad name, auth failed, ...)
  kHandoffFailed,  // a hand-off that could not be followed
  kGaveUp,         // reconnect attempts exhausted
  kUnknown,
};

[[nodiscard]] std::string_view CloseReasonName(CloseReason reason);
// A Kick reason (or WebSocket close reason) as a CloseReason; unknown ones are kUnknown.
[[nodiscard]] CloseReason CloseReasonOf(std::string_view reason);
// Kick reasons after which the client does not reconnect by itself.
[[nodiscard]] bool IsFinalKick(CloseReason reason);
// Server ErrorCodes (zone.proto's numbers) after which retrying cannot help.
[[nodiscard]] bool IsFinalServerError(int server_code);

// An outcome: ok(), or an ErrorCode with a message and the details that apply.
struct Status {
  ErrorCode code = ErrorCode::kOk;
  std::string message;
  int server_code = 0;  // kServerError: zone.proto's ErrorCode
  std::string reason;   // kKicked: the Kick reason
  size_t bytes = 0;     // size limits: the size refused ...
  size_t limit = 0;     // ... and the limit

  [[nodiscard]] bool ok() const { return code == ErrorCode::kOk; }
  [[nodiscard]] static Status Ok() { return {}; }
  [[nodiscard]] static Status Error(ErrorCode code, std::string message) {
    return Status{.code = code,
                  .message = std::move(message),
                  .server_code = 0,
                  .reason = {},
                  .bytes = 0,
                  .limit = 0};
  }
  [[nodiscard]] static Status TooLarge(ErrorCode code, std::string message, size_t bytes,
                                       size_t limit) {
    return Status{.code = code,
                  .message = std::move(message),
                  .server_code = 0,
                  .reason = {},
                  .bytes = bytes,
                  .limit = limit};
  }
  [[nodiscard]] static Status Server(int server_code, std::string_view text);
  [[nodiscard]] static Status Kicked(std::string_view reason);
};

}  // namespace zs::client
