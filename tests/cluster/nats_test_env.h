// Shared by the cluster tests: a bus that gives up quickly, and waiting helpers for things that
// happen on libnats' threads.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "cluster/nats_bus.h"
#include "support/nats_server.h"

namespace zs::test {

// How long a test waits for a bus to reconnect after the server comes back.
inline constexpr std::chrono::milliseconds kReconnectTimeout{5000};

// Polls `done` every 20 ms until it is true (true) or `timeout` passes (false).
inline bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// A bus to `server` whose timeouts suit a test (1 s; reconnects every 100 ms).
inline cluster::BusOptions FastBusOptions(const NatsServer& server, const std::string& name) {
  return cluster::BusOptions{.url = server.url(),
                             .name = name,
                             .connect_timeout_ms = 1000,
                             .reconnect_wait_ms = 100,
                             .jetstream_timeout_ms = 1000,
                             .drain_timeout_ms = 1000};
}

inline double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace zs::test
