// ThreadOwner (host/thread_owner.h): the owner's thread and any thread while none owns it pass;
// another thread while it is owned is stopped on the spot, naming the call.
#include "host/thread_owner.h"

#include <gtest/gtest.h>

#include <thread>

namespace zs::host {
namespace {

TEST(ThreadOwner, TheOwnerAndAnyoneWhileNobodyOwnsItPass) {
  ThreadOwner loop;
  loop.Check("before the loop");  // nobody owns it: a test stepping a runner by hand
  std::thread([&] { loop.Check("another thread, before the loop"); }).join();
  loop.Claim();
  loop.Check("the loop's own thread");
  loop.Release();
  std::thread([&] { loop.Check("another thread, after the loop"); }).join();
}

TEST(ThreadOwnerDeathTest, AnotherThreadWhileItIsOwnedIsStopped) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        ThreadOwner loop;
        std::thread([&] { loop.Claim(); }).join();  // owned by a thread that is not this one
        loop.Check("ZoneRunner::Step");
      },
      "thread check: ZoneRunner::Step called off its owner's thread");
}

}  // namespace
}  // namespace zs::host
