// StorageWorker: the one thread that talks to the character store, so that the tick never
// waits on a disk or a database server.
//
// What it does: Load(name) queues a lookup, answered on the worker thread; Save(records) merges
// records into the unsaved set (by name, the later Save wins) and returns at once; the worker
// writes everything unsaved in ONE transaction per flush, as soon as it can. Loads go before
// flushes (a login waits on them), at most kLoadsPerTurn between two flushes.
//
// Ownership and threads: the worker owns the store and is its only caller once started. Every
// public method is thread-safe. `done` callbacks run on the worker thread (or, for loads still
// queued at Stop, on the thread calling Stop, with kUnavailable); they must not block.
//
// Invariants:
//   - a record stays in the unsaved set until a transaction holding it (or a newer record of the
//     same name) commits: a Load during a flush still sees it, and a failed flush loses nothing;
//   - each Save of a record gets a new generation; a commit removes only the generations it
//     wrote, so a record saved again while a flush is running is flushed again;
//   - memory is bounded by refusing Loads (new logins) while unsaved >= max_unsaved; Save never
//     refuses (the characters online are bounded by the connection limit).
//
// Failures: a failed flush counts an error by Fault, keeps everything in memory, and is retried
// with back-off (retry_min doubling up to retry_max). The log says so once, loudly (what, which
// file or server, the fault, how many characters are kept, when the retry is), then at most one
// line per kFailureLogInterval while failing, and one "recovered" line with the counts.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "storage/character_record.h"
#include "storage/character_store.h"

namespace zs::storage {

struct WorkerOptions {
  size_t max_unsaved = 50000;        // characters waiting to be saved before logins are refused
  size_t max_pending_loads = 10000;  // queued loads before logins are refused
  double retry_min_seconds = 0.2;    // back-off after a failed save: doubles up to retry_max
  double retry_max_seconds = 5;
};

enum class LoadOutcome : uint8_t { kFound, kNotFound, kUnavailable };
struct LoadResult {
  LoadOutcome outcome = LoadOutcome::kUnavailable;
  CharacterRecord record;  // valid when kFound
};

class StorageWorker {
 public:
  StorageWorker(std::unique_ptr<CharacterStore> store, WorkerOptions options);
  ~StorageWorker();  // Stop()
  StorageWorker(const StorageWorker&) = delete;
  StorageWorker& operator=(const StorageWorker&) = delete;

  void Start();
  // Joins the worker. Does NOT flush (call Flush first). Loads still queued are answered
  // kUnavailable on the calling thread.
  void Stop();
  // Stop, but waits at most `timeout_seconds` for a store call in progress. false: the thread is
  // still inside the store (a database that stopped answering); it is left running, and the
  // process must end without destroying this worker (std::_Exit), or it would wait for it.
  // After false only StopWithin, Stop (which waits) or std::_Exit; Start does nothing.
  [[nodiscard]] bool StopWithin(double timeout_seconds);

  // Queues a load; `done` runs on the worker thread. A record still unsaved in memory is the
  // answer (it is newer than the database). false (and `done` never called): refused because
  // the load queue is full or max_unsaved is reached -> the caller says "storage unavailable".
  bool Load(std::string name, std::function<void(LoadResult)> done);
  // Never refuses, never blocks on I/O: merged by name into the unsaved set (newest wins) and
  // flushed as soon as possible, everything unsaved in one transaction per flush. On a failed
  // flush everything stays in memory and is retried with back-off.
  void Save(std::vector<CharacterRecord> records);
  // Blocks until everything saved before the call is committed (true) or timeout (false).
  // Cuts a running back-off short: the worker retries at once. A worker not started (or
  // stopped) commits nothing: the call times out.
  bool Flush(double timeout_seconds);

  struct Stats {
    uint64_t errors_total = 0;   // failed store operations (saves and loads)
    uint64_t flushes_total = 0;  // committed flushes
    uint64_t rows_saved_total = 0;
    size_t unsaved = 0;  // characters in memory waiting for a commit
    size_t pending_loads = 0;
    double last_flush_seconds = 0;  // storage-thread time of the last committed flush
    size_t last_flush_rows = 0;
    uint64_t loads_total = 0;          // loads answered kFound or kNotFound
    uint64_t load_failures_total = 0;  // loads answered kUnavailable (store error)
    bool flushing = false;             // a transaction is running now
    std::array<uint64_t, kFaultCount> errors_by_fault{};  // indexed by Fault
    uint64_t loads_refused_total = 0;                     // Load calls that returned false
    bool failing = false;  // the last flush failed; retrying with back-off
  };
  Stats stats() const;  // a short lock
  // +1 when a flush begins and +1 when it ends (odd while one writes); no lock. Read before and
  // after some work, it tells whether a flush overlapped that work (odd before, or changed).
  uint64_t flush_phase() const { return flush_phase_.load(std::memory_order_relaxed); }
  bool flushing() const { return flush_phase() % 2 == 1; }

 private:
  using Clock = std::chrono::steady_clock;
  struct PendingLoad {
    std::string name;
    std::function<void(LoadResult)> done;
  };
  struct Unsaved {
    CharacterRecord record;
    uint64_t generation = 0;
  };

  void Run();
  void ServeLoad(std::unique_lock<std::mutex>& lock, PendingLoad load);  // REQUIRES: locked
  void FlushOnce(std::unique_lock<std::mutex>& lock);                    // REQUIRES: locked
  void OnFlushFailed(const StoreError& error, size_t rows);              // REQUIRES: locked
  void OnFlushCommitted(size_t rows, double seconds);                    // REQUIRES: locked
  void CountError(Fault fault);                                          // REQUIRES: locked

  const std::unique_ptr<CharacterStore> store_;
  const WorkerOptions options_;
  const std::string describe_;  // store_->Describe(), taken before the thread starts

  mutable std::mutex mu_;
  std::condition_variable wake_;       // the worker waits for work
  std::condition_variable committed_;  // Flush waits for commits
  std::unordered_map<std::string, Unsaved> unsaved_;
  std::deque<PendingLoad> loads_;
  uint64_t last_generation_ = 0;       // of the newest record saved
  uint64_t committed_generation_ = 0;  // every generation <= this is committed
  bool stop_ = false;
  bool exited_ = false;                // Run() returned
  std::condition_variable exited_cv_;  // StopWithin waits for Run() to return
  Clock::time_point retry_at_{};       // no flush before (back-off)
  double retry_delay_ = 0;             // seconds; 0 while not failing
  uint64_t failed_attempts_ = 0;       // since the last commit
  Clock::time_point failing_since_{};
  Clock::time_point last_failure_log_{};
  Clock::time_point last_load_failure_log_{};
  Stats stats_;  // counters; the sizes are filled in by stats()
  std::atomic<uint64_t> flush_phase_{0};
  std::thread thread_;
};

}  // namespace zs::storage
