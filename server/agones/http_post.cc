#include "agones/http_post.h"

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <memory>
#include <utility>

namespace zs::agones {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

// The state of one exchange; kept alive by the handlers that capture it.
struct HttpExchange : std::enable_shared_from_this<HttpExchange> {
  HttpExchange(asio::io_context& io, asio::ip::tcp::endpoint to, size_t max_body, GetDone on_done)
      : stream(io), endpoint(std::move(to)), body_limit(max_body), done(std::move(on_done)) {
    parser.body_limit(max_body);
  }

  void Start(std::chrono::milliseconds timeout) {
    stream.expires_after(timeout);  // one deadline for connect, write and read together
    stream.async_connect(endpoint, [self = shared_from_this()](beast::error_code ec) {
      if (ec) return self->Finish(false, ec);
      http::async_write(self->stream, self->request,
                        [self](beast::error_code wec, size_t) { self->OnWritten(wec); });
    });
  }

  // The header first, then the body: Boost 1.74's parser, reading eagerly (async_read), loses
  // its body_limit error when the body arrives with the header; read alone, the header reports
  // it (and a Content-Length over the limit is refused before any of the body is buffered).
  void OnWritten(beast::error_code ec) {
    if (ec) return Finish(false, ec);
    http::async_read_header(stream, buffer, parser,
                            [self = shared_from_this()](beast::error_code hec, size_t) {
                              if (hec) return self->Finish(false, hec);
                              const auto length = self->parser.content_length();
                              if (length && *length > self->body_limit) {
                                return self->Finish(false, http::error::body_limit);
                              }
                              self->ReadBody();
                            });
  }

  void ReadBody() {
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
    if (ok) return done(true, "", std::move(parser.get().body()));
    if (ec == beast::error::timeout) return done(false, "timed out", {});
    if (ec == http::error::body_limit) {
      return done(false, "answer larger than " + std::to_string(body_limit) + " bytes", {});
    }
    if (ec == http::error::header_limit) return done(false, "answer's header too large", {});
    done(false, ec ? ec.message() : "HTTP " + std::to_string(status), {});
  }

  beast::tcp_stream stream;
  asio::ip::tcp::endpoint endpoint;
  size_t body_limit;
  GetDone done;
  http::request<http::string_body> request;
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
};

std::shared_ptr<HttpExchange> NewExchange(asio::io_context& io, const asio::ip::tcp::endpoint& to,
                                          http::verb verb, std::string_view target, size_t max_body,
                                          GetDone done) {
  auto exchange = std::make_shared<HttpExchange>(io, to, max_body, std::move(done));
  http::request<http::string_body>& req = exchange->request;
  req.method(verb);
  req.target(beast::string_view(target.data(), target.size()));
  req.version(11);
  req.set(http::field::host, to.address().to_string() + ":" + std::to_string(to.port()));
  req.keep_alive(false);
  return exchange;
}

}  // namespace

void AsyncPostJson(asio::io_context& io, const asio::ip::tcp::endpoint& to, std::string_view target,
                   std::string body, std::chrono::milliseconds timeout, PostDone done) {
  auto exchange = NewExchange(io, to, http::verb::post, target, kMaxResponseBytes,
                              [done = std::move(done)](bool ok, const std::string& why,
                                                       const std::string&) { done(ok, why); });
  exchange->request.set(http::field::content_type, "application/json");
  exchange->request.body() = std::move(body);
  exchange->request.prepare_payload();
  exchange->Start(timeout);
}

void AsyncGetJson(asio::io_context& io, const asio::ip::tcp::endpoint& to, std::string_view target,
                  std::chrono::milliseconds timeout, size_t max_body, GetDone done) {
  auto exchange = NewExchange(io, to, http::verb::get, target, max_body, std::move(done));
  exchange->request.set(http::field::accept, "application/json");
  exchange->request.prepare_payload();
  exchange->Start(timeout);
}

}  // namespace zs::agones
