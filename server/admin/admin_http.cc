#include "admin/admin_http.h"

#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include <atomic>
#include <memory>

#include "admin/admin_token.h"
#include "wire/websocket_key.h"

namespace zs::admin {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

// One admin connection: read one request (bounded), answer, close.
class AdminExchange : public std::enable_shared_from_this<AdminExchange> {
 public:
  AdminExchange(asio::ip::tcp::socket s, host::Metrics* metrics, const AdminViewer* viewer)
      : stream_(std::move(s)), metrics_(metrics), viewer_(viewer) {
    parser_.header_limit(AdminHttp::kMaxHeaderBytes);
    parser_.body_limit(AdminHttp::kMaxBodyBytes);
    metrics_->admin().connections.Add(1);
  }
  ~AdminExchange() { metrics_->admin().connections.Sub(1); }
  AdminExchange(const AdminExchange&) = delete;
  AdminExchange& operator=(const AdminExchange&) = delete;

  void Start() {
    stream_.expires_after(std::chrono::seconds(5));
    http::async_read(
        stream_, buffer_, parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnRequest(ec); });
  }

  // Answers at once without reading (the port is full).
  void RefuseBusy() {
    Reply(http::status::service_unavailable, "busy: too many admin connections\n");
  }

  // Closes the connection unanswered (to make room); safe from any thread.
  void Evict() {
    asio::post(stream_.get_executor(), [self = shared_from_this()] {
      if (!self->answering_) self->stream_.close();
    });
  }

  [[nodiscard]] bool answering() const { return answering_.load(std::memory_order_relaxed); }

 private:
  void OnRequest(beast::error_code ec) {
    if (ec == http::error::header_limit) {
      Reply(http::status::request_header_fields_too_large, "request headers too large\n");
    } else if (ec == http::error::body_limit) {
      Reply(http::status::payload_too_large, "request body too large\n");
    } else if (!ec) {
      Route();
    }
    // Anything else (closed, timed out, malformed): the connection just closes.
  }

  void Route() {
    const auto& req = parser_.get();
    const Target target = SplitTarget(std::string_view(req.target().data(), req.target().size()));
    if (req.method() == http::verb::get && req.target() == "/healthz") {
      Reply(http::status::ok, "ok\n");
    } else if (req.method() == http::verb::get && req.target() == "/metrics") {
      Reply(http::status::ok, metrics_->Render(), "text/plain; version=0.0.4");
    } else if (req.method() == http::verb::get && target.path == "/viewer/ws") {
      RouteWebSocket(target);
    } else if (req.method() == http::verb::get && target.path.starts_with("/viewer")) {
      RouteAsset(target);
    } else {
      Reply(http::status::not_found, "not found\n");
    }
  }

  // False (after answering 401 or 403) when a token is configured and `target` lacks it.
  bool Authorized(const Target& target) {
    if (viewer_->token.empty()) return true;
    const QueryValue given = FindQueryParam(target.query, "token");
    if (!given.found) {
      Reply(http::status::unauthorized, "token required: add ?token=<admin.token>\n");
      return false;
    }
    if (!ConstantTimeEqual(given.value, viewer_->token)) {
      Reply(http::status::forbidden, "wrong token\n");
      return false;
    }
    return true;
  }

  void RouteAsset(const Target& target) {
    const WebAssets::Asset* asset =
        viewer_->assets != nullptr ? viewer_->assets->Find(target.path) : nullptr;
    if (asset == nullptr) {
      const bool page = target.path == "/viewer" || target.path == "/viewer/";
      Reply(http::status::not_found, page && !viewer_->missing_assets.empty()
                                         ? viewer_->missing_assets + "\n"
                                         : "not found\n");
      return;
    }
    // The page (not its script and style) is what the token protects.
    if (asset->file == "index.html" && !Authorized(target)) return;
    Reply(http::status::ok, asset->body, std::string(asset->content_type).c_str());
  }

