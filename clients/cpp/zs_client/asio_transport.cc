#include "zs_client/asio_transport.h"

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/websocket.hpp>
#include <cmath>
#include <deque>
#include <exception>
#include <string>
#include <vector>

namespace zs::client {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using boost::system::error_code;

// One dialled connection. Reports to the transport's client exactly once that it closed.
class AsioTransport::Link : public std::enable_shared_from_this<Link> {
 public:
  Link(AsioTransport* owner, uint64_t id)
      : owner_(owner), alive_(owner->alive_), id_(id), resolver_(owner->io_) {}
  virtual ~Link() = default;
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  void Start(const DialTarget& target) {
    max_inbound_ = target.max_inbound_frame_bytes;
    resolver_.async_resolve(
        target.host, std::to_string(target.port),
        [self = shared_from_this(), target](error_code ec, const tcp::resolver::results_type& r) {
          if (ec)
            return self->Closed(
                CloseInfo{.websocket_code = 0, .reason = ec.message(), .http_status = 0});
          self->Connect(r, target);
        });
  }
  // Queues one whole message (framed already for TCP); one write in flight.
  void Send(std::span<const uint8_t> bytes) {
    if (closed_) return;
    queue_.emplace_back(bytes.begin(), bytes.end());
    if (queue_.size() == 1 && connected_) WriteNext();
  }
  // Closes now; the client hears OnClosed (posted, never from inside Pump).
  void Close() {
    if (closed_) return;
    resolver_.cancel();
    Shut();
    asio::post(owner_->io_, [self = shared_from_this()] {
      self->Closed(
          CloseInfo{.websocket_code = 0, .reason = "closed by the client", .http_status = 0});
    });
    closed_ = true;
  }

 protected:
  virtual void Connect(const tcp::resolver::results_type& endpoints, const DialTarget& target) = 0;
  virtual void WriteNext() = 0;
  virtual void Shut() = 0;

  [[nodiscard]] bool Usable() const { return !closed_ && !alive_.expired() && !owner_->stopped_; }
  void Connected(std::string_view subprotocol) {
    if (!Usable()) return;
    connected_ = true;
    owner_->client_.OnConnected(id_, subprotocol, owner_->Now());
    if (!queue_.empty()) WriteNext();
    owner_->AfterEvent();
  }
  void Bytes(std::span<const uint8_t> bytes) {
    if (!Usable()) return;
    owner_->client_.OnBytes(id_, bytes, owner_->Now());
    owner_->AfterEvent();
  }
  void Message(std::span<const uint8_t> bytes) {
    if (!Usable()) return;
    owner_->client_.OnMessage(id_, bytes, owner_->Now());
    owner_->AfterEvent();
  }
  void Closed(const CloseInfo& info) {
    if (reported_ || alive_.expired()) return;
    reported_ = true;
    if (!closed_) Shut();
    closed_ = true;
    AsioTransport* owner = owner_;
    const std::shared_ptr<Link> keep = shared_from_this();
    owner->links_.erase(id_);
    if (owner->stopped_) return;
    owner->client_.OnClosed(id_, info, owner->Now());
    owner->AfterEvent();
  }
  void Wrote(error_code ec) {
    if (!queue_.empty()) queue_.pop_front();
    if (ec) return Closed(CloseInfo{.websocket_code = 0, .reason = ec.message(), .http_status = 0});
    if (!queue_.empty() && !closed_) WriteNext();
  }

  AsioTransport* owner_;
  std::weak_ptr<bool> alive_;
  uint64_t id_;
  tcp::resolver resolver_;
  std::deque<std::vector<uint8_t>> queue_;
  size_t max_inbound_ = kMaxInboundFrameBytes;
  bool connected_ = false;
  bool closed_ = false;
  bool reported_ = false;
};

namespace {

// tcp://: the bytes as they come (the Client decodes the varint framing).
class TcpLink final : public AsioTransport::Link {
 public:
  TcpLink(AsioTransport* owner, uint64_t id, asio::io_context& io) : Link(owner, id), socket_(io) {}

