// RunIoLoop: with and without a batch delay it runs every handler and timer, on any number of
// threads, and returns as run() does: when the io_context is stopped or runs out of work; with
// one, work that comes after a busy thread's wake-up waits for the batch, and a quiet thread's
// wake-up gathers nothing.
#include "net/io_loop.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

namespace zs::net {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

// Waits until `done` holds or a deadline generous for a loaded machine passes.
template <typename Pred>
bool WaitFor(Pred done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(milliseconds(1));
  }
  return true;
}

TEST(IoLoop, TwoThreadsRunEveryHandlerAndTimerAndReturnWhenStopped) {
  for (const microseconds batch : {microseconds(0), microseconds(2000)}) {
    SCOPED_TRACE("batch " + std::to_string(batch.count()) + " us");
    boost::asio::io_context io(2);
    auto work = boost::asio::make_work_guard(io);
    std::vector<std::thread> threads;
    host::IoLoopCounters counters;
    for (int i = 0; i < 2; ++i) {
      threads.emplace_back([&io, batch, &counters] { RunIoLoop(io, batch, counters); });
    }
    std::atomic<int> ran{0};
    std::atomic<bool> fired{false};
    boost::asio::steady_timer timer(io, milliseconds(5));
    timer.async_wait([&fired](const boost::system::error_code& ec) { fired = !ec; });
    // Bursts from another thread, as sockets become ready while the loop sleeps.
    for (int burst = 0; burst < 10; ++burst) {
      for (int i = 0; i < 100; ++i) boost::asio::post(io, [&ran] { ++ran; });
      std::this_thread::sleep_for(microseconds(500));
    }
    EXPECT_TRUE(WaitFor([&] { return ran == 1000 && fired; })) << ran << " ran";
    io.stop();
    for (auto& t : threads) t.join();  // a loop that did not return would hang here
  }
}

// The batch itself: after the handler that woke a busy thread (idle for less than the delay:
// here the first handler is queued before the loop starts, and the delay is long enough that
// only a stall of 200 ms between the loop's start and that handler would make it quiet), the thread
// sleeps the delay before it takes anything else, so handlers posted meanwhile all run at least
// the delay after the first (sleep_for never sleeps less; a loaded machine only makes it later).
// io_context::run() would run them at once.
TEST(IoLoop, WorkPostedAfterABusyWakeUpWaitsForTheBatch) {
  const milliseconds kBatch{200};
  boost::asio::io_context io(1);
  auto work = boost::asio::make_work_guard(io);
  using Clock = std::chrono::steady_clock;
  std::atomic<int64_t> first_ns{0};
  boost::asio::post(io, [&] { first_ns = Clock::now().time_since_epoch().count(); });
  host::IoLoopCounters counters;
  std::thread loop([&io, kBatch, &counters] { RunIoLoop(io, kBatch, counters); });
  ASSERT_TRUE(WaitFor([&] { return first_ns != 0; }));
  std::vector<std::atomic<int64_t>> later(5);
  for (auto& at : later) {
    boost::asio::post(io, [&at] { at = Clock::now().time_since_epoch().count(); });
  }
  ASSERT_TRUE(WaitFor([&] { return later.back() != 0; }));
  for (const auto& at : later) {
    EXPECT_GE(at - first_ns, std::chrono::nanoseconds(kBatch).count());
  }
  EXPECT_GE(counters.batches.value(), 1u);
  io.stop();
  loop.join();
}

// A thread that has waited longer than the delay (a quiet server) handles what woke it and goes
// back to waiting: no batch, so no added latency. The test's sleep only makes the wait longer
// than the delay; a loaded machine makes it longer still.
TEST(IoLoop, AQuietWakeUpGathersNoBatch) {
  const milliseconds kBatch{2};
  boost::asio::io_context io(1);
  auto work = boost::asio::make_work_guard(io);
  host::IoLoopCounters counters;
  std::thread loop([&io, kBatch, &counters] { RunIoLoop(io, kBatch, counters); });
  std::atomic<int> ran{0};
  boost::asio::post(io, [&ran] { ++ran; });
  ASSERT_TRUE(WaitFor([&] { return counters.wakeups.value() == 1; }));
  const uint64_t batches = counters.batches.value();  // the first may have come soon after start
  for (int i = 0; i < 3; ++i) {
    std::this_thread::sleep_for(milliseconds(200));
    boost::asio::post(io, [&ran] { ++ran; });
    ASSERT_TRUE(WaitFor([&] { return counters.wakeups.value() == 2u + i; }));
  }
  EXPECT_EQ(ran, 4);
  EXPECT_EQ(counters.batches.value(), batches) << "quiet wake-ups gather nothing";
  io.stop();
  loop.join();
}

TEST(IoLoop, BusyMeansWokenSoonerThanTheDelay) {
  EXPECT_TRUE(GathersBatch(microseconds(1999), microseconds(2000)));
  EXPECT_FALSE(GathersBatch(microseconds(2000), microseconds(2000)));
  EXPECT_FALSE(GathersBatch(std::chrono::seconds(1), microseconds(2000)));
  EXPECT_FALSE(GathersBatch(std::chrono::nanoseconds(0), microseconds(0))) << "no batch: run()";
}

TEST(IoLoop, AFasterTickGetsAShorterBatch) {
  EXPECT_EQ(IoBatchDelayFor(microseconds(2000), 20), microseconds(2000));
  EXPECT_EQ(IoBatchDelayFor(microseconds(5000), 20), microseconds(5000));
  EXPECT_EQ(IoBatchDelayFor(microseconds(2000), 60), microseconds(1666));
  EXPECT_EQ(IoBatchDelayFor(microseconds(2000), 120), microseconds(833));
  EXPECT_EQ(IoBatchDelayFor(microseconds(0), 120), microseconds(0));
}

TEST(IoLoop, ReturnsWhenOutOfWork) {
  boost::asio::io_context io;
  int chain = 0;
  std::function<void()> next = [&] {
    if (++chain < 10) boost::asio::post(io, next);  // each handler queues the next one
  };
  boost::asio::post(io, next);
  host::IoLoopCounters counters;
  RunIoLoop(io, microseconds(1000), counters);
  EXPECT_EQ(chain, 10);
}

}  // namespace
}  // namespace zs::net
