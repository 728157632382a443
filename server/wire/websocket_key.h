// IsWebSocketKey: whether a Sec-WebSocket-Key header is what RFC 6455 (4.1, 4.2.1) requires: a
// nonce of exactly 16 bytes, base64-encoded (24 characters, the last two "=" padding). Beast's
// handshake checks only that the header is present and short, so the admin server and the
// game's WebSocket door check this first and answer anything else with 400.
// Pure: no state, any thread.
#pragma once

#include <string_view>

namespace zs::wire {

[[nodiscard]] constexpr bool IsWebSocketKey(std::string_view key) noexcept {
  constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  constexpr std::string_view kLast = "AQgw";  // 2 bits of data, 4 zero bits: the 16th byte ends
  if (key.size() != 24 || key.substr(22) != "==") return false;
  for (const char c : key.substr(0, 21)) {
    if (kAlphabet.find(c) == std::string_view::npos) return false;
  }
  return kLast.find(key[21]) != std::string_view::npos;
}

static_assert(IsWebSocketKey("dGhlIHNhbXBsZSBub25jZQ=="), "RFC 6455's example");
static_assert(!IsWebSocketKey("") && !IsWebSocketKey("Zm9v") && !IsWebSocketKey("not base64!!"));
static_assert(!IsWebSocketKey("dGhlIHNhbXBsZSBub25jZR=="), "bits past the 16th byte");
static_assert(!IsWebSocketKey("dGhlIHNhbXBsZSBub25j*Q=="));

}  // namespace zs::wire
