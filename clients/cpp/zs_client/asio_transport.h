// AsioTransport: runs a Client over Boost.Asio TCP (tcp://host:port, varint-framed) and over
// Boost.Beast WebSocket (ws://host:port/path: offering the zone.v<N> subprotocols, binary
// messages), on one io_context the game owns. It carries out the Client's actions (dial, send,
// close), hands it what arrives, and polls it from a timer (at the Client's NextPollAt, at most
// `max_poll_interval_ms` apart). wss:// is not supported here (put the TLS proxy's plain side in
// front, or bring your own transport): such a dial closes at once with a reason.
//
// Time: milliseconds on the system clock's epoch at construction, advanced by the steady clock
// (never goes back), the clock every Client call is given.
//
// Threads: none of its own. Every method and handler runs on the io_context's thread(s); run
// the io_context from one thread (or a strand) since the Client is not thread-safe. Links are
// shared_ptrs owned by their pending operations; one write in flight per link, a queue behind.
// The transport must outlive the io_context's pending handlers (Stop, then run the context
// until it returns, before destroying it).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <unordered_map>

#include "zs_client/client.h"

namespace zs::client {

class AsioTransport {
 public:
  AsioTransport(boost::asio::io_context& io, Client& client, double max_poll_interval_ms = 25);
  ~AsioTransport();
  AsioTransport(const AsioTransport&) = delete;
  AsioTransport& operator=(const AsioTransport&) = delete;

  // Connects the client and starts the timer.
  Status Connect(ClientOptions options);
  // Carries out the actions the client asked for (call after any input: Move, UseSkill, ...).
  void Pump();
  // Stops the timer and closes every link at once (no logout; Client::Close for that).
  void Stop();
  // The clock the client is driven by.
  [[nodiscard]] double Now() const;

  class Link;  // one dialled connection (asio_transport.cc)

 private:
  void Carry(const Action& action);
  void Dial(const Action& action);
  void AfterEvent();
  void ArmTimer();
  void Tick();

  boost::asio::io_context& io_;
  Client& client_;
  double max_poll_interval_ms_;
  boost::asio::steady_timer timer_;
  std::chrono::steady_clock::time_point start_;
  double epoch_at_start_ms_;
  bool stopped_ = false;
  std::unordered_map<uint64_t, std::shared_ptr<Link>> links_;
  std::shared_ptr<bool> alive_;  // handlers check it: the transport still exists
};

}  // namespace zs::client
