// The protocol's numbers a client needs beside the generated messages (proto/zone.proto,
// docs/protocol.md): the version it speaks, the subprotocols it offers over WebSocket, the
// server's default limits, units, and serial-number order for input sequence numbers. The same
// values as the TypeScript SDK's protocol.ts.
// Pure: constants and functions without state; any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace zs::client {

// The protocol this library speaks, sent in Hello.protocol_version (proto/zone.proto's header).
inline constexpr uint32_t kProtocolVersion = 10;
// The oldest it still reads correctly (v9's turned_*; v5's tickets). Offered over WebSocket as
// zone.v<kMinProtocolVersion> .. zone.v<kProtocolVersion>, newest first.
inline constexpr uint32_t kMinProtocolVersion = 9;

// The server's default limits.max_frame_bytes: a client message larger is refused before sending.
inline constexpr size_t kDefaultMaxFrameBytes = 65536;
// Chat text is 1..256 bytes of UTF-8 without control characters.
inline constexpr size_t kMaxChatBytes = 256;
// A login token is at most 512 bytes (docs/accounts.md).
inline constexpr size_t kMaxTokenBytes = 512;
// Player names are 1..32 bytes (of their NFC form).
inline constexpr size_t kMaxNameBytes = 32;
// Inbound: the largest server frame buffered (a full picture of a crowd is big).
inline constexpr size_t kMaxInboundFrameBytes = size_t{16} * 1024 * 1024;

// Angles on the wire are 1/65536 of a turn counter-clockwise from +x.
inline constexpr uint32_t kTurn = 65536;

// Serial-number order (RFC 1982) for 32-bit input sequence numbers: is `a` newer than `b`?
[[nodiscard]] constexpr bool SeqAfter(uint32_t a, uint32_t b) {
  const uint32_t d = a - b;
  return d != 0 && d < 0x80000000U;
}

// `seq` + 1 modulo 2^32.
[[nodiscard]] constexpr uint32_t SeqNext(uint32_t seq) { return seq + 1U; }

// Inputs of one session carry the seqs base+1 .. newest (modulo 2^32). Is `seq` acknowledged by a
// frame's last_input_seq? Only a last_input_seq inside the session's window counts: a fresh
// session's frames say 0 (nothing judged yet), which plain serial order would read as newer than
// every seq of the upper half of the number circle.
[[nodiscard]] constexpr bool SeqAcked(uint32_t seq, uint32_t last_input_seq, uint32_t base,
                                      uint32_t newest) {
  const uint32_t acked = last_input_seq - base;
  return acked <= newest - base && seq - base <= acked && seq != base;
}

// "zone.v<N>" for protocol N.
[[nodiscard]] std::string Subprotocol(uint32_t version);
// The version a "zone.v<N>" subprotocol names, or nullopt.
[[nodiscard]] std::optional<uint32_t> VersionOfSubprotocol(std::string_view protocol);

// Chat text by the server's rule: well-formed UTF-8 without control characters (C0, DEL, C1,
// U+2028, U+2029). Length is checked apart (kMaxChatBytes).
[[nodiscard]] bool IsCleanText(std::string_view text);

}  // namespace zs::client
