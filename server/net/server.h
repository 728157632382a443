// Server: the listening sockets (the game port, and the WebSocket door when listened on), the
// session registry, connection caps, and graceful shutdown. Both doors lead to the same
// sessions (net::Session, one per client whatever its framing), counted against the same caps.
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
#include <vector>

#include "auth/authenticator.h"
#include "host/churn_log.h"
#include "host/metrics.h"
#include "host/player_port.h"
#include "host/ticket_book.h"
#include "net/limits.h"
#include "net/login_gate.h"
#include "net/session.h"
#include "net/session_context.h"

namespace zs::net {

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
  [[nodiscard]] uint16_t port() const { return game_.port; }
  // The same for the WebSocket door (docs/protocol.md "Transports"): pages of
  // `allowed_origins` may open it besides its own origin (net/ws_handshake.h).
  void ListenWebSocket(const std::string& address, uint16_t port,
                       std::vector<std::string> allowed_origins);
  [[nodiscard]] uint16_t ws_port() const { return ws_.port; }

  // Stops accepting, kicks every client with `reason`, calls `done` when all are closed or
  // after limits.shutdown_flush_s, whichever comes first.
  void Shutdown(host::CloseReason reason, std::function<void()> done);

  [[nodiscard]] const Limits& limits() const { return limits_; }
  [[nodiscard]] size_t session_count() const;

 private:
  // A listening socket and the framing of the sessions it accepts (on the acceptor's strand).
  struct Door {
    Door(const boost::asio::strand<boost::asio::io_context::executor_type>& strand,
         Transport framing)
        : acceptor(strand), retry(strand), transport(framing) {}
    boost::asio::ip::tcp::acceptor acceptor;
    boost::asio::steady_timer retry;
    Transport transport;
    uint16_t port = 0;
  };
  void Open(Door& door, const std::string& address, uint16_t port);
  void Accept(Door& door);
  void Refuse(Door& door, boost::asio::ip::tcp::socket s, const std::string& ip,
              const std::string& refusal);
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
  std::vector<std::string> allowed_origins_;  // the WebSocket door's (set before it listens)
  SessionContext session_context_;            // every session's: refers to the members above
  // The acceptors' own strand: accepts and closes never race.
  boost::asio::strand<boost::asio::io_context::executor_type> accept_strand_;
  Door game_;
  Door ws_;
  boost::asio::steady_timer churn_timer_;  // on the acceptors' strand
  uint64_t next_id_ = 1;
  bool stopping_ = false;  // guarded by mu_
  mutable std::mutex mu_;
  std::unordered_map<uint64_t, std::shared_ptr<Session>> sessions_;  // guarded by mu_
  std::unordered_map<std::string, size_t> per_ip_;                   // guarded by mu_
  std::function<void()> on_drained_;                                 // guarded by mu_
  std::unique_ptr<boost::asio::steady_timer> shutdown_timer_;
};

}  // namespace zs::net