 private:
  void Connect(const tcp::resolver::results_type& endpoints,
               const DialTarget& /*target*/) override {
    asio::async_connect(
        socket_, endpoints, [self = Self()](error_code ec, const tcp::endpoint& /*e*/) {
          if (ec)
            return self->Closed(
                CloseInfo{.websocket_code = 0, .reason = ec.message(), .http_status = 0});
          error_code ignored;
          self->socket_.set_option(tcp::no_delay(true), ignored);
          self->Connected("");
          self->Read();
        });
  }
  void Read() {
    if (!Usable()) return;
    socket_.async_read_some(asio::buffer(buf_), [self = Self()](error_code ec, size_t n) {
      if (ec)
        return self->Closed(
            CloseInfo{.websocket_code = 0, .reason = ec.message(), .http_status = 0});
      self->Bytes(std::span<const uint8_t>(self->buf_.data(), n));
      self->Read();
    });
  }
  void WriteNext() override {
    asio::async_write(socket_, asio::buffer(queue_.front()),
                      [self = Self()](error_code ec, size_t /*n*/) { self->Wrote(ec); });
  }
  void Shut() override {
    error_code ignored;
    socket_.close(ignored);
  }
  std::shared_ptr<TcpLink> Self() { return std::static_pointer_cast<TcpLink>(shared_from_this()); }

  tcp::socket socket_;
  std::array<uint8_t, 16384> buf_{};
};

// ws://: one binary message per protobuf message, the zone.v<N> subprotocols offered.
class WsLink final : public AsioTransport::Link {
 public:
  WsLink(AsioTransport* owner, uint64_t id, asio::io_context& io) : Link(owner, id), ws_(io) {}

 private:
  void Connect(const tcp::resolver::results_type& endpoints, const DialTarget& target) override {
    beast::get_lowest_layer(ws_).async_connect(
        endpoints, [self = Self(), target](error_code ec, const tcp::endpoint& /*e*/) {
          if (ec)
            return self->Closed(
                CloseInfo{.websocket_code = 0, .reason = ec.message(), .http_status = 0});
          self->Handshake(target);
        });
  }
  void Handshake(const DialTarget& target) {
    if (!Usable()) return;
    std::string offered;
    for (const std::string& p : target.subprotocols) offered += (offered.empty() ? "" : ", ") + p;
    ws_.set_option(websocket::stream_base::decorator([offered](websocket::request_type& req) {
      req.set(beast::http::field::sec_websocket_protocol, offered);
    }));
    ws_.read_message_max(max_inbound_);
    ws_.binary(true);
    const std::string host = target.host + ":" + std::to_string(target.port);
    ws_.async_handshake(response_, host, target.path, [self = Self()](error_code ec) {
      if (ec) {
        const int status = ec == websocket::error::upgrade_declined
                               ? static_cast<int>(self->response_.result_int())
                               : 0;
        return self->Closed(CloseInfo{.websocket_code = 0,
                                      .reason = status != 0 ? self->response_.body() : ec.message(),
                                      .http_status = status});
      }
      beast::get_lowest_layer(self->ws_).expires_never();
      const auto protocol = self->response_[beast::http::field::sec_websocket_protocol];
      self->Connected(std::string_view(protocol.data(), protocol.size()));
      self->Read();
    });
  }
  void Read() {
    if (!Usable()) return;
    ws_.async_read(buf_, [self = Self()](error_code ec, size_t /*n*/) {
      if (ec) {
        CloseInfo info{.websocket_code = 0, .reason = ec.message(), .http_status = 0};
        if (ec == websocket::error::closed) {
          info.websocket_code = static_cast<int>(self->ws_.reason().code);
          info.reason = std::string(self->ws_.reason().reason.c_str());
        }
        return self->Closed(info);
      }
      const auto data = self->buf_.cdata();
      self->Message(
          std::span<const uint8_t>(static_cast<const uint8_t*>(data.data()), data.size()));
      self->buf_.consume(self->buf_.size());
      self->Read();
    });
  }
  void WriteNext() override {
    ws_.async_write(asio::buffer(queue_.front()),
                    [self = Self()](error_code ec, size_t /*n*/) { self->Wrote(ec); });
  }
  void Shut() override {
    error_code ignored;
    beast::get_lowest_layer(ws_).socket().close(ignored);
  }
  std::shared_ptr<WsLink> Self() { return std::static_pointer_cast<WsLink>(shared_from_this()); }

