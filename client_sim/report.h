// Report: client_sim's JSON report (--report FILE), built from the shared Stats and the run's
// summary. No sockets and no clock: main.cc gathers the numbers, this file only writes them, so
// tests can build a report from made-up values.
//
// Format: one JSON object, written by nlohmann::json (the keys in the order below, indented by
// two spaces). Strings (error, kick and disconnect reasons, violation kinds, the scenario) are
// escaped as JSON requires: control characters survive as \uXXXX escapes and invalid UTF-8 is
// replaced by U+FFFD. A number that is NaN or infinite is written as null. Keys:
//   scenario, transport ("tcp" or "ws"), bots, verify_every, verifying_bots, duration_s, stopped_by
//   ("SIGTERM" or "SIGINT" when a signal ended the run early, else null), logins_ok, logins_failed,
//   rtt_ms {samples, p50, p90, p99, p999, max} (quantiles null without samples),
//   tick_interval_ms {mean, jitter_p50, jitter_p99}, answer_ms {samples, p50, p99} (verifying
//   bots: a skill or chat sent -> its result received), handoffs {followed, failed, latency_ms
//   {samples, p50, p99}} (hand-offs to other servers followed, and how long they took),
//   ticks_received, crowd_summaries, crowd_total, bytes_in_per_bot_s, bytes_out_per_bot_s,
//   messages_in_per_bot_s, messages_out_per_bot_s, cpu_s {user, system, total}, cpu_percent,
//   errors {reason: n}, disconnects {reason: n}, results {outcome: n} (TickUpdate.results seen
//   by verifying bots), says (chat lines sent), says_checked (lines ChatCheck checked),
//   chat_heard (chat lines received), violations {kind: n}, violations_total.
// scripts/loadtest.sh reads it with jq.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "client_sim/stats.h"

namespace zs::sim {

// CPU time a process has used (user and system, all threads), in seconds.
struct CpuUse {
  double user_s = 0;
  double system_s = 0;
  [[nodiscard]] double total() const { return user_s + system_s; }
};

// How the run was set up.
struct RunInfo {
  std::string scenario;
  std::string transport = "tcp";
  uint32_t bots = 0;
  uint32_t verify_every = 1;
  uint32_t verifying_bots = 0;
};

// What the summary line and the report share, computed once at the end of the run.
struct Results {
  double run_s = 0;   // ramp-up and duration
  double wall_s = 0;  // the whole process so far, over which `cpu` was used
  CpuUse cpu;
  double mean_interval = 0;
  std::vector<double> jitter;  // |inter-arrival - mean interval|
  double rtt_max = 0;
  uint64_t violations = 0;
  double bot_seconds = 1;
  std::string stopped_by;  // "SIGTERM" or "SIGINT" when a signal ended the run early; else empty
  [[nodiscard]] double cpu_percent() const { return 100 * cpu.total() / std::max(wall_s, 1e-9); }
};

// The report as text, ending with a newline.
// REQUIRES: stats.mu held (the samples and the maps are read).
[[nodiscard]] std::string ReportJson(const RunInfo& run, const Stats& stats, const Results& r);

}  // namespace zs::sim
