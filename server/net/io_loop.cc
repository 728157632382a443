#include "net/io_loop.h"

#include <algorithm>
#include <thread>

namespace zs::net {

std::chrono::microseconds IoBatchDelayFor(std::chrono::microseconds configured,
                                          uint32_t tick_rate) {
  if (tick_rate == 0) return configured;
  return std::min(configured, std::chrono::microseconds(1'000'000 / (10 * int64_t{tick_rate})));
}

bool GathersBatch(std::chrono::nanoseconds idle, std::chrono::microseconds batch) {
  return batch.count() > 0 && idle < batch;
}

void RunIoLoop(boost::asio::io_context& io, std::chrono::microseconds batch,
               host::IoLoopCounters& counters) {
  if (batch.count() <= 0) {
    io.run();
    return;
  }
  // run_one blocks until a handler has run (the wake-up); a busy thread then lets the batch
  // gather while it sleeps, and poll handles all of it without blocking.
  using Clock = std::chrono::steady_clock;
  Clock::time_point idle_since = Clock::now();
  while (io.run_one() > 0) {
    // From the end of the last pass to the end of the handler that woke the thread.
    if (GathersBatch(Clock::now() - idle_since, batch)) {
      counters.batches.Add();
      std::this_thread::sleep_for(batch);
    }
    io.poll();
    idle_since = Clock::now();
    counters.wakeups.Add();  // once the pass has ended
  }
}

}  // namespace zs::net