  void RouteWebSocket(const Target& target) {
    if (viewer_->hub == nullptr) {
      Reply(http::status::not_found, "not found\n");
      return;
    }
    if (!Authorized(target)) return;
    if (!beast::websocket::is_upgrade(parser_.get())) {
      Reply(http::status::upgrade_required, "expected a WebSocket upgrade request\n");
      return;
    }
    const beast::string_view key = parser_.get()[http::field::sec_websocket_key];
    if (!wire::IsWebSocketKey(std::string_view(key.data(), key.size()))) {
      Reply(http::status::bad_request,
            "Sec-WebSocket-Key must be a 16-byte nonce in base64 (RFC 6455)\n");
      return;
    }
    answering_ = true;  // never evicted from here on: the stream is about to change hands
    stream_.expires_never();
    auto req = parser_.release();
    if (!viewer_->hub->TryAdmit(stream_, req)) {
      Reply(http::status::service_unavailable,
            "too many viewers: admin.max_viewers = " + std::to_string(viewer_->hub->max_viewers()) +
                "\n");
    }
  }

  void Reply(http::status status, std::string body, const char* type = "text/plain") {
    answering_ = true;
    res_.version(11);
    res_.result(status);
    res_.keep_alive(false);
    res_.set(http::field::content_type, type);
    res_.body() = std::move(body);
    res_.prepare_payload();
    stream_.expires_after(std::chrono::seconds(5));
    http::async_write(stream_, res_, [self = shared_from_this()](beast::error_code, size_t) {
      beast::error_code ignored;
      self->stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
    });
  }

  beast::tcp_stream stream_;
  host::Metrics* metrics_;
  const AdminViewer* viewer_;
  std::atomic<bool> answering_{false};
  beast::flat_buffer buffer_;
  http::request_parser<http::string_body> parser_;
  http::response<http::string_body> res_;
};

AdminHttp::AdminHttp(asio::io_context& io, host::Metrics* metrics, size_t max_connections)
    : io_(io),
      metrics_(metrics),
      max_connections_(max_connections),
      acceptor_(asio::make_strand(io)),
      retry_(acceptor_.get_executor()) {}

void AdminHttp::Listen(const std::string& address, uint16_t port) {
  const asio::ip::tcp::endpoint ep(asio::ip::make_address(address), port);
  acceptor_.open(ep.protocol());
  acceptor_.set_option(asio::ip::tcp::acceptor::reuse_address(true));
  acceptor_.bind(ep);
  acceptor_.listen();
  port_ = acceptor_.local_endpoint().port();
  Accept();
}

void AdminHttp::Stop() {
  asio::post(acceptor_.get_executor(), [this] {
    boost::system::error_code ignored;
    retry_.cancel();
    acceptor_.close(ignored);
  });
}

bool AdminHttp::MakeRoom() {
  std::lock_guard lock(mu_);
  std::erase_if(open_, [](const std::weak_ptr<AdminExchange>& w) { return w.expired(); });
  if (open_.size() < max_connections_) return true;
  for (auto it = open_.begin(); it != open_.end(); ++it) {
    const std::shared_ptr<AdminExchange> oldest = it->lock();
    if (oldest && !oldest->answering()) {
      oldest->Evict();
      open_.erase(it);
      metrics_->admin().evictions.Add(1);
      return true;
    }
  }
  return false;
}

void AdminHttp::Accept() {
  acceptor_.async_accept(
      asio::make_strand(io_), [this](const boost::system::error_code& ec, asio::ip::tcp::socket s) {
        if (ec) {
          if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;  // closed
          retry_.expires_after(std::chrono::milliseconds(250));  // EMFILE and the like
          retry_.async_wait([this](const boost::system::error_code& e) {
            if (!e && acceptor_.is_open()) Accept();
          });
          return;
        }
        auto exchange = std::make_shared<AdminExchange>(std::move(s), metrics_, &viewer_);
        if (MakeRoom()) {
          {
            std::lock_guard lock(mu_);
            open_.push_back(exchange);
          }
          exchange->Start();
        } else {
          exchange->RefuseBusy();
        }
        Accept();
      });
}

}  // namespace zs::admin
