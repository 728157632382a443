// The net layer's clocks: monotonic seconds (steady_clock) for timeouts, rate limits and log
// windows; wall-clock milliseconds for clients. The simulation never reads a clock.
#pragma once

#include <chrono>
#include <cstdint>

namespace zs::host {

inline double MonotonicSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Wall-clock milliseconds since the Unix epoch (told to clients for clock sync).
inline uint64_t WallClockMs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

// Wall-clock microseconds since the Unix epoch (stamped on ghost batches: migration latency).
inline uint64_t WallClockUs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace zs::host
