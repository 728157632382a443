// AdminHttp: the operator's port (Boost.Beast), bound to 127.0.0.1 by default.
//   GET /healthz  -> 200 "ok"
//   GET /metrics  -> Prometheus text (net::Metrics)
// Anything else is 404. One request per connection, read within 5 s.
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

#include "net/metrics.h"

namespace zs::net {

class AdminExchange;

class AdminHttp {
 public:
  static constexpr size_t kMaxHeaderBytes = 8 * 1024;
  static constexpr size_t kMaxBodyBytes = 8 * 1024;

  AdminHttp(boost::asio::io_context& io, Metrics* metrics, size_t max_connections = 16);
  // Throws on a bad address or a port in use (start-up error).
  void Listen(const std::string& address, uint16_t port);
  void Stop();
  [[nodiscard]] uint16_t port() const { return port_; }

 private:
  void Accept();
  // Makes room for one more connection; false when none can be closed (answer 503).
  bool MakeRoom();

  boost::asio::io_context& io_;
  Metrics* metrics_;
  const size_t max_connections_;
  boost::asio::ip::tcp::acceptor acceptor_;  // on its own strand
  boost::asio::steady_timer retry_;
  uint16_t port_ = 0;
  std::mutex mu_;
  std::deque<std::weak_ptr<AdminExchange>> open_;  // oldest first; guarded by mu_
};

}  // namespace zs::net
