// AdminHttp: the operator's port (Boost.Beast), bound to 127.0.0.1 by default.
//   GET /healthz  -> 200 "ok"
//   GET /metrics  -> Prometheus text (host::Metrics)
//   GET /viewer, /viewer/viewer.js, /viewer/viewer.css -> the zone viewer's page (WebAssets)
//   GET /viewer/ws -> the viewer's WebSocket, handed to the ViewerHub (at its cap: 503)
// Anything else is 404. One request per connection, read within 5 s (a WebSocket then lives on
// under the hub, outside this port's connection cap, within admin.max_viewers).
// With a token (admin.token), /viewer and /viewer/ws need `?token=...`: 401 without it, 403
// with a wrong one (admin_token.h). The page's script and style are public (they are the repo's
// files), as are /healthz and /metrics.
//
// Limits: request headers over 8 KiB get 431, a body over 8 KiB gets 413 (then the
// connection closes). At most `max_connections` are open at once: at the cap, the oldest
// connection still sending its request is closed unanswered to make room (idle connections
// cannot lock the port: a health check always gets through); when every open one is already
// being answered, the new one gets 503.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include "admin/viewer_hub.h"
#include "admin/web_assets.h"
#include "host/metrics.h"

namespace zs::admin {

class AdminExchange;

// What the admin port needs to serve the zone viewer.
struct AdminViewer {
  ViewerHub* hub = nullptr;           // null: no /viewer/ws
  const WebAssets* assets = nullptr;  // null or not loaded: /viewer answers 404 saying so
  std::string token;                  // empty: no token needed
  std::string missing_assets;         // why the assets are missing (for the 404)
};

class AdminHttp {
 public:
  static constexpr size_t kMaxHeaderBytes = 8 * 1024;
  static constexpr size_t kMaxBodyBytes = 8 * 1024;

  AdminHttp(boost::asio::io_context& io, host::Metrics* metrics, size_t max_connections = 16);
  // Throws on a bad address or a port in use (start-up error).
  void Listen(const std::string& address, uint16_t port);
  void Stop();
  // Serves the zone viewer too. REQUIRES: before Listen.
  void EnableViewer(AdminViewer viewer) { viewer_ = std::move(viewer); }
  [[nodiscard]] uint16_t port() const { return port_; }

 private:
  void Accept();
  // Makes room for one more connection; false when none can be closed (answer 503).
  bool MakeRoom();

  boost::asio::io_context& io_;
  host::Metrics* metrics_;
  const size_t max_connections_;
  boost::asio::ip::tcp::acceptor acceptor_;  // on its own strand
  boost::asio::steady_timer retry_;
  uint16_t port_ = 0;
  AdminViewer viewer_;
  std::mutex mu_;
  std::deque<std::weak_ptr<AdminExchange>> open_;  // oldest first; guarded by mu_
};

}  // namespace zs::admin
