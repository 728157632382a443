// The descriptor budget: max_connections never exceeds what the fd limit leaves after the
// reserve for the admin port and the server's own descriptors.
#include "app/fd_budget.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

namespace zs::app {
namespace {

TEST(FdBudget, ReservesTheAdminCapTheOpenFilesAndAMargin) {
  const FdBudget b = PlanFdBudget(1024, 12, 16);
  EXPECT_EQ(b.reserved, 12u + 16u + kFdMargin);
  EXPECT_EQ(b.max_connections, 1024u - b.reserved);
}

TEST(FdBudget, ATinyLimitStillAllowsOneConnection) {
  EXPECT_EQ(PlanFdBudget(20, 12, 16).max_connections, 1u);
}

TEST(FdBudget, RaisingTheLimitReachesTheHardLimit) {
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &before), 0);
  const FdBudget b = RaiseFdLimit(16);
  rlimit after{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &after), 0);
  EXPECT_EQ(after.rlim_cur, before.rlim_max == RLIM_INFINITY ? kUnlimitedFds : before.rlim_max);
  EXPECT_GT(b.max_connections, 0u);
  EXPECT_LT(b.max_connections + b.reserved, b.limit + 1);
}

}  // namespace
}  // namespace zs::app
