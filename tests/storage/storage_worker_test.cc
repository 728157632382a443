// StorageWorker logic against a test-only store that fails or stalls on demand. (The faults of
// real databases are tested against real files and a real server: sqlite_faults_test.cc,
// postgres_store_test.cc.)
#include "storage/storage_worker.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <vector>

#include "storage/fake_store.h"
#include "storage/storage_test_util.h"

namespace zs::storage::test {
namespace {

constexpr WorkerOptions kFastRetry{.max_unsaved = 50000,
                                   .max_pending_loads = 10000,
                                   .retry_min_seconds = 0.02,
                                   .retry_max_seconds = 0.08};

class StorageWorkerTest : public ::testing::Test {
 protected:
  void Make(WorkerOptions options = kFastRetry) {
    worker_ = std::make_unique<StorageWorker>(std::make_unique<FakeStore>(state_), options);
  }
  // Loads synchronously (waits for `done`).
  LoadResult LoadNow(const std::string& name) {
    std::mutex mu;
    std::condition_variable cv;
    std::optional<LoadResult> result;
    EXPECT_TRUE(worker_->Load(name, [&](LoadResult r) {
      const std::lock_guard lock(mu);
      result = std::move(r);
      cv.notify_all();
    }));
    std::unique_lock lock(mu);
    EXPECT_TRUE(cv.wait_for(lock, std::chrono::seconds(5), [&] { return result.has_value(); }));
    return result.value_or(LoadResult{});
  }
  void SetState(const std::function<void(FakeState&)>& change) {
    const std::lock_guard lock(state_->mu);
    change(*state_);
    state_->cv.notify_all();
  }
  std::optional<CharacterRecord> Row(const std::string& name) {
    const std::lock_guard lock(state_->mu);
    const auto it = state_->rows.find(name);
    return it == state_->rows.end() ? std::nullopt : std::optional(it->second);
  }

