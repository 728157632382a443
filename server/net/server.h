// Server: the listening socket, the session registry, connection caps, and graceful shutdown.
//
// Threads: the acceptor and all sessions run on the io_context's threads (each session on its
// own strand); the zones run on their runners' threads, reached through a PlayerPort
// (ZoneRunners). The registry is guarded by a mutex.
#pragma once

#include <spdlog/spdlog.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "auth/authenticator.h"
#include "host/churn_log.h"
#include "host/metrics.h"
#include "host/player_port.h"
#include "host/ticket_book.h"
#include "net/limits.h"
#include "net/login_gate.h"
#include "net/session_context.h"

namespace zs::net {

class Session;

class Server {
 public:
  // `churn`: where per-connection log lines are throttled (shared with the zone runner).
  // `auth`: who a Hello logs in as (mode none or token).
  // `tickets`: characters handed to this server by others (null: none are).
  Server(boost::asio::io_context& io, Limits limits, host::PlayerPort* players,
         host::Metrics* metrics, host::ChurnLog* churn, auth::Authenticator* auth,
         host::TicketBook* tickets = nullptr);

  // Binds and starts accepting. Throws on a bad address or a port in use (start-up error).
  void Listen(const std::string& address, uint16_t port);
  [[nodiscard]] uint16_t port() const { return port_; }

  // Stops accepting, kicks every client with `reason`, calls `done` when all are closed or
  // after limits.shutdown_flush_s, whichever comes first.
  void Shutdown(host::CloseReason reason, std::function<void()> done);

  [[nodiscard]] const Limits& limits() const { return limits_; }
  [[nodiscard]] size_t session_count() const;

 private:
  void Accept();
  void Refuse(boost::asio::ip::tcp::socket s, const std::string& ip, const std::string& refusal);
  void ScheduleChurnSummary();
  // The session's context calls it, once per session, when its socket is closed.
  void OnClosed(const Session& s, host::CloseReason reason);
  // Logs one per-connection line unless churn suppresses it (then it is only counted).
  template <typename... Args>
  void LogChurn(host::ChurnLog::Kind kind, const std::string& reason,
                spdlog::format_string_t<Args...> fmt, Args&&... args);

  boost::asio::io_context& io_;
  Limits limits_;
  host::Metrics* metrics_;
  host::ChurnLog* churn_;
  LoginGate login_;
  SessionContext session_context_;           // every session's: refers to the members above
  boost::asio::ip::tcp::acceptor acceptor_;  // on its own strand: accept and close never race
  boost::asio::steady_timer accept_retry_;   // on the acceptor's strand
  boost::asio::steady_timer churn_timer_;    // on the acceptor's strand
  uint16_t port_ = 0;
  uint64_t next_id_ = 1;
  bool stopping_ = false;  // guarded by mu_
  mutable std::mutex mu_;
  std::unordered_map<uint64_t, std::shared_ptr<Session>> sessions_;  // guarded by mu_
  std::unordered_map<std::string, size_t> per_ip_;                   // guarded by mu_
  std::function<void()> on_drained_;                                 // guarded by mu_
  std::unique_ptr<boost::asio::steady_timer> shutdown_timer_;
};

}  // namespace zs::net
