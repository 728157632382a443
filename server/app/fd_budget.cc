#include "app/fd_budget.h"

#include <sys/resource.h>

#include <filesystem>
#include <system_error>

namespace zs::app {

namespace {

// Descriptors open in this process now (/proc/self/fd; the directory's own fd included).
size_t OpenDescriptors() {
  std::error_code ec;
  size_t n = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end;
       it.increment(ec)) {
    ++n;
  }
  return ec ? 16 : n;  // no /proc: assume a typical start-up set
}

}  // namespace

FdBudget PlanFdBudget(uint64_t limit, size_t open_now, size_t admin_connections) {
  FdBudget b;
  b.soft_before = limit;
  b.limit = limit;
  b.reserved = open_now + admin_connections + kFdMargin;
  b.max_connections = limit > b.reserved + 1 ? static_cast<size_t>(limit - b.reserved) : 1;
  return b;
}

FdBudget RaiseFdLimit(size_t admin_connections) {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
    return PlanFdBudget(1024, OpenDescriptors(), admin_connections);
  }
  const rlim_t before = rl.rlim_cur;
  // RLIM_INFINITY is not a real table size: the kernel refuses more than fs.nr_open.
  const rlim_t target = rl.rlim_max == RLIM_INFINITY ? kUnlimitedFds : rl.rlim_max;
  if (rl.rlim_cur < target) {
    rlimit raised = rl;
    raised.rlim_cur = target;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) rl = raised;
  }
  const uint64_t limit = rl.rlim_cur == RLIM_INFINITY ? kUnlimitedFds : rl.rlim_cur;
  FdBudget b = PlanFdBudget(limit, OpenDescriptors(), admin_connections);
  b.soft_before = before == RLIM_INFINITY ? limit : before;
  return b;
}

}  // namespace zs::app
