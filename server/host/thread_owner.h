// ThreadOwner: a check of a thread rule written in a header ("loop thread only"), as muduo's
// EventLoop::assertInLoopThread. The owner claims it as its loop starts and releases
// it as the loop ends; a method bound to that thread asserts it. While no thread owns it (before
// Start, after Stop, a test stepping the loop by hand) any thread may call.
//
// The check is on in every build, as muduo's is: an atomic load and a compare, once per call of
// a method that runs once per tick (or per handler). A breach prints what was called and
// aborts, so a test fails where the rule was broken rather than somewhere later, and a server
// never goes on with a loop's state touched from two threads.
// Threads: Claim and Release on the owning thread; Check on any.
#pragma once

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace zs::host {

class ThreadOwner {
 public:
  void Claim() noexcept { owner_.store(std::this_thread::get_id(), std::memory_order_release); }
  void Release() noexcept { owner_.store(std::thread::id{}, std::memory_order_release); }

  // REQUIRES: called on the owning thread, or while none owns it. `what`: the caller, named in
  // the report.
  void Check(const char* what) const noexcept {
    const std::thread::id owner = owner_.load(std::memory_order_acquire);
    if (owner != std::thread::id{} && owner != std::this_thread::get_id()) {
      std::fprintf(stderr, "thread check: %s called off its owner's thread\n", what);
      std::abort();
    }
  }

 private:
  std::atomic<std::thread::id> owner_{};
};

}  // namespace zs::host
