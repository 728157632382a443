#include "net/server.h"

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include "host/clock.h"
#include "net/session.h"
#include "wire/encoder.h"

namespace zs::net {

namespace asio = boost::asio;

Server::Server(asio::io_context& io, Limits limits, host::PlayerPort* players,
               host::Metrics* metrics, host::ChurnLog* churn, auth::Authenticator* auth,
               host::TicketBook* tickets)
    : io_(io),
      limits_(limits),
      metrics_(metrics),
      churn_(churn),
      login_(*auth, tickets, metrics->login_refusals()),
      session_context_{
          .limits = limits_,
          .players = *players,
          .login = login_,
          .traffic = metrics->traffic(),
          .send_queues = metrics->send_queues(),
          .allowed_origins = {},  // ListenWebSocket sets them
          .on_closed = [this](const Session& s, host::CloseReason reason) { OnClosed(s, reason); }},
      accept_strand_(asio::make_strand(io)),
      game_(accept_strand_, Transport::kTcp),
      ws_(accept_strand_, Transport::kWebSocket),
      churn_timer_(accept_strand_) {}

void Server::Open(Door& door, const std::string& address, uint16_t port) {
  const asio::ip::tcp::endpoint ep(asio::ip::make_address(address), port);
  door.acceptor.open(ep.protocol());
  door.acceptor.set_option(asio::ip::tcp::acceptor::reuse_address(true));
  door.acceptor.bind(ep);
  door.acceptor.listen(asio::socket_base::max_listen_connections);
  door.port = door.acceptor.local_endpoint().port();
}

void Server::ListenWebSocket(const std::string& address, uint16_t port,
                             std::vector<std::string> allowed_origins) {
  allowed_origins_ = std::move(allowed_origins);
  session_context_.allowed_origins = allowed_origins_;
  Open(ws_, address, port);
  Accept(ws_);
}

void Server::Listen(const std::string& address, uint16_t port) {
  Open(game_, address, port);
  Accept(game_);
  ScheduleChurnSummary();
}

template <typename... Args>
void Server::LogChurn(host::ChurnLog::Kind kind, const std::string& reason,
                      spdlog::format_string_t<Args...> fmt, Args&&... args) {
  if (churn_->Admit(kind, reason, host::MonotonicSeconds())) {
    spdlog::info(fmt, std::forward<Args>(args)...);
  }
}

void Server::ScheduleChurnSummary() {
  churn_timer_.expires_after(std::chrono::seconds(1));
  churn_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    if (auto line = churn_->TakeSummary(host::MonotonicSeconds())) spdlog::info("{}", *line);
    ScheduleChurnSummary();
  });
}

void Server::Accept(Door& door) {
  door.acceptor.async_accept(
      asio::make_strand(io_),
      [this, &door](const boost::system::error_code& ec, asio::ip::tcp::socket s) {
        if (ec) {
          if (ec == asio::error::operation_aborted || !door.acceptor.is_open()) return;
          // Out of file descriptors and the like: back off instead of spinning.
          if (churn_->Admit(host::ChurnLog::Kind::kAcceptFailed, ec.message(),
                            host::MonotonicSeconds())) {
            spdlog::warn("accept failed: {}; retrying in 250 ms", ec.message());
          }
          door.retry.expires_after(std::chrono::milliseconds(250));
          door.retry.async_wait([this, &door](const boost::system::error_code& e) {
            if (!e && door.acceptor.is_open()) Accept(door);
          });
          return;
        }
        boost::system::error_code peer_ec;
        const auto remote = s.remote_endpoint(peer_ec);
        const std::string ip = peer_ec ? "?" : remote.address().to_string();
        std::shared_ptr<Session> session;
        std::string refusal;
        {
          std::lock_guard lock(mu_);
          if (stopping_) {
            refusal = "shutting down";
          } else if (sessions_.size() >= limits_.max_connections) {
            refusal = "server full";
          } else if (per_ip_[ip] >= limits_.max_connections_per_ip) {
            refusal = "too many connections from your address";
          } else {
            const uint64_t id = next_id_++;
            session =
                std::make_shared<Session>(std::move(s), id, ip, session_context_, door.transport);
            sessions_[id] = session;
            ++per_ip_[ip];
          }
        }
        if (session) {
          metrics_->connections().open.Add(1);
          metrics_->connections().accepted.Add(1);
          LogChurn(host::ChurnLog::Kind::kConnected, "", "session {} connected from {}",
                   session->id(), ip);
          session->Start();
        } else {
          // `s` was moved above only if a session was made.
          // NOLINTNEXTLINE(bugprone-use-after-move)
          Refuse(door, std::move(s), ip, refusal);
        }
        bool stopping;
        {
          std::lock_guard lock(mu_);
          stopping = stopping_;
        }
        if (!stopping) Accept(door);
      });
}

