// Test clients for the zone viewer's WebSocket (/viewer/ws on the admin port): a Beast
// WebSocket client whose every operation has a deadline, a raw HTTP exchange, and a reader of
// the binary frame's header (server/admin/viewer_frame.h).
#pragma once

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>

#include <chrono>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace zs::integration {

namespace beast = boost::beast;
namespace websocket = boost::beast::websocket;

// A Beast WebSocket client over a real loopback socket (the zone viewer's, and the game's
// WebSocket door's). Every call runs the io_context for at most `timeout_s`.
class WsClient {
 public:
  // Request headers added to the upgrade (Sec-WebSocket-Protocol, Origin, ...).
  using Headers = std::vector<std::pair<beast::http::field, std::string>>;
  // Connects and upgrades `target` (e.g. "/viewer/ws?token=x"); ok() says whether it worked,
  // response() has the server's answer either way.
  WsClient(uint16_t port, const std::string& target, double timeout_s = 5,
           const Headers& headers = {})
      : ws_(io_) {
    ws_.next_layer().connect({boost::asio::ip::make_address("127.0.0.1"), port});
    ws_.read_message_max(1 << 24);
    ws_.set_option(websocket::stream_base::decorator([headers](websocket::request_type& req) {
      for (const auto& [field, value] : headers) req.set(field, value);
    }));
    Run(
        [&](auto done) {
          ws_.async_handshake(response_, "127.0.0.1", target,
                              [done](beast::error_code ec) { done(ec); });
        },
        timeout_s);
    upgraded_ = !ec_;
  }
  [[nodiscard]] bool ok() const { return upgraded_; }
  [[nodiscard]] const websocket::response_type& response() const { return response_; }
  [[nodiscard]] beast::error_code error() const { return ec_; }
  [[nodiscard]] websocket::close_reason close_reason() const { return ws_.reason(); }

  // The next message (text or binary), or nullopt on error/timeout (see error()).
  std::optional<std::string> Read(double timeout_s = 5) {
    beast::flat_buffer buf;
    Run([&](auto done) { ws_.async_read(buf, [done](beast::error_code ec, size_t) { done(ec); }); },
        timeout_s);
    if (ec_) return std::nullopt;
    text_ = ws_.got_text();
    return beast::buffers_to_string(buf.data());
  }
  // The next binary message (skipping text), or nullopt.
  std::optional<std::string> ReadFrame(double timeout_s = 5) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < end) {
      auto m = Read(std::chrono::duration<double>(end - std::chrono::steady_clock::now()).count());
      if (!m) return std::nullopt;
      if (!text_) return m;
    }
    return std::nullopt;
  }
  [[nodiscard]] bool last_was_text() const { return text_; }
  // Answers pings itself (Beast does, while a read is pending); this sends one.
  bool Ping(double timeout_s = 5) {
    Run([&](auto done) { ws_.async_ping({}, [done](beast::error_code ec) { done(ec); }); },
        timeout_s);
    return !ec_;
  }
  bool Send(const std::string& message, bool text = true, double timeout_s = 5) {
    ws_.text(text);
    Run(
        [&](auto done) {
          ws_.async_write(boost::asio::buffer(message),
                          [done](beast::error_code ec, size_t) { done(ec); });
        },
        timeout_s);
    return !ec_;
  }
  // Reads until the server closes; true when it sent a close frame (close_reason() has it).
  bool ReadUntilClosed(double timeout_s = 5) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < end) {
      if (!Read(std::chrono::duration<double>(end - std::chrono::steady_clock::now()).count())) {
        return ec_ == websocket::error::closed;
      }
    }
    return false;
  }

 private:
  template <typename Start>
  void Run(Start start, double timeout_s) {
    bool finished = false;
    ec_ = {};
    start([this, &finished](beast::error_code ec) {
      ec_ = ec;
      finished = true;
    });
    io_.restart();
    io_.run_for(std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::duration<double>(timeout_s)));
    if (!finished) {  // timed out: cancel and let the handler run
      beast::error_code ignored;
      ws_.next_layer().cancel(ignored);
      io_.restart();
      io_.run();
      ec_ = boost::asio::error::timed_out;
    }
  }

  boost::asio::io_context io_;
  websocket::stream<boost::asio::ip::tcp::socket> ws_;
  websocket::response_type response_;
  beast::error_code ec_;
  bool upgraded_ = false;
  bool text_ = false;
};

using ViewerClient = WsClient;

// Sends `request` as it is and returns everything the server answers until it closes.
inline std::string RawHttp(uint16_t port, const std::string& request) {
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket s(io);
  s.connect({boost::asio::ip::make_address("127.0.0.1"), port});
  boost::asio::write(s, boost::asio::buffer(request));
  std::string resp;
  char buf[4096];
  boost::system::error_code ec;
  for (;;) {
    const size_t n = s.read_some(boost::asio::buffer(buf), ec);
    if (ec) break;
    resp.append(buf, n);
  }
  return resp;
}

// The header of a viewer frame (viewer_frame.h's layout).
struct ViewerFrameHeader {
  uint8_t type = 0, version = 0;
  uint32_t zone = 0, tick = 0;
  float tick_ms = 0;  // the zone's last tick time, as its runner measured it
  uint32_t entities = 0, nodes = 0, swings = 0, hits = 0, selections = 0;
};
inline constexpr size_t kViewerHeaderBytes = 64;

template <typename T>
T ReadLe(const std::string& b, size_t at) {
  T v{};
  if (at + sizeof(T) <= b.size()) std::memcpy(&v, b.data() + at, sizeof(T));
  return v;
}

inline ViewerFrameHeader ParseViewerHeader(const std::string& b) {
  ViewerFrameHeader h;
  h.type = ReadLe<uint8_t>(b, 0);
  h.version = ReadLe<uint8_t>(b, 1);
  h.zone = ReadLe<uint32_t>(b, 4);
  h.tick = ReadLe<uint32_t>(b, 8);
  h.tick_ms = ReadLe<float>(b, 28);
  h.entities = ReadLe<uint32_t>(b, 44);
  h.nodes = ReadLe<uint32_t>(b, 48);
  h.swings = ReadLe<uint32_t>(b, 52);
  h.hits = ReadLe<uint32_t>(b, 56);
  h.selections = ReadLe<uint32_t>(b, 60);
  return h;
}

// The frame's size as its header's counts say it should be, without selections' id lists.
inline size_t ViewerFixedBytes(const ViewerFrameHeader& h) {
  return kViewerHeaderBytes + 28 * size_t{h.entities} + 24 * size_t{h.nodes} +
         44 * size_t{h.swings} + 12 * size_t{h.hits};
}

}  // namespace zs::integration
