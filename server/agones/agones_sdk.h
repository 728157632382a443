// AgonesSdk: the game server's side of Agones' SDK, spoken over its REST gateway (the sidecar
// on 127.0.0.1:$AGONES_SDK_HTTP_PORT) with Beast HTTP/1.1, so that we need no gRPC.
//
//   POST /ready     once both listeners are open: the GameServer becomes Ready, Agones
//                   publishes its address and port, and allocations may pick it
//   POST /health    every `interval` (more often than the Fleet's health.periodSeconds, or
//                   Agones marks the GameServer Unhealthy and replaces it)
//   POST /shutdown  after the graceful stop: Agones deletes the pod
//   GET /gameserver when asked (PublicAddress): the GameServer, whose status has the address
//                   and port clients must use (gameserver_status.h)
// Each POST has the body `{}` and `Content-Type: application/json`; any 2xx answer is an
// acknowledgement, anything else (refused, timed out, 4xx/5xx) a failure, logged and counted.
//
// Threads: the SDK owns one io_context and one thread; every request runs there, one at a
// time, in the order asked for (so Ready always precedes the first Health, and Shutdown is the
// last call). The public methods may be called from any thread; only Shutdown blocks, and only
// for at most its timeout. The server's own threads never wait on the sidecar, which may start
// after us, hang or be gone.
//
// Retries: Ready and Shutdown are retried with exponential back-off (the sidecar may not be
// listening yet); Ready until it succeeds or Shutdown is asked for, Shutdown until its
// deadline. A failed Health is not retried: the next one is due in `interval` anyway. A Health
// still waiting (behind a slow Ready) when the next one is due is not queued twice. GET
// /gameserver is retried with the same back-off until the status has what PublicAddress wants,
// but a retry waits outside the queue: Health goes on meanwhile.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "agones/gameserver_status.h"

namespace zs::agones {

// The REST calls we make. DO NOT REORDER without the tables in agones_sdk.cc (indexed by it).
enum class AgonesCall : uint8_t { kReady, kHealth, kShutdown, kGameServer };
inline constexpr size_t kAgonesCallCount = 4;

// "/ready", "/health", "/shutdown", "/gameserver".
[[nodiscard]] std::string_view AgonesPath(AgonesCall call);

// Set by Agones in the game server container's environment; unset outside Agones.
inline constexpr const char* kEnvAgonesSdkHttpPort = "AGONES_SDK_HTTP_PORT";

struct AgonesSdkOptions {
  std::string host = "127.0.0.1";  // the sidecar is in the same pod
  uint16_t port = 0;
  std::chrono::milliseconds request_timeout{1000};  // connect + write + read, per attempt
  std::chrono::milliseconds first_backoff{100};     // Ready/Shutdown retries double from here
  std::chrono::milliseconds max_backoff{2000};
};

// Returns the value of an environment variable, or nullptr when it is unset.
using AgonesGetEnv = std::function<const char*(const char*)>;

// Acknowledged and failed attempts per call, since construction.
struct AgonesStats {
  std::array<uint64_t, kAgonesCallCount> ok{};
  std::array<uint64_t, kAgonesCallCount> failed{};
};

class AgonesSdk {
 public:
  // nullopt when AGONES_SDK_HTTP_PORT is unset or empty (not running under Agones); options
  // for 127.0.0.1 and that port otherwise. Throws std::invalid_argument naming the variable when
  // it is not an integer in 1..65535 (a start-up error: better than never becoming Ready).
  static std::optional<AgonesSdkOptions> FromEnvironment(const AgonesGetEnv& getenv);

  // Starts the SDK's thread; sends nothing yet. Throws when options.host is not an IP address.
  explicit AgonesSdk(AgonesSdkOptions options);
  // Stops the thread; anything unsent is dropped (call Shutdown first for a clean exit).
  ~AgonesSdk();
  AgonesSdk(const AgonesSdk&) = delete;
  AgonesSdk& operator=(const AgonesSdk&) = delete;

  // Queues Ready, retried until acknowledged. Returns at once.
  void Ready();
  // Sends Health every `interval` from now on (the first one after `interval`). Returns at once.
  void StartHealth(std::chrono::milliseconds interval);
  // Stops Health and further Ready retries, sends Shutdown (retried until `timeout`) and waits
  // for it. True when the sidecar acknowledged it. The SDK sends nothing afterwards.
  bool Shutdown(std::chrono::milliseconds timeout);
  // Where clients reach this game server: asks GET /gameserver (queued after Ready, so sent
  // once Ready is acknowledged) until its status has an address and a port named `port_name`,
  // and returns "address:port". Retried with back-off while the sidecar is unreachable or
  // fails, or the status is not filled in yet. Blocks the caller (start-up) for at most about
  // `timeout`. Throws std::runtime_error naming the problem: the timeout passed (with the last
  // answer's problem), the answer is malformed (at once: it will not get better), or Shutdown
  // was asked for meanwhile. One call at a time.
  std::string PublicAddress(const std::string& port_name, std::chrono::milliseconds timeout);

  [[nodiscard]] AgonesStats stats() const;

 private:
  struct Pending {
    AgonesCall call;
    std::chrono::steady_clock::time_point deadline;  // max(): retried until Shutdown
  };

  // All below run on the SDK's thread.
  void Enqueue(Pending p);
  void SendNext();
  void OnResult(Pending p, bool ok, const std::string& why);
  void RetryLater(Pending p);
  void ScheduleHealth();
  void BeginShutdown(std::chrono::steady_clock::time_point deadline,
                     std::function<void(bool)> on_done);
  void LogFailure(AgonesCall call, const std::string& why);
  // GET /gameserver (PublicAddress), on the SDK's thread.
  struct AddressWait {
    std::string port_name;
    std::chrono::steady_clock::time_point deadline;
    std::chrono::milliseconds backoff{0};
    std::string last_problem;
    std::function<void(GameServerAddress)> done;
  };
  void OnGameServer(bool ok, const std::string& why, const std::string& body);
  void FinishAddressWait(GameServerAddress result);

  const AgonesSdkOptions options_;
  const boost::asio::ip::tcp::endpoint endpoint_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  boost::asio::steady_timer health_timer_;
  boost::asio::steady_timer retry_timer_;
  std::chrono::milliseconds health_interval_{0};
  std::chrono::milliseconds backoff_{0};
  std::deque<Pending> queue_;  // front() is in flight when busy_
  bool busy_ = false;
  bool stopping_ = false;                    // Shutdown asked for: no more Ready retries or Health
  std::function<void(bool)> on_shutdown_;    // completes Shutdown's wait
  boost::asio::steady_timer address_timer_;  // the next GET /gameserver
  std::optional<AddressWait> address_wait_;  // a PublicAddress call waiting
  std::atomic<bool> shutdown_called_{false};
  uint64_t health_failures_in_a_row_ = 0;
  std::array<std::atomic<uint64_t>, kAgonesCallCount> ok_{};
  std::array<std::atomic<uint64_t>, kAgonesCallCount> failed_{};
  std::thread thread_;  // last: started once everything above exists
};

}  // namespace zs::agones
