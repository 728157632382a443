// Shared by the cluster tests: waiting helpers for things that happen on libnats' threads.
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace zs::test {

// Polls `done` every 20 ms until it is true (true) or `timeout` passes (false).
inline bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

inline double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace zs::test
