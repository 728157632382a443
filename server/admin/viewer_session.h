// ViewerSession: one zone viewer's WebSocket (Boost.Beast) on the admin port.
//
// The server talks, the page mostly listens: first a text "hello" message (zones, tick rate),
// then binary frames (viewer_frame.h) as the hub offers them. The page may send short text
// commands (viewer_command.h).
//
// Latest frame wins: one write in flight; a frame offered meanwhile waits as the single pending
// one and a newer offer replaces it (counted as skipped), so a slow viewer skips frames and never
// grows a queue; what one viewer pins is at most two frames. A write that does not finish within
// `stall_seconds` (a viewer that stopped reading) closes the connection.
//
// Violations close with a WebSocket close code and reason: a message over
// kMaxViewerCommandBytes 1009 (Beast's read limit), a binary message 1003, an unknown command or
// zone 1008. The owner (ViewerHub) injects what the session needs (a command handler, a close
// callback, metrics); the session knows nothing above it.
//
// Threads: every handler runs on the connection's strand (its stream's executor); Offer and
// Close may be called from any thread (they post). Hooks are called on the strand.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/websocket/stream.hpp>

#include <functional>
#include <memory>
#include <string>

#include "admin/viewer_command.h"
#include "host/metrics.h"

namespace zs::admin {

class ViewerSession : public std::enable_shared_from_this<ViewerSession> {
 public:
  struct Hooks {
    // A well-formed command; returns an error to close with (1008), or nullptr when accepted.
    std::function<const char*(const ViewerCommand&)> on_command;
    std::function<void()> on_closed;  // exactly once, when the connection is gone
  };

  ViewerSession(boost::beast::tcp_stream stream, double stall_seconds, host::Metrics* metrics,
                Hooks hooks);
  ViewerSession(const ViewerSession&) = delete;
  ViewerSession& operator=(const ViewerSession&) = delete;

  // Completes the upgrade of `request` and sends `hello` as the first message.
  void Start(boost::beast::http::request<boost::beast::http::string_body> request,
             std::string hello);
  // Sends `frame` as a binary message when the socket is free, else keeps it as the one pending
  // frame (replacing an older one). Any thread.
  void Offer(std::shared_ptr<const std::string> frame);
  // Closes (1001 going away). Any thread.
  void Close();

 private:
  void OnAccept(const boost::system::error_code& ec);
  void Read();
  void OnRead(const boost::system::error_code& ec);
  void Write(std::shared_ptr<const std::string> message, bool text);
  void OnWrite(const boost::system::error_code& ec);
  // Sends a close frame with `code` and `reason` once the write in flight (if any) is done.
  void CloseWith(boost::beast::websocket::close_code code, const char* reason);
  void SendClose();
  void Finish();  // the connection is over: hooks.on_closed, once

  boost::beast::websocket::stream<boost::beast::tcp_stream> ws_;
  boost::asio::steady_timer stall_;
  const double stall_seconds_;
  host::Metrics* metrics_;
  Hooks hooks_;
  boost::beast::flat_buffer in_;
  boost::beast::http::request<boost::beast::http::string_body> request_;  // the upgrade
  // Strand only.
  std::shared_ptr<const std::string> writing_;  // in flight
  std::shared_ptr<const std::string> pending_;  // the next frame (latest wins)
  std::shared_ptr<const std::string> hello_;    // until the upgrade completes
  bool accepted_ = false;
  bool closing_ = false;
  bool finished_ = false;
  boost::beast::websocket::close_reason close_reason_;
  uint64_t write_generation_ = 0;  // which write the stall timer watches
};

}  // namespace zs::admin
