#include "cluster/http_post.h"

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <memory>
#include <utility>

namespace zs::cluster {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

// The state of one exchange; kept alive by the handlers that capture it.
struct PostExchange : std::enable_shared_from_this<PostExchange> {
  PostExchange(asio::io_context& io, asio::ip::tcp::endpoint to, PostDone on_done)
      : stream(io), endpoint(std::move(to)), done(std::move(on_done)) {
    parser.body_limit(kMaxResponseBytes);
  }

  void Start(std::chrono::milliseconds timeout) {
    stream.expires_after(timeout);  // one deadline for connect, write and read together
    stream.async_connect(endpoint, [self = shared_from_this()](beast::error_code ec) {
      if (ec) return self->Finish(false, ec);
      http::async_write(self->stream, self->request,
                        [self](beast::error_code wec, size_t) { self->OnWritten(wec); });
    });
  }

  void OnWritten(beast::error_code ec) {
    if (ec) return Finish(false, ec);
    http::async_read(stream, buffer, parser,
                     [self = shared_from_this()](beast::error_code rec, size_t) {
                       if (rec) return self->Finish(false, rec);
                       const unsigned status = self->parser.get().result_int();
                       self->Finish(status / 100 == 2, {}, status);
                     });
  }

  void Finish(bool ok, beast::error_code ec, unsigned status = 0) {
    beast::error_code ignored;
    stream.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    stream.close();
    if (ok) return done(true, "");
    if (ec == beast::error::timeout) return done(false, "timed out");
    done(false, ec ? ec.message() : "HTTP " + std::to_string(status));
  }

  beast::tcp_stream stream;
  asio::ip::tcp::endpoint endpoint;
  PostDone done;
  http::request<http::string_body> request;
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
};

}  // namespace

void AsyncPostJson(asio::io_context& io, const asio::ip::tcp::endpoint& to, std::string_view target,
                   std::string body, std::chrono::milliseconds timeout, PostDone done) {
  auto exchange = std::make_shared<PostExchange>(io, to, std::move(done));
  http::request<http::string_body>& req = exchange->request;
  req.method(http::verb::post);
  req.target(boost::beast::string_view(target.data(), target.size()));
  req.version(11);
  req.set(http::field::host, to.address().to_string() + ":" + std::to_string(to.port()));
  req.set(http::field::content_type, "application/json");
  req.keep_alive(false);
  req.body() = std::move(body);
  req.prepare_payload();
  exchange->Start(timeout);
}

}  // namespace zs::cluster
