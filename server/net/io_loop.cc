#include "net/io_loop.h"

#include <algorithm>
#include <thread>

namespace zs::net {

std::chrono::microseconds IoBatchDelayFor(std::chrono::microseconds configured,
                                          uint32_t tick_rate) {
  if (tick_rate == 0) return configured;
  return std::min(configured, std::chrono::microseconds(1'000'000 / (10 * int64_t{tick_rate})));
}

void RunIoLoop(boost::asio::io_context& io, std::chrono::microseconds batch) {
  if (batch.count() <= 0) {
    io.run();
    return;
  }
  // run_one blocks until a handler has run (the wake-up), then the batch gathers while this
  // thread sleeps, and poll handles all of it without blocking.
  while (io.run_one() > 0) {
    std::this_thread::sleep_for(batch);
    io.poll();
  }
}

}  // namespace zs::net