void Server::Refuse(Door& door, asio::ip::tcp::socket s, const std::string& ip,
                    const std::string& refusal) {
  // A best-effort error frame (at the WebSocket door: an HTTP 503 with the reason, before any
  // request is read), then close. It fits any socket buffer: the write completes at once, so a
  // refused connection holds its descriptor only briefly.
  metrics_->connections().refused.Add(1);
  metrics_->kicks().Add(host::CloseReason::kRefused);
  LogChurn(host::ChurnLog::Kind::kRefused, refusal, "refused a connection from {}: {}", ip,
           refusal);
  auto frame = std::make_shared<std::string>(
      door.transport == Transport::kWebSocket
          ? "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: " +
                std::to_string(refusal.size() + 1) + "\r\nConnection: close\r\n\r\n" + refusal +
                "\n"
          : wire::ErrorFrame(wire::ErrorCode::kServerFull, refusal));
  auto sock = std::make_shared<asio::ip::tcp::socket>(std::move(s));
  asio::async_write(*sock, asio::buffer(*frame),
                    [sock, frame](const boost::system::error_code&, size_t) {
                      boost::system::error_code ignored;
                      sock->shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
                      sock->close(ignored);
                    });
}

void Server::OnClosed(const Session& s, host::CloseReason reason) {
  std::function<void()> done;
  {
    std::lock_guard lock(mu_);
    sessions_.erase(s.id());
    if (auto it = per_ip_.find(s.peer()); it != per_ip_.end() && --it->second == 0) {
      per_ip_.erase(it);
    }
    if (stopping_ && sessions_.empty() && on_drained_) done = std::move(on_drained_);
  }
  metrics_->connections().open.Sub(1);
  if (!host::ClientChose(reason)) metrics_->kicks().Add(reason);
  const char* name = host::CloseReasonName(reason);
  LogChurn(host::ChurnLog::Kind::kDisconnected, name, "session {} disconnected: {}", s.id(), name);
  if (done) done();
}

size_t Server::session_count() const {
  std::lock_guard lock(mu_);
  return sessions_.size();
}

void Server::Shutdown(host::CloseReason reason, std::function<void()> done) {
  std::vector<std::shared_ptr<Session>> all;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    for (auto& [id, s] : sessions_) all.push_back(s);
    if (all.empty()) {
      asio::post(io_, std::move(done));
    } else {
      on_drained_ = std::move(done);
    }
  }
  asio::post(accept_strand_, [this] {  // on the acceptors' strand
    boost::system::error_code ignored;
    for (Door* door : {&game_, &ws_}) {
      door->retry.cancel();
      door->acceptor.close(ignored);
    }
    churn_timer_.cancel();
    if (auto line = churn_->TakeSummary(host::MonotonicSeconds(), /*flush=*/true))
      spdlog::info("{}", *line);
  });
  const char* name = host::CloseReasonName(reason);
  spdlog::info("shutting down: kicking {} clients ({})", all.size(), name);
  for (auto& s : all) s->CloseWith(wire::KickFrame(name), reason);
  // Bounded: whatever has not flushed by then is abandoned.
  shutdown_timer_ = std::make_unique<asio::steady_timer>(io_);
  shutdown_timer_->expires_after(
      std::chrono::milliseconds(static_cast<int64_t>(limits_.shutdown_flush_s * 1000)));
  shutdown_timer_->async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    std::function<void()> late;
    {
      std::lock_guard lock(mu_);
      if (on_drained_) late = std::move(on_drained_);
    }
    if (late) {
      spdlog::warn("shutdown: {} clients did not flush in time", session_count());
      late();
    }
  });
}

}  // namespace zs::net
