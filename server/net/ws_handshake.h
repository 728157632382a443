// The game's WebSocket door, its handshake rules (docs/protocol.md "Transports"): which
// subprotocol a client gets and which pages may open it. Pure functions, any thread; the
// handshake itself is WsUpgrade's (net/ws_upgrade.h).
//
// Subprotocol: `zone.v<N>` names protocol version N. A client offers the ones it speaks
// (Sec-WebSocket-Protocol); the server takes the newest it speaks too, and its Hello must then
// name that version. A client that offers none of ours is refused before the upgrade.
//
// Origin (cross-site WebSocket hijacking): a browser names the page that opens a WebSocket in
// `Origin`, and any page may try. Allowed: a request with no Origin (not a browser: tools,
// engines, client_sim), a page of the same origin as the door (its scheme-less host:port is the
// Host header), an origin listed in `allowed` exactly, or any origin when `allowed` lists "*".
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace zs::net {

// "zone.v<version>".
[[nodiscard]] std::string SubprotocolName(uint32_t version);
// The newest protocol version the server speaks among the `zone.v<N>` tokens of a
// Sec-WebSocket-Protocol header (comma-separated, spaces allowed), or nullopt.
[[nodiscard]] std::optional<uint32_t> ChooseSubprotocol(std::string_view offered);
// The versions a client may offer, for a refusal's text ("zone.v3 .. zone.v10").
[[nodiscard]] std::string SubprotocolRange();

// Whether a page of `origin` (the Origin header; empty: none sent) may open the door that
// `host` (the Host header) names. Scheme and host compare without regard to case.
[[nodiscard]] bool OriginAllowed(std::string_view origin, std::string_view host,
                                 std::span<const std::string> allowed);

}  // namespace zs::net
