// Inbox<T>: a queue many threads push into and one thread takes from in batches — how work
// reaches a zone runner's thread (requests from the sessions, finished loads from the storage
// worker, whispers from other runners, hand-off answers from the cluster).
//
// Push appends under a mutex; Take swaps the whole batch out at once (one lock per tick, not
// one per item) into a vector the taker owns and reuses, so a steady state allocates nothing.
// A bounded inbox refuses a Push beyond its capacity (the caller counts it); PushAlways goes
// past the cap for what must never be lost (a logout). After a spike, Take gives the spare
// capacity back rather than keeping the spike's memory forever.
// Threads: Push, PushAlways, empty from any thread; Take from the owning thread only.
#pragma once

#include <cstddef>
#include <limits>
#include <mutex>
#include <utility>
#include <vector>

namespace zs::host {

template <typename T>
class Inbox {
 public:
  explicit Inbox(size_t capacity = std::numeric_limits<size_t>::max()) : capacity_(capacity) {}
  Inbox(const Inbox&) = delete;
  Inbox& operator=(const Inbox&) = delete;

  // False (and `item` is not queued) when the inbox holds `capacity` items already.
  [[nodiscard]] bool Push(T item) {
    std::lock_guard lock(mu_);
    if (queued_.size() >= capacity_) return false;
    queued_.push_back(std::move(item));
    return true;
  }
  void PushAlways(T item) {
    std::lock_guard lock(mu_);
    queued_.push_back(std::move(item));
  }
  // Everything pushed so far, oldest first; valid until the next Take. Owner's thread only.
  [[nodiscard]] std::vector<T>& Take() {
    taken_.clear();
    if (taken_.capacity() > kKeepCapacity) std::vector<T>().swap(taken_);
    std::lock_guard lock(mu_);
    taken_.swap(queued_);
    return taken_;
  }
  [[nodiscard]] bool empty() const {
    std::lock_guard lock(mu_);
    return queued_.empty();
  }

 private:
  static constexpr size_t kKeepCapacity = 4096;  // items; more is a spike's, given back

  const size_t capacity_;
  mutable std::mutex mu_;
  std::vector<T> queued_;  // guarded by mu_
  std::vector<T> taken_;   // the owner's
};

}  // namespace zs::host
