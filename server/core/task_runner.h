// TaskRunner: how the pure simulation asks for work to be spread over threads without owning
// any. The zone calls ForEach(n, fn); the runner calls fn(index, worker) once for every index in
// [0, n) and returns when all calls have returned. `worker` is in [0, workers()) and no two calls
// running at the same time share one, so a caller may keep one scratch buffer per worker.
//
// Contract for callers (what makes results independent of the thread count): fn(i, w) writes only
// to data owned by index i or by worker w, and what it writes for index i does not depend on w or
// on the order of calls. InlineRunner (here) runs everything on the calling thread; a real pool
// lives in the network layer (host/worker_pool.h), so `core` and `zone` stay free of threads.
#pragma once

#include <cstddef>
#include <functional>

namespace zs {

class TaskRunner {
 public:
  using Fn = std::function<void(size_t index, size_t worker)>;
  virtual ~TaskRunner() = default;
  [[nodiscard]] virtual size_t workers() const = 0;
  virtual void ForEach(size_t n, const Fn& fn) = 0;
};

// Runs every index in order on the calling thread, as worker 0.
class InlineRunner final : public TaskRunner {
 public:
  [[nodiscard]] size_t workers() const override { return 1; }
  void ForEach(size_t n, const Fn& fn) override {
    for (size_t i = 0; i < n; ++i) fn(i, 0);
  }
};

}  // namespace zs
