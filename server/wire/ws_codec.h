// WebSocket framing (RFC 6455 section 5) for the game's WebSocket door: each binary message is
// one ClientMessage (client to server) or one ServerMessage (server to client), with no varint
// prefix (docs/protocol.md "Transports").
//
// Why our own codec and not Beast's websocket::stream: the handshake is Beast's (net/), but a
// game session sends most of its frames straight from the zone runner's thread with one
// non-blocking send, and queues only what the socket does not take (net/session.h). Beast's
// stream owns its writes (one async write at a time, on its strand), so it cannot take part in
// that path. The framing itself is small, and it is checked here as strictly as our own varint
// framing: lengths before bodies, every rule of the RFC that a server must enforce.
//
// WsDecoder reads client-to-server frames in any chunking. It refuses, as an error naming the
// close code to send:
//   - a frame without the client's mask (RFC 6455 5.1: the server must close);
//   - reserved bits set (no extension is negotiated) or a reserved opcode;
//   - a text message (the protocol is binary; 1003 "unsupported data");
//   - a fragmented message (a data frame without FIN, or a continuation): a client of ours
//     never needs one, and refusing it bounds what is buffered to one frame (1008 "policy");
//   - a data frame longer than the limit, from its header, before a byte of it is buffered
//     (1009 "message too big");
//   - a control frame over 125 bytes or fragmented, or a close frame with a 1-byte body.
// After an error it stays failed: the caller closes the connection.
// The encoder side writes server-to-client frames (never masked).
// Pure: no sockets; one decoder per connection, used by its I/O strand.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace zs::wire {

// Close status codes (RFC 6455 7.4.1) that the server sends.
enum class WsCloseCode : uint16_t {
  kNormal = 1000,
  kGoingAway = 1001,  // the server shuts down
  kProtocolError = 1002,
  kUnsupportedData = 1003,  // a text message
  kPolicy = 1008,           // the client broke a rule of ours (limits, the game protocol)
  kTooBig = 1009,
  kInternal = 1011,
};

enum class WsError : uint8_t {
  kNone = 0,
  kUnmasked,      // a client frame without a mask
  kReservedBits,  // RSV1-3 set
  kBadOpcode,     // a reserved opcode
  kText,          // a text message
  kFragmented,    // a data frame without FIN, or a continuation frame
  kTooLarge,      // a data frame over the limit
  kBadControl,    // a control frame over 125 bytes, or without FIN
  kBadClose,      // a close frame with a 1-byte body
};

[[nodiscard]] const char* WsErrorName(WsError e);
[[nodiscard]] WsCloseCode CloseCodeFor(WsError e);

class WsDecoder {
 public:
  enum class Result : uint8_t {
    kMessage,  // a binary message: *payload is its bytes
    kPing,     // *payload: the ping's application data (at most 125 bytes), for the pong
    kPong,     // *payload: its data
    kClose,    // the client closes: close_code() (0: none given), *payload its reason
    kNeedMore,
    kError,
  };

  // `max_message_bytes`: the largest binary message accepted.
  explicit WsDecoder(size_t max_message_bytes) : max_message_(max_message_bytes) {}

  // Appends received bytes. REQUIRES: !failed().
  void Feed(std::string_view bytes) { buffer_.append(bytes); }
  Result Next(std::string* payload);

  [[nodiscard]] bool failed() const { return error_ != WsError::kNone; }
  [[nodiscard]] WsError error() const { return error_; }
  [[nodiscard]] uint16_t close_code() const { return close_code_; }
  // Bytes received but not yet returned (a partial frame).
  [[nodiscard]] size_t buffered() const { return buffer_.size() - read_; }

 private:
  Result Fail(WsError e) {
    error_ = e;
    return Result::kError;
  }
  void Consume(size_t end);

  size_t max_message_;
  std::string buffer_;
  size_t read_ = 0;
  WsError error_ = WsError::kNone;
  uint16_t close_code_ = 0;
};

// The largest control frame body (RFC 6455 5.5).
inline constexpr size_t kWsMaxControlBytes = 125;

// Appends one unmasked server frame: FIN, `opcode`, the length in its shortest form, `payload`.
void AppendWsFrame(uint8_t opcode, std::string_view payload, std::string* out);
inline constexpr uint8_t kWsBinary = 0x2;
inline constexpr uint8_t kWsClose = 0x8;
inline constexpr uint8_t kWsPing = 0x9;
inline constexpr uint8_t kWsPong = 0xA;

// Appends each varint-framed message of `frames` (AppendFrame's format: what the encoders make
// once for every client) as one binary WebSocket message. False when `frames` is not a whole
// number of well-formed frames (nothing is appended then).
[[nodiscard]] bool AppendWsMessages(std::string_view frames, std::string* out);

// A close frame: the code, then `reason` cut to what fits a control frame.
[[nodiscard]] std::string WsCloseFrame(WsCloseCode code, std::string_view reason);

}  // namespace zs::wire
