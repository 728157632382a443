// IsWebSocketUrl: whether `url` is what a browser's `new WebSocket(url)` takes and a client can
// be handed to (ZoneChanged.websocket_url, protocol 10): "ws://" or "wss://", a host, at most
// kMaxWebSocketUrl bytes, no space or control character. Checked where such a URL comes in:
// cluster.public_websocket_url in the config, and a HandoffReply from another node.
// Pure: no state, any thread.
#pragma once

#include <cstddef>
#include <string_view>

namespace zs::wire {

inline constexpr size_t kMaxWebSocketUrl = 256;

[[nodiscard]] constexpr bool IsWebSocketUrl(std::string_view url) noexcept {
  if (url.size() > kMaxWebSocketUrl) return false;
  const size_t host = url.starts_with("ws://") ? 5 : url.starts_with("wss://") ? 6 : 0;
  if (host == 0 || host == url.size() || url[host] == '/') return false;
  for (const char c : url) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) return false;
  }
  return true;
}

static_assert(IsWebSocketUrl("ws://10.0.0.5:7778/") && IsWebSocketUrl("wss://game.example.com/a"));
static_assert(!IsWebSocketUrl("") && !IsWebSocketUrl("ws://") && !IsWebSocketUrl("wss:///x") &&
              !IsWebSocketUrl("http://x/") && !IsWebSocketUrl("ws://a b/"));

}  // namespace zs::wire
