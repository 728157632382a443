#include "net/admin_http.h"

#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <memory>

namespace zs::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

class Exchange : public std::enable_shared_from_this<Exchange> {
 public:
  Exchange(asio::ip::tcp::socket s, Metrics* metrics) : stream_(std::move(s)), metrics_(metrics) {
    parser_.body_limit(8 * 1024);
    parser_.header_limit(8 * 1024);
  }

  void Start() {
    stream_.expires_after(std::chrono::seconds(5));
    http::async_read(stream_, buffer_, parser_,
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       if (!ec) self->Respond();
                     });
  }

 private:
  void Respond() {
    const auto& req = parser_.get();
    res_.version(req.version());
    res_.keep_alive(false);
    if (req.method() == http::verb::get && req.target() == "/healthz") {
      res_.result(http::status::ok);
      res_.set(http::field::content_type, "text/plain");
      res_.body() = "ok\n";
    } else if (req.method() == http::verb::get && req.target() == "/metrics") {
      res_.result(http::status::ok);
      res_.set(http::field::content_type, "text/plain; version=0.0.4");
      res_.body() = metrics_->Render();
    } else {
      res_.result(http::status::not_found);
      res_.set(http::field::content_type, "text/plain");
      res_.body() = "not found\n";
    }
    res_.prepare_payload();
    http::async_write(stream_, res_, [self = shared_from_this()](beast::error_code, size_t) {
      beast::error_code ignored;
      self->stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
    });
  }

  beast::tcp_stream stream_;
  Metrics* metrics_;
  beast::flat_buffer buffer_;
  http::request_parser<http::string_body> parser_;
  http::response<http::string_body> res_;
};

}  // namespace

AdminHttp::AdminHttp(asio::io_context& io, Metrics* metrics)
    : io_(io),
      metrics_(metrics),
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

void AdminHttp::Accept() {
  acceptor_.async_accept(asio::make_strand(io_),
                         [this](const boost::system::error_code& ec, asio::ip::tcp::socket s) {
                           if (ec) {
                             if (ec == asio::error::operation_aborted || !acceptor_.is_open()) {
                               return;  // closed
                             }
                             retry_.expires_after(std::chrono::milliseconds(250));  // EMFILE...
                             retry_.async_wait([this](const boost::system::error_code& e) {
                               if (!e && acceptor_.is_open()) Accept();
                             });
                             return;
                           }
                           std::make_shared<Exchange>(std::move(s), metrics_)->Start();
                           Accept();
                         });
}

}  // namespace zs::net
