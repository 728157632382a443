#include "admin/viewer_session.h"

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/websocket.hpp>

#include <chrono>

namespace zs::admin {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;

namespace {

// The viewer socket's kernel send buffer. Latest frame wins only if frames wait here, in the
// session, rather than in the kernel: what the kernel holds is sent however stale it gets. A
// quarter megabyte (Linux doubles it) still holds a 5,000-entity frame (~140 KB) and keeps a LAN
// link busy.
constexpr int kSendBufferBytes = 128 * 1024;

}  // namespace

ViewerSession::ViewerSession(beast::tcp_stream stream, double stall_seconds, host::Metrics* metrics,
                             Hooks hooks)
    : ws_(std::move(stream)),
      stall_(ws_.get_executor()),
      stall_seconds_(stall_seconds),
      metrics_(metrics),
      hooks_(std::move(hooks)) {
  boost::system::error_code ignored;  // a failure leaves the OS default
  beast::get_lowest_layer(ws_).socket().set_option(
      asio::socket_base::send_buffer_size(kSendBufferBytes), ignored);
}

void ViewerSession::Start(beast::http::request<beast::http::string_body> request,
                          std::string hello) {
  hello_ = std::make_shared<const std::string>(std::move(hello));
  // The WebSocket's own timeouts replace the HTTP exchange's: 5 s to finish the handshake, and
  // a ping after 60 s of silence (a paused viewer whose network went away is noticed).
  beast::get_lowest_layer(ws_).expires_never();
  websocket::stream_base::timeout t{};
  t.handshake_timeout = std::chrono::seconds(5);
  t.idle_timeout = std::chrono::seconds(60);
  t.keep_alive_pings = true;
  ws_.set_option(t);
  ws_.read_message_max(kMaxViewerCommandBytes);
  request_ = std::move(request);  // kept until the handshake is done
  ws_.async_accept(request_, [self = shared_from_this()](const boost::system::error_code& ec) {
    self->OnAccept(ec);
  });
}

void ViewerSession::OnAccept(const boost::system::error_code& ec) {
  if (ec) {
    Finish();
    return;
  }
  accepted_ = true;
  Write(std::move(hello_), true);
  Read();
}

void ViewerSession::Read() {
  ws_.async_read(in_, [self = shared_from_this()](const boost::system::error_code& ec, size_t) {
    self->OnRead(ec);
  });
}

void ViewerSession::OnRead(const boost::system::error_code& ec) {
  if (ec) {  // closed by the peer, too big (Beast has sent 1009), timed out, reset
    if (ec == websocket::error::message_too_big) {
      spdlog::info("viewer: closed, a message over {} bytes", kMaxViewerCommandBytes);
    }
    Finish();
    return;
  }
  const std::string text = beast::buffers_to_string(in_.data());
  in_.consume(in_.size());
  if (!ws_.got_text()) {
    CloseWith(websocket::close_code::unknown_data, "binary messages are not accepted");
    return;
  }
  const std::optional<ViewerCommand> command = ParseViewerCommand(text);
  const char* error = command ? hooks_.on_command(*command) : "unknown command";
  if (error != nullptr) {
    CloseWith(websocket::close_code::policy_error, error);
    return;
  }
  Read();
}

void ViewerSession::Offer(std::shared_ptr<const std::string> frame) {
  asio::post(ws_.get_executor(), [self = shared_from_this(), frame = std::move(frame)]() mutable {
    if (self->finished_ || self->closing_) return;
    if (self->writing_ || !self->accepted_) {
      if (self->pending_) self->metrics_->viewers().skipped.Add(1);
      self->pending_ = std::move(frame);
      return;
    }
    self->Write(std::move(frame), false);
  });
}

void ViewerSession::Write(std::shared_ptr<const std::string> message, bool text) {
  writing_ = std::move(message);
  ws_.text(text);
  const uint64_t generation = ++write_generation_;
  stall_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(stall_seconds_)));
  stall_.async_wait([self = shared_from_this(), generation](const boost::system::error_code& ec) {
    if (ec || self->finished_ || !self->writing_ || self->write_generation_ != generation) return;
    spdlog::info("viewer: closed, a frame not taken within {} s (not reading)",
                 self->stall_seconds_);
    beast::error_code ignored;
    beast::get_lowest_layer(self->ws_).socket().close(ignored);  // cancels the write
  });
  ws_.async_write(asio::buffer(*writing_),
                  [self = shared_from_this()](const boost::system::error_code& ec, size_t) {
                    self->OnWrite(ec);
                  });
}

void ViewerSession::OnWrite(const boost::system::error_code& ec) {
  writing_.reset();
  stall_.cancel();
  if (ec) {
    Finish();
    return;
  }
  metrics_->viewers().frames.Add(1);
  if (closing_) {
    SendClose();
  } else if (pending_) {
    Write(std::move(pending_), false);
  }
}

void ViewerSession::Close() {
  asio::post(ws_.get_executor(), [self = shared_from_this()] {
    self->CloseWith(websocket::close_code::going_away, "server shutting down");
  });
}

void ViewerSession::CloseWith(websocket::close_code code, const char* reason) {
  if (closing_ || finished_) return;
  closing_ = true;
  pending_.reset();
  close_reason_ = websocket::close_reason(code, reason);
  if (!accepted_) {
    Finish();
    return;
  }
  if (!writing_) SendClose();  // else after the write in flight (one write at a time)
}

void ViewerSession::SendClose() {
  ws_.async_close(close_reason_, [self = shared_from_this()](const boost::system::error_code&) {
    self->Finish();
  });
}

void ViewerSession::Finish() {
  if (finished_) return;
  finished_ = true;
  stall_.cancel();
  pending_.reset();
  beast::error_code ignored;
  beast::get_lowest_layer(ws_).socket().close(ignored);
  if (hooks_.on_closed) hooks_.on_closed();
}

}  // namespace zs::admin
