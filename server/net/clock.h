// The net layer's clock: monotonic seconds (steady_clock), for timeouts, rate limits and
// log windows. The simulation never reads it; the tick loop passes time in.
#pragma once

#include <chrono>

namespace zs::net {

inline double MonotonicSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace zs::net
