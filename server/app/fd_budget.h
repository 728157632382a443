// File descriptors: how many client connections the process can really hold.
//
// With RLIMIT_NOFILE at 1024 and max_connections at 10,000, the fds ran out first: /healthz
// and new logins hung until connections closed. At start the server raises the soft limit to
// the hard limit, keeps a reserve (what is open now, the admin port's connection cap, and a
// margin for refused connections in flight and the accept that refuses them) and clamps
// max_connections to the rest, with a warning naming both numbers.
#pragma once

#include <cstddef>
#include <cstdint>

namespace zs::app {

// Descriptors kept back from client connections beyond what is open at start: accepts that are
// being refused, resolver and log files, the timers and eventfds of later threads.
inline constexpr size_t kFdMargin = 32;
// What an unlimited hard limit is taken as (the kernel's default fs.nr_open).
inline constexpr uint64_t kUnlimitedFds = uint64_t{1} << 20;

struct FdBudget {
  uint64_t soft_before = 0;    // RLIMIT_NOFILE soft limit found at start
  uint64_t limit = 0;          // the soft limit after raising it (to the hard limit)
  size_t reserved = 0;         // kept for everything but game connections
  size_t max_connections = 0;  // what fits: limit - reserved (at least 1)
};

// Pure: the budget for a descriptor `limit`, `open_now` descriptors in use and an admin cap.
[[nodiscard]] FdBudget PlanFdBudget(uint64_t limit, size_t open_now, size_t admin_connections);

// Raises the soft RLIMIT_NOFILE to the hard limit (best effort) and plans the budget.
[[nodiscard]] FdBudget RaiseFdLimit(size_t admin_connections);

}  // namespace zs::app
