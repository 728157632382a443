// Stats shared by all bots: counters (atomics) and samples (under a mutex, appended in
// batches by each bot). Read by the progress line and the final report.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace zs::sim {

struct Stats {
  std::atomic<uint64_t> connected{0};  // sockets open now
  std::atomic<uint64_t> in_world{0};   // logged in now
  std::atomic<uint64_t> logins_ok{0};
  std::atomic<uint64_t> logins_failed{0};
  std::atomic<uint64_t> bytes_in{0};
  std::atomic<uint64_t> bytes_out{0};
  std::atomic<uint64_t> messages_in{0};
  std::atomic<uint64_t> messages_out{0};
  std::atomic<uint64_t> ticks{0};            // TickUpdates received, all bots
  std::atomic<uint64_t> crowd_summaries{0};  // TickUpdates with a CrowdSummary, all bots
  std::atomic<uint64_t> crowd_total{0};      // sum of their `total`s: entities in view, not sent

  std::mutex mu;
  std::vector<double> rtt_ms;            // ping -> pong
  std::vector<double> tick_interval_ms;  // arrival gaps between consecutive TickUpdates
  std::vector<double> answer_ms;      // verifying bots: a skill or chat sent -> its result received
  std::vector<double> handoff_ms;     // hand-offs to another server: the last tick in the old zone
                                      // (the portal's tick) -> the first tick from the new server
  std::atomic<uint64_t> handoffs{0};  // ZoneChanged with a server_address followed
  std::atomic<uint64_t> handoffs_failed{0};     // ... whose new server never sent a first tick
  std::map<std::string, uint64_t> violations;   // by kind
  std::map<std::string, uint64_t> errors;       // Error frames and Kicks from the server, by reason
  std::map<std::string, uint64_t> disconnects;  // connection ended by the server, by reason
  std::map<std::string, uint64_t> results;      // TickUpdate.results by outcome
  std::atomic<uint64_t> says{0};                // chat lines sent
  std::atomic<uint64_t> chat_heard{0};          // chat lines received, all bots
  uint64_t says_checked = 0;                    // said lines ChatCheck checked (end of run)

  void Violation(const std::string& kind) {
    std::lock_guard lock(mu);
    ++violations[kind];
  }
  void Result(const std::string& outcome) {
    std::lock_guard lock(mu);
    ++results[outcome];
  }
  void Error(const std::string& what) {
    std::lock_guard lock(mu);
    ++errors[what];
  }
  [[nodiscard]] uint64_t TotalViolations() {
    std::lock_guard lock(mu);
    uint64_t n = 0;
    for (const auto& [k, v] : violations) n += v;
    return n;
  }
};

// q-quantile of `v` (sorts a copy); NaN for an empty vector (no figure: null in the report,
// n/a when printed, never a 0 that reads as a measurement).
inline double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();  // no sample: no figure
  const auto k = static_cast<size_t>(q * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace zs::sim