  websocket::stream<beast::tcp_stream> ws_;
  websocket::response_type response_;
  beast::flat_buffer buf_;
};

}  // namespace

AsioTransport::AsioTransport(asio::io_context& io, Client& client, double max_poll_interval_ms)
    : io_(io),
      client_(client),
      max_poll_interval_ms_(max_poll_interval_ms),
      timer_(io),
      start_(std::chrono::steady_clock::now()),
      epoch_at_start_ms_(std::chrono::duration<double, std::milli>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count()),
      alive_(std::make_shared<bool>(true)) {}

AsioTransport::~AsioTransport() {
  try {
    Stop();
  } catch (const std::exception&) {
    // Closing sockets that are going anyway: nothing left to tell anyone.
  }
}

double AsioTransport::Now() const {
  return epoch_at_start_ms_ +
         std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
             .count();
}

Status AsioTransport::Connect(ClientOptions options) {
  Status s = client_.Connect(std::move(options), Now());
  if (!s.ok()) return s;
  stopped_ = false;
  Pump();
  ArmTimer();
  return s;
}

void AsioTransport::Pump() {
  for (const Action& a : client_.TakeActions()) Carry(a);
}

void AsioTransport::Carry(const Action& action) {
  if (action.kind == ActionKind::kDial) return Dial(action);
  const auto it = links_.find(action.link);
  if (it == links_.end()) return;
  if (action.kind == ActionKind::kSend) {
    it->second->Send(action.bytes);
  } else {
    it->second->Close();
  }
}

void AsioTransport::Dial(const Action& action) {
  std::shared_ptr<Link> link;
  if (action.dial.scheme == Scheme::kTcp) {
    link = std::make_shared<TcpLink>(this, action.link, io_);
  } else {
    link = std::make_shared<WsLink>(this, action.link, io_);
  }
  links_[action.link] = link;
  if (action.dial.scheme == Scheme::kWss) {
    asio::post(io_, [this, id = action.link, alive = std::weak_ptr<bool>(alive_)] {
      if (alive.expired()) return;
      links_.erase(id);
      client_.OnClosed(
          id,
          CloseInfo{.websocket_code = 0,
                    .reason = "wss:// is not supported by AsioTransport (use a TLS proxy)",
                    .http_status = 0},
          Now());
      AfterEvent();
    });
    return;
  }
  link->Start(action.dial);
}

void AsioTransport::AfterEvent() {
  client_.Poll(Now());
  Pump();
  ArmTimer();
}

void AsioTransport::ArmTimer() {
  if (stopped_ || (client_.state() == State::kClosed && links_.empty())) return;
  const double wait = std::clamp(client_.NextPollAt() - Now(), 0.0, max_poll_interval_ms_);
  timer_.expires_after(std::chrono::microseconds(static_cast<int64_t>(wait * 1000)));
  timer_.async_wait([this, alive = std::weak_ptr<bool>(alive_)](error_code ec) {
    if (ec || alive.expired()) return;
    Tick();
  });
}

void AsioTransport::Tick() {
  client_.Poll(Now());
  Pump();
  ArmTimer();
}

void AsioTransport::Stop() {
  stopped_ = true;
  timer_.cancel();
  const auto links = links_;
  for (const auto& [id, link] : links) link->Close();
}

}  // namespace zs::client
