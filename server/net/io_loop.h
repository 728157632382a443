// RunIoLoop: runs an io_context on the calling thread, handling what is ready in batches.
//
// io_context::run() wakes its thread for every socket that becomes readable: with thousands of
// clients each sending a few inputs a second, the socket threads sleep and wake thousands of
// times a second, one input each, and a wake-up costs more than the input (docs/performance.md,
// "Socket threads that wake once per batch"). With a batch delay, a thread that wakes waits that
// long, then handles everything that became ready meanwhile in one pass: one wake-up for many
// clients. What it costs is latency: an input, a ping or a login waits up to the delay longer
// (an input waits for the next tick anyway: 50 ms at 20 Hz); timers fire up to it late.
//
// Threads: any number of threads may run the same io_context this way, as with run().
#pragma once

#include <chrono>

#include <boost/asio/io_context.hpp>

namespace zs::net {

// The longest batch delay a configuration may ask for (a tenth of a 20 Hz tick).
inline constexpr std::chrono::microseconds kMaxIoBatchDelay{5000};

// Returns when `io` is stopped or runs out of work, as run() does. `batch` 0: run().
void RunIoLoop(boost::asio::io_context& io, std::chrono::microseconds batch);

}  // namespace zs::net