  std::shared_ptr<FakeState> state_ = std::make_shared<FakeState>();
  std::unique_ptr<StorageWorker> worker_;
};

TEST_F(StorageWorkerTest, LoadsWhatTheStoreHasAndSaysWhenThereIsNothing) {
  state_->rows["Ann"] = MakeRecord("Ann", 1);
  Make();
  worker_->Start();
  const LoadResult found = LoadNow("Ann");
  EXPECT_EQ(found.outcome, LoadOutcome::kFound);
  EXPECT_EQ(found.record, MakeRecord("Ann", 1));
  EXPECT_EQ(LoadNow("Nobody").outcome, LoadOutcome::kNotFound);
  EXPECT_EQ(worker_->stats().loads_total, 2u);
}

TEST_F(StorageWorkerTest, FailedLoadIsUnavailableNeverNotFound) {
  state_->fail_loads = Fault::kBusy;
  Make();
  worker_->Start();
  EXPECT_EQ(LoadNow("Ann").outcome, LoadOutcome::kUnavailable);
  const StorageWorker::Stats s = worker_->stats();
  EXPECT_EQ(s.load_failures_total, 1u);
  EXPECT_EQ(s.errors_by_fault[static_cast<size_t>(Fault::kBusy)], 1u);
}

TEST_F(StorageWorkerTest, SavesEverythingUnsavedInOneTransaction) {
  Make();
  worker_->Save({MakeRecord("A", 1), MakeRecord("B", 2)});
  worker_->Save({MakeRecord("C", 3)});
  worker_->Save({MakeRecord("A", 4)});  // newest wins
  worker_->Start();
  ASSERT_TRUE(worker_->Flush(5));
  EXPECT_EQ(state_->batch_sizes, std::vector<size_t>{3});
  EXPECT_EQ(Row("A"), MakeRecord("A", 4));
  const StorageWorker::Stats s = worker_->stats();
  EXPECT_EQ(s.flushes_total, 1u);
  EXPECT_EQ(s.rows_saved_total, 3u);
  EXPECT_EQ(s.last_flush_rows, 3u);
  EXPECT_EQ(s.unsaved, 0u);
}

TEST_F(StorageWorkerTest, LoadPrefersTheUnsavedRecordToTheStore) {
  state_->rows["Ann"] = MakeRecord("Ann", 1);
  state_->fail_saves = Fault::kFull;
  Make();
  worker_->Start();
  worker_->Save({MakeRecord("Ann", 2)});
  ASSERT_TRUE(WaitFor([&] { return worker_->stats().errors_total > 0; }, 5));
  const LoadResult r = LoadNow("Ann");  // the failed flush kept the record in memory
  EXPECT_EQ(r.outcome, LoadOutcome::kFound);
  EXPECT_EQ(r.record, MakeRecord("Ann", 2));
}

// A failing store: errors counted by fault, the records stay, retries back off (doubling from
// retry_min to retry_max), and everything lands once the store heals.
TEST_F(StorageWorkerTest, FailingStoreKeepsRecordsAndRetriesWithBackOff) {
  state_->fail_saves = Fault::kReadOnly;
  Make();
  worker_->Start();
  worker_->Save({MakeRecord("A", 1), MakeRecord("B", 2)});
  ASSERT_TRUE(WaitFor([&] { return worker_->stats().errors_total >= 5; }, 5));
  StorageWorker::Stats s = worker_->stats();
  EXPECT_TRUE(s.failing);
  EXPECT_EQ(s.unsaved, 2u);
  EXPECT_EQ(s.errors_by_fault[static_cast<size_t>(Fault::kReadOnly)], s.errors_total);
  EXPECT_FALSE(worker_->Flush(0.01));
  {
    const std::lock_guard lock(state_->mu);
    const auto& t = state_->save_times;
    ASSERT_GE(t.size(), 5u);
    const auto gap = [&](size_t i) { return std::chrono::duration<double>(t[i] - t[i - 1]); };
    EXPECT_GE(gap(1).count(), 0.02 * 0.9);  // retry_min
    EXPECT_GE(gap(2).count(), 0.04 * 0.9);  // doubled
    EXPECT_GE(gap(4).count(), 0.08 * 0.9);  // capped at retry_max (the Flush above may cut one)
  }
  SetState([](FakeState& f) { f.fail_saves.reset(); });
  ASSERT_TRUE(worker_->Flush(5));
  s = worker_->stats();
  EXPECT_FALSE(s.failing);
  EXPECT_EQ(s.unsaved, 0u);
  EXPECT_EQ(Row("B"), MakeRecord("B", 2));
}

TEST_F(StorageWorkerTest, FlushTimesOutWhileTheStoreStalls) {
  state_->hold_saves = true;
  Make();
  worker_->Start();
  worker_->Save({MakeRecord("A", 1)});
  ASSERT_TRUE(WaitFor([&] { return worker_->flushing(); }, 5));
  EXPECT_TRUE(worker_->stats().flushing);
  const auto start = Clock::now();
  EXPECT_FALSE(worker_->Flush(0.05));
  EXPECT_GE(std::chrono::duration<double>(Clock::now() - start).count(), 0.045);
  SetState([](FakeState& f) { f.hold_saves = false; });
  EXPECT_TRUE(worker_->Flush(5));
}

// The phase is odd while a flush writes and moves on by two per flush, so the tick can tell
// whether a flush overlapped it; StopWithin gives up on a store that does not return.
TEST_F(StorageWorkerTest, FlushPhaseAndStopWithinAStalledStore) {
  state_->hold_saves = true;
  Make();
  worker_->Start();
  const uint64_t before = worker_->flush_phase();
  EXPECT_EQ(before % 2, 0u);
  worker_->Save({MakeRecord("A", 1)});
  ASSERT_TRUE(WaitFor([&] { return worker_->flushing(); }, 5));
  EXPECT_EQ(worker_->flush_phase(), before + 1);
  const auto start = Clock::now();
  EXPECT_FALSE(worker_->StopWithin(0.05)) << "the store still holds the worker";
  EXPECT_GE(std::chrono::duration<double>(Clock::now() - start).count(), 0.045);
  SetState([](FakeState& f) { f.hold_saves = false; });
  EXPECT_TRUE(worker_->StopWithin(5));
  EXPECT_EQ(worker_->flush_phase(), before + 2);
  EXPECT_EQ(Row("A"), MakeRecord("A", 1)) << "the flush in progress was committed";
}

// A record saved again while an older copy is being flushed is flushed again, not dropped when
// the older flush commits.
TEST_F(StorageWorkerTest, SaveDuringAFlushIsNotLost) {
  state_->hold_saves = true;
  Make();
  worker_->Start();
  worker_->Save({MakeRecord("A", 1), MakeRecord("B", 1)});
  ASSERT_TRUE(WaitFor([&] { return worker_->flushing(); }, 5));
  worker_->Save({MakeRecord("A", 2)});
  EXPECT_EQ(worker_->stats().unsaved, 2u);  // the first flush still holds both
  SetState([](FakeState& f) { f.hold_saves = false; });
  ASSERT_TRUE(worker_->Flush(5));
  EXPECT_EQ(Row("A"), MakeRecord("A", 2));
  EXPECT_EQ(Row("B"), MakeRecord("B", 1));
  EXPECT_EQ(state_->batch_sizes, (std::vector<size_t>{2, 1}));
}

TEST_F(StorageWorkerTest, RefusesLoadsAtMaxUnsaved) {
  state_->fail_saves = Fault::kMissing;
  WorkerOptions options = kFastRetry;
  options.max_unsaved = 3;
  Make(options);
  worker_->Start();
  worker_->Save({MakeRecord("A", 1), MakeRecord("B", 1)});
  EXPECT_TRUE(worker_->Load("x", [](const LoadResult&) {}));
  worker_->Save({MakeRecord("C", 1)});
  bool called = false;
  EXPECT_FALSE(worker_->Load("y", [&](const LoadResult&) { called = true; }));
  worker_->Save({MakeRecord("D", 1)});  // Save never refuses
  EXPECT_EQ(worker_->stats().unsaved, 4u);
  EXPECT_EQ(worker_->stats().loads_refused_total, 1u);
  SetState([](FakeState& f) { f.fail_saves.reset(); });
  ASSERT_TRUE(worker_->Flush(5));
  EXPECT_EQ(LoadNow("D").outcome, LoadOutcome::kFound);  // accepted again
  EXPECT_FALSE(called);
}

TEST_F(StorageWorkerTest, RefusesLoadsWhenTheQueueIsFull) {
  WorkerOptions options = kFastRetry;
  options.max_pending_loads = 2;
  Make(options);  // not started: the queue only fills
  int unavailable = 0;
  const auto count = [&](const LoadResult& r) {
    unavailable += r.outcome == LoadOutcome::kUnavailable;
  };
  EXPECT_TRUE(worker_->Load("a", count));
  EXPECT_TRUE(worker_->Load("b", count));
  EXPECT_FALSE(worker_->Load("c", count));
  EXPECT_EQ(worker_->stats().pending_loads, 2u);
  worker_->Stop();  // queued loads are answered, not forgotten
  EXPECT_EQ(unavailable, 2);
}

TEST_F(StorageWorkerTest, StopWaitsForTheRunningTransactionAndStartsNoOther) {
  state_->hold_saves = true;
  Make();
  worker_->Start();
  worker_->Save({MakeRecord("A", 1)});
  ASSERT_TRUE(WaitFor([&] { return worker_->flushing(); }, 5));
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    SetState([](FakeState& f) { f.hold_saves = false; });
  });
  worker_->Stop();  // waits for the running transaction, starts no other
  release.join();
  EXPECT_EQ(state_->batch_sizes.size(), 1u);
}

