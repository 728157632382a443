#include "net/ws_upgrade.h"

#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include <utility>

#include "net/ws_handshake.h"
#include "wire/protocol.h"
#include "wire/websocket_key.h"

namespace zs::net {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;

WsUpgrade::WsUpgrade(boost::asio::ip::tcp::socket& socket,
                     std::span<const std::string> allowed_origins)
    : socket_(socket), allowed_origins_(allowed_origins), buffer_(kMaxRequestBytes) {}

void WsUpgrade::Run(std::shared_ptr<void> keep, std::function<void(Outcome)> done) {
  keep_ = std::move(keep);
  done_ = std::move(done);
  parser_.emplace();
  parser_->header_limit(kMaxRequestBytes);
  parser_->body_limit(0);
  http::async_read(socket_, buffer_, *parser_,
                   [this](const boost::system::error_code& ec, size_t) { OnRequest(ec); });
}

void WsUpgrade::OnRequest(const boost::system::error_code& ec) {
  if (ec == boost::asio::error::operation_aborted || ec == http::error::end_of_stream ||
      ec == boost::asio::error::eof) {
    Finish(Refused{.why = "the connection closed before the upgrade request ended"});
    return;
  }
  if (ec) {
    Refuse(http::status::bad_request, "not an HTTP request this door reads: " + ec.message());
    return;
  }
  const Request& req = parser_->get();
  if (!websocket::is_upgrade(req)) {
    Refuse(http::status::upgrade_required,
           "this is the game's WebSocket port: open a WebSocket with subprotocol " +
               SubprotocolName(wire::kProtocolVersion));
    return;
  }
  const auto key = req[http::field::sec_websocket_key];
  if (!wire::IsWebSocketKey(std::string_view(key.data(), key.size()))) {
    Refuse(http::status::bad_request, "Sec-WebSocket-Key is not a base64 16-byte nonce");
    return;
  }
  const auto origin = req[http::field::origin];
  const auto host = req[http::field::host];
  if (!OriginAllowed(std::string_view(origin.data(), origin.size()),
                     std::string_view(host.data(), host.size()), allowed_origins_)) {
    Refuse(http::status::forbidden,
           "origin " + std::string(origin) + " may not open this door (websocket.allowed_origins)");
    return;
  }
  const auto offered = req[http::field::sec_websocket_protocol];
  const std::optional<uint32_t> version =
      ChooseSubprotocol(std::string_view(offered.data(), offered.size()));
  if (!version) {
    Refuse(http::status::bad_request, "no subprotocol of this server offered: offer one of " +
                                          SubprotocolRange() + " in Sec-WebSocket-Protocol");
    return;
  }
  handshake_.emplace(socket_);
  handshake_->set_option(websocket::stream_base::decorator(
      [name = SubprotocolName(*version)](websocket::response_type& res) {
        res.set(http::field::sec_websocket_protocol, name);
        res.set(http::field::server, "zone_server");
      }));
  handshake_->async_accept(req, [this, v = *version](const boost::system::error_code& e) {
    if (e) {
      Finish(Refused{.why = "handshake refused: " + e.message()});
      return;
    }
    Finish(Upgraded{.version = v, .early = beast::buffers_to_string(buffer_.data())});
  });
}

void WsUpgrade::Refuse(http::status status, std::string why) {
  answer_ = std::make_shared<http::response<http::string_body>>(status, 11);
  answer_->set(http::field::server, "zone_server");
  answer_->set(http::field::content_type, "text/plain; charset=utf-8");
  if (status == http::status::upgrade_required) {
    answer_->set(http::field::upgrade, "websocket");
    answer_->set(http::field::sec_websocket_version, "13");
  }
  answer_->keep_alive(false);
  answer_->body() = why + "\n";
  answer_->prepare_payload();
  http::async_write(socket_, *answer_,
                    [this, why = std::move(why)](const boost::system::error_code&, size_t) {
                      Finish(Refused{.why = why});
                    });
}

void WsUpgrade::Finish(Outcome outcome) {
  buffer_.clear();
  buffer_.shrink_to_fit();
  std::function<void(Outcome)> done = std::move(done_);
  const std::shared_ptr<void> keep = std::move(keep_);
  done(std::move(outcome));
}

}  // namespace zs::net
