// RunIoLoop: runs an io_context on the calling thread, handling what is ready in batches when
// the thread is busy.
//
// io_context::run() wakes its thread for every socket that becomes readable: with thousands of
// clients each sending a few inputs a second, the socket threads sleep and wake thousands of
// times a second, one input each, and a wake-up costs more than the input (docs/performance.md,
// "Socket threads that wake once per batch"). With a batch delay, the handler that woke a thread
// runs at once. Then, if less than the delay passed from the end of its last pass to the end of
// that handler (it is busy: wake-ups come faster than one a delay), it sleeps the delay and handles
// everything that became ready meanwhile in one pass: one wake-up for many clients. A thread
// that had been idle longer (a quiet server) goes straight back to waiting, as run() does, so
// it pays nothing for the batch.
//
// What a batch costs is latency: an input, a ping or a login that arrives while every socket
// thread gathers waits up to the delay longer, and so may a timer. An input waits for the next
// tick anyway, but one delayed past the tick's drain waits a whole tick more (about delay /
// tick interval of them: 4% at 2 ms and 20 Hz, on a busy server).
//
// Threads: any number of threads may run the same io_context this way, as with run().
#pragma once

#include <chrono>
#include <cstdint>

#include <boost/asio/io_context.hpp>

#include "host/metrics.h"

namespace zs::net {

// The longest batch delay a configuration may ask for (a tenth of a 20 Hz tick).
inline constexpr std::chrono::microseconds kMaxIoBatchDelay{5000};
// The delay used at `tick_rate`: at most a tenth of a tick, so a faster tick gets a shorter one.
[[nodiscard]] std::chrono::microseconds IoBatchDelayFor(std::chrono::microseconds configured,
                                                        uint32_t tick_rate);

// Whether a thread that woke after `idle` (since its last pass ended) is busy enough to gather a
// batch of `batch`.
[[nodiscard]] bool GathersBatch(std::chrono::nanoseconds idle, std::chrono::microseconds batch);

// Returns when `io` is stopped or runs out of work, as run() does. `batch` 0: run(). Counts its
// passes (a wake-up, or a handler that was ready at once) and of those the batches in `counters`
// (any number of threads may share them); with `batch` 0 it counts nothing.
void RunIoLoop(boost::asio::io_context& io, std::chrono::microseconds batch,
               host::IoLoopCounters& counters);

}  // namespace zs::net
