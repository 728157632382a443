// AdminHttp: the operator's port (Boost.Beast), bound to 127.0.0.1 by default.
//   GET /healthz  -> 200 "ok"
//   GET /metrics  -> Prometheus text (net::Metrics)
// Anything else is 404. One request per connection; requests are capped at 8 KiB.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <cstdint>
#include <string>

#include "net/metrics.h"

namespace zs::net {

class AdminHttp {
 public:
  AdminHttp(boost::asio::io_context& io, Metrics* metrics);
  // Throws on a bad address or a port in use (start-up error).
  void Listen(const std::string& address, uint16_t port);
  void Stop();
  [[nodiscard]] uint16_t port() const { return port_; }

 private:
  void Accept();

  boost::asio::io_context& io_;
  Metrics* metrics_;
  boost::asio::ip::tcp::acceptor acceptor_;  // on its own strand
  boost::asio::steady_timer retry_;
  uint16_t port_ = 0;
};

}  // namespace zs::net
