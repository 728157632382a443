// WsUpgrade: the HTTP upgrade that opens a game session over WebSocket (RFC 6455 section 4),
// on the session's socket and strand, before the session reads its first message.
//
// Reads the request with Beast's HTTP parser (headers at most kMaxRequestBytes, no body), then
// refuses with an HTTP answer and a text saying why, or upgrades with Beast's handshake
// (websocket::stream::async_accept, which answers 101 with Sec-WebSocket-Accept):
//   - 426: not a WebSocket upgrade (a browser opening the port as a page);
//   - 400: a malformed request or Sec-WebSocket-Key, or no subprotocol of ours offered;
//   - 403: an Origin the config does not allow (net/ws_handshake.h).
// A request that does not finish is the session's to time out (its login timer runs from the
// accept). Bytes the client sent after the request (its first frames) are handed over.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/websocket/stream.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>

namespace zs::net {

class WsUpgrade {
 public:
  static constexpr uint32_t kMaxRequestBytes = 8 * 1024;

  struct Upgraded {
    uint32_t version = 0;  // the protocol version its subprotocol names
    std::string early;     // bytes that came after the request
  };
  struct Refused {
    std::string why;  // for the log; the client got it as the HTTP answer's text
  };
  using Outcome = std::variant<Upgraded, Refused>;

  // `socket` and `allowed_origins` outlive the upgrade.
  WsUpgrade(boost::asio::ip::tcp::socket& socket, std::span<const std::string> allowed_origins);

  // Runs the upgrade; `done` is called once, on the socket's executor, with the outcome (after a
  // refusal's answer is written). `keep` (the session) is held until then.
  void Run(std::shared_ptr<void> keep, std::function<void(Outcome)> done);

 private:
  using Request = boost::beast::http::request<boost::beast::http::empty_body>;
  void OnRequest(const boost::system::error_code& ec);
  // Answers `status` with `why` as its text, then finishes with Refused{why}.
  void Refuse(boost::beast::http::status status, std::string why);
  void Finish(Outcome outcome);

  boost::asio::ip::tcp::socket& socket_;
  std::span<const std::string> allowed_origins_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::empty_body>> parser_;
  std::optional<boost::beast::websocket::stream<boost::asio::ip::tcp::socket&>> handshake_;
  std::shared_ptr<boost::beast::http::response<boost::beast::http::string_body>> answer_;
  std::shared_ptr<void> keep_;
  std::function<void(Outcome)> done_;
};

}  // namespace zs::net