// What the default logger says while the test runs (restored afterwards).
class LogCapture {
 public:
  LogCapture() : previous_(spdlog::default_logger()) {
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("capture", sink_));
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;
  std::vector<std::string> lines() const { return sink_->last_formatted(); }

 private:
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_ =
      std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(1000);
  std::shared_ptr<spdlog::logger> previous_;
};

// Loud once (what, where, the fault, how many kept, when the retry is), then quiet while
// failing (at most a line per 10 s), and one line when it recovers.
TEST_F(StorageWorkerTest, LogsTheFirstFailureLoudlyThenQuietlyThenTheRecovery) {
  const LogCapture capture;
  state_->fail_saves = Fault::kFull;
  Make();
  worker_->Start();
  worker_->Save({MakeRecord("A", 1), MakeRecord("B", 2)});
  ASSERT_TRUE(WaitFor([&] { return worker_->stats().errors_total >= 6; }, 5));
  SetState([](FakeState& f) { f.fail_saves.reset(); });
  ASSERT_TRUE(worker_->Flush(5));
  const std::vector<std::string> lines = capture.lines();
  ASSERT_EQ(lines.size(), 2u) << ::testing::PrintToString(lines);
  EXPECT_NE(lines[0].find("saving 2 characters to fake store failed (full): fake save; keeping "
                          "2 characters in memory, retrying in 0.02 s"),
            std::string::npos)
      << lines[0];
  EXPECT_NE(lines[1].find("recovered after"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("2 characters saved"), std::string::npos) << lines[1];
}

}  // namespace
}  // namespace zs::storage::test
