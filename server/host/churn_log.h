// ChurnLog: keeps per-connection log lines readable under connection churn.
//
// A connect/disconnect flood used to write about two lines per connection (3.3 MB/s of log).
// Now, within each window (1 s by default), the first `verbatim` events of each kind are logged
// as they are; the rest are only counted, and one summary line per window gives the counts by
// kind and, for disconnects and refusals, by reason:
//
//   churn in the last 1.0 s: 812 connected, 790 disconnected (client_closed 700, idle 90),
//   12 refused (server full 12); 1590 lines not shown
//
// Reasons are the server's own fixed strings (never client text), so the per-reason map stays
// small. Thread-safe (one mutex: a connection costs far more than this). No logging itself:
// the caller logs what Admit allows and what TakeSummary returns, so it is testable.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace zs::host {

class ChurnLog {
 public:
  enum class Kind : uint8_t { kConnected, kJoined, kDisconnected, kRefused, kAcceptFailed };
  static constexpr size_t kKinds = 5;

  explicit ChurnLog(double window_s = 1.0, uint32_t verbatim = 5)
      : window_s_(window_s), verbatim_(verbatim) {}

  // Counts the event; true when its line should be logged verbatim. `reason`: a server-defined
  // reason (disconnects, refusals), or empty. `now_s`: a monotonic clock in seconds.
  bool Admit(Kind kind, const std::string& reason, double now_s);

  // Once the window has ended (or at once with `flush`, e.g. at shutdown): the summary line of
  // the events beyond the verbatim ones, or nothing when every line was shown. Starts the next
  // window either way.
  std::optional<std::string> TakeSummary(double now_s, bool flush = false);

 private:
  struct Counts {
    uint64_t total = 0;
    std::map<std::string, uint64_t> by_reason;
  };

  const double window_s_;
  const uint32_t verbatim_;
  std::mutex mu_;
  double window_start_s_ = -1;           // guarded by mu_
  std::array<Counts, kKinds> counts_{};  // guarded by mu_
  uint64_t suppressed_ = 0;              // guarded by mu_
};

[[nodiscard]] const char* ChurnKindName(ChurnLog::Kind kind);

}  // namespace zs::host
