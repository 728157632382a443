// WorkerPool: a fixed set of threads that run TaskRunner::ForEach for the zone runner.
//
// ForEach(n, fn) hands out indices in small batches through an atomic counter to the pool's
// threads and to the calling thread (which is worker 0), and returns when every index is done.
// One ForEach at a time (the zone runner is its only caller); fn must not throw. Worker numbers
// are stable per thread, so callers can keep per-worker scratch. With threads = 1 nothing is
// started and everything runs on the caller, like InlineRunner.
// Threads: ForEach from one thread at a time; the destructor joins the threads.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

#include "core/task_runner.h"

namespace zs::host {

class WorkerPool final : public TaskRunner {
 public:
  explicit WorkerPool(size_t threads);
  ~WorkerPool() override;
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  [[nodiscard]] size_t workers() const override { return threads_.size() + 1; }
  void ForEach(size_t n, const Fn& fn) override;

 private:
  void Loop(size_t worker);
  void Drain(size_t worker);

  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable done_;
  uint64_t generation_ = 0;  // guarded by mu_: bumped per ForEach
  size_t busy_ = 0;          // guarded by mu_: workers still in the current ForEach
  bool stop_ = false;        // guarded by mu_
  const Fn* fn_ = nullptr;   // the current job (valid while busy_ > 0 or the caller drains)
  size_t n_ = 0;
  size_t batch_ = 1;
  std::atomic<size_t> next_{0};
};

}  // namespace zs::host
