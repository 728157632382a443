#include "host/worker_pool.h"

#include <algorithm>

namespace zs::host {

WorkerPool::WorkerPool(size_t threads) {
  for (size_t w = 1; w < std::max<size_t>(1, threads); ++w) {
    threads_.emplace_back([this, w] { Loop(w); });
  }
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void WorkerPool::Drain(size_t worker) {
  for (;;) {
    const size_t begin = next_.fetch_add(batch_, std::memory_order_relaxed);
    if (begin >= n_) return;
    const size_t end = std::min(n_, begin + batch_);
    for (size_t i = begin; i < end; ++i) (*fn_)(i, worker);
  }
}

void WorkerPool::ForEach(size_t n, const Fn& fn) {
  if (n == 0) return;
  if (threads_.empty() || n == 1) {
    for (size_t i = 0; i < n; ++i) fn(i, 0);
    return;
  }
  {
    std::lock_guard lock(mu_);
    fn_ = &fn;
    n_ = n;
    // Small batches balance the load; a few per worker keep the counter cold.
    batch_ = std::max<size_t>(1, n / (workers() * 8));
    next_.store(0, std::memory_order_relaxed);
    busy_ = threads_.size();
    ++generation_;
  }
  wake_.notify_all();
  Drain(0);
  std::unique_lock lock(mu_);
  done_.wait(lock, [this] { return busy_ == 0; });
  fn_ = nullptr;
}

void WorkerPool::Loop(size_t worker) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    Drain(worker);
    {
      std::lock_guard lock(mu_);
      if (--busy_ == 0) done_.notify_one();
    }
  }
}

}  // namespace zs::host
