// GameWs: a game client on the WebSocket door (docs/protocol.md "Transports") for the
// integration tests, as a browser speaks it: Boost.Beast's WebSocket client (viewer_client.h's
// WsClient, an implementation independent of the server's framing), one ClientMessage per
// binary message, offering this protocol's subprotocol. Blocking; one thread.
#pragma once

#include <optional>
#include <string>

#include "integration/harness.h"
#include "integration/viewer_client.h"
#include "net/ws_handshake.h"

namespace zs::integration {

inline const std::string kSubprotocol = net::SubprotocolName(wire::kProtocolVersion);

// A game client on the WebSocket door: one ClientMessage per binary message.
class GameWs {
 public:
  explicit GameWs(uint16_t port,
                  const WsClient::Headers& headers =
                      {{boost::beast::http::field::sec_websocket_protocol, kSubprotocol}})
      : ws_(port, "/", 5, headers) {}
  [[nodiscard]] bool ok() const { return ws_.ok(); }
  WsClient& ws() { return ws_; }
  bool Send(const pb::ClientMessage& m) { return ws_.Send(m.SerializeAsString(), false); }
  bool Hello(const std::string& name, uint32_t version = wire::kProtocolVersion) {
    pb::ClientMessage m;
    m.mutable_hello()->set_protocol_version(version);
    m.mutable_hello()->set_player_name(name);
    return Send(m);
  }
  bool Move(float x, float y, uint32_t seq) {
    pb::ClientMessage m;
    m.mutable_move()->set_seq(seq);
    m.mutable_move()->set_direction_x(x);
    m.mutable_move()->set_direction_y(y);
    return Send(m);
  }
  std::optional<pb::ServerMessage> Read(double timeout_s = 5) {
    const std::optional<std::string> bytes = ws_.ReadFrame(timeout_s);
    if (!bytes) return std::nullopt;
    pb::ServerMessage m;
    if (!m.ParseFromString(*bytes)) return std::nullopt;
    return m;
  }
  template <typename Pred>
  std::optional<pb::ServerMessage> ReadUntil(Pred pred, double timeout_s) {
    const double end = NowS() + timeout_s;
    while (NowS() < end) {
      auto m = Read(end - NowS());
      if (!m) return std::nullopt;
      if (pred(*m)) return m;
    }
    return std::nullopt;
  }

 private:
  WsClient ws_;
};

}  // namespace zs::integration
