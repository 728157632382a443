// The client's side of the game's WebSocket door (`--transport ws`), client_sim's own
// implementation of RFC 6455, independent of the server's (server/wire/ws_codec.h,
// server/net/ws_upgrade.h), so that load tests check one against the other:
//   - the upgrade request a browser would send, offering the subprotocol zone.v<version>, and
//     the check of the server's answer: 101, the Sec-WebSocket-Accept its key calls for
//     (SHA-1 by OpenSSL), the subprotocol offered;
//   - each ClientMessage as one masked binary frame (the mask from the bot's own generator);
//   - the server's frames are read by FrameReader in its WebSocket mode (frame_reader.h).
// Pure functions; any thread.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace zs::sim {

// A fresh Sec-WebSocket-Key: 16 bytes, base64.
[[nodiscard]] std::string WsKey(const std::array<uint8_t, 16>& nonce);
// The GET that upgrades `host:port`'s door, offering protocol `version`.
[[nodiscard]] std::string WsUpgradeRequest(std::string_view host, uint16_t port,
                                           std::string_view key, uint32_t version);
// Where the server's answer to an upgrade ends (after its blank line), or npos while it has
// not all come.
[[nodiscard]] size_t WsResponseEnd(std::string_view bytes);
// Empty when `response` (the head, through its blank line) accepts the upgrade of `key` with
// subprotocol zone.v<version>; else what is wrong, with the status line.
[[nodiscard]] std::string CheckWsUpgrade(std::string_view response, std::string_view key,
                                         uint32_t version);
// Appends `payload` as one binary frame, masked with `mask`, as a client must send it.
void AppendMaskedFrame(std::string_view payload, uint32_t mask, std::string* out);

}  // namespace zs::sim
