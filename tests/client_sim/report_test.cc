// client_sim's JSON report: always valid JSON, whatever the reasons it repeats hold (control
// characters, quotes, bytes that are not UTF-8) and whatever the numbers are (NaN and infinities
// become null); the keys the scripts read are there, in their order.
#include "client_sim/report.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

namespace zs::sim {
namespace {

using nlohmann::json;

RunInfo CrowdRun() {
  return RunInfo{
      .scenario = "crowd", .transport = "tcp", .bots = 50, .verify_every = 7, .verifying_bots = 8};
}

Results SomeResults() {
  Results r;
  r.run_s = 5.5;
  r.wall_s = 6;
  r.cpu = CpuUse{.user_s = 1.25, .system_s = 0.5};
  r.mean_interval = 50;
  r.jitter = {0.5, 1, 2};
  r.rtt_max = 12;
  r.violations = 3;
  r.bot_seconds = 250;
  return r;
}

TEST(Report, KeysValuesAndOrder) {
  Stats stats;
  stats.logins_ok = 50;
  stats.ticks = 5000;
  stats.bytes_in = 250 * 1000;
  stats.rtt_ms = {1, 2, 3, 4};
  stats.violations["tick_gap"] = 3;
  const Results r = SomeResults();
  std::string text;
  {
    std::lock_guard lock(stats.mu);
    text = ReportJson(CrowdRun(), stats, r);
  }
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  const json j = json::parse(text);
  EXPECT_EQ(j["scenario"], "crowd");
  EXPECT_EQ(j["transport"], "tcp");
  EXPECT_EQ(j["bots"], 50);
  EXPECT_EQ(j["verify_every"], 7);
  EXPECT_EQ(j["verifying_bots"], 8);
  EXPECT_DOUBLE_EQ(j["duration_s"].get<double>(), 5.5);
  EXPECT_TRUE(j["stopped_by"].is_null());  // the run took its course
  EXPECT_EQ(j["logins_ok"], 50);
  EXPECT_EQ(j["logins_failed"], 0);
  EXPECT_EQ(j["rtt_ms"]["samples"], 4);
  EXPECT_DOUBLE_EQ(j["rtt_ms"]["max"].get<double>(), 12);
  EXPECT_DOUBLE_EQ(j["tick_interval_ms"]["mean"].get<double>(), 50);
  EXPECT_EQ(j["ticks_received"], 5000);
  EXPECT_DOUBLE_EQ(j["bytes_in_per_bot_s"].get<double>(), 1000);
  EXPECT_DOUBLE_EQ(j["cpu_s"]["total"].get<double>(), 1.75);
  EXPECT_DOUBLE_EQ(j["cpu_percent"].get<double>(), 100 * 1.75 / 6);
  EXPECT_EQ(j["violations"]["tick_gap"], 3);
  EXPECT_TRUE(j["errors"].is_object());
  EXPECT_TRUE(j["disconnects"].is_object());
  EXPECT_EQ(j["violations_total"], 3);

  const std::vector<std::string> keys = {"scenario",
                                         "transport",
                                         "bots",
                                         "verify_every",
                                         "verifying_bots",
                                         "duration_s",
                                         "stopped_by",
                                         "logins_ok",
                                         "logins_failed",
                                         "rtt_ms",
                                         "tick_interval_ms",
                                         "answer_ms",
                                         "handoffs",
                                         "ticks_received",
                                         "crowd_summaries",
                                         "crowd_total",
                                         "bytes_in_per_bot_s",
                                         "bytes_out_per_bot_s",
                                         "messages_in_per_bot_s",
                                         "messages_out_per_bot_s",
                                         "cpu_s",
                                         "cpu_percent",
                                         "errors",
                                         "disconnects",
                                         "results",
                                         "says",
                                         "says_checked",
                                         "chat_heard",
                                         "violations",
                                         "violations_total"};
  const nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(text);
  std::vector<std::string> got;
  for (const auto& [k, v] : ordered.items()) got.push_back(k);
  EXPECT_EQ(got, keys);
}

// A run that SIGTERM (docker stop) or SIGINT (Ctrl-C) ended early says so.
TEST(Report, StoppedBySignal) {
  Stats stats;
  Results r = SomeResults();
  r.stopped_by = "SIGTERM";
  std::string text;
  {
    std::lock_guard lock(stats.mu);
    text = ReportJson(CrowdRun(), stats, r);
  }
  EXPECT_EQ(json::parse(text)["stopped_by"], "SIGTERM");
}

TEST(Report, ControlCharactersAndQuotesRoundTrip) {
  Stats stats;
  const std::string reason = std::string("kicked: \"slow\"\\\n\t\r\b\f") + '\x01' + '\x1f' + "end";
  const std::string kind = std::string("bad\x7f") + '\0' + "kind";
  stats.errors[reason] = 2;
  stats.disconnects[reason] = 1;
  stats.violations[kind] = 4;
  RunInfo run = CrowdRun();
  run.scenario =
      "wan\x02"
      "der";
  std::string text;
  {
    std::lock_guard lock(stats.mu);
    text = ReportJson(run, stats, SomeResults());
  }
  for (char c : text) {  // JSON allows no raw control characters in strings; newlines separate keys
    EXPECT_TRUE(static_cast<unsigned char>(c) >= 0x20 || c == '\n') << static_cast<int>(c);
  }
  const json j = json::parse(text);
  EXPECT_EQ(j["scenario"], run.scenario);
  ASSERT_EQ(j["errors"].size(), 1u);
  EXPECT_EQ(j["errors"].begin().key(), reason);
  EXPECT_EQ(j["errors"][reason], 2);
  EXPECT_EQ(j["disconnects"][reason], 1);
  ASSERT_TRUE(j["violations"].contains(kind));
  EXPECT_EQ(j["violations"][kind], 4);
}

TEST(Report, InvalidUtf8IsReplacedNotThrown) {
  Stats stats;
  stats.errors[std::string("bad \xff\xfe bytes")] = 1;
  std::string text;
  {
    std::lock_guard lock(stats.mu);
    ASSERT_NO_THROW(text = ReportJson(CrowdRun(), stats, SomeResults()));
  }
  const json j = json::parse(text);
  EXPECT_EQ(j["errors"].begin().key(), "bad \xEF\xBF\xBD\xEF\xBF\xBD bytes");  // U+FFFD twice
}

// Without a sample there is no figure: quantiles and maxima are null, never a 0 that would read
// as a measurement (the console prints n/a).
TEST(Report, NoSamplesMeanNullNotZero) {
  Stats stats;
  Results r = SomeResults();
  r.rtt_max = Quantile({}, 1.0);
  std::string text;
  {
    std::lock_guard lock(stats.mu);
    text = ReportJson(CrowdRun(), stats, r);
  }
  const json j = json::parse(text);
  EXPECT_EQ(j["rtt_ms"]["samples"], 0);
  for (const char* q : {"p50", "p90", "p99", "p999", "max"}) {
    EXPECT_TRUE(j["rtt_ms"][q].is_null()) << q;
  }
  EXPECT_TRUE(j["handoffs"]["latency_ms"]["p50"].is_null());
  EXPECT_TRUE(j["handoffs"]["latency_ms"]["p99"].is_null());
}

TEST(Report, NanAndInfinityBecomeNull) {
  Stats stats;
  Results r = SomeResults();
  r.run_s = std::numeric_limits<double>::quiet_NaN();
  r.rtt_max = std::numeric_limits<double>::infinity();
  r.mean_interval = -std::numeric_limits<double>::infinity();
  r.bot_seconds = 0;  // 0 / 0 = NaN per bot
  r.cpu.user_s = std::nan("");
  std::string text;
  {
    std::lock_guard lock(stats.mu);
    text = ReportJson(CrowdRun(), stats, r);
  }
  EXPECT_TRUE(json::accept(text)) << text;
  const json j = json::parse(text);
  EXPECT_TRUE(j["duration_s"].is_null());
  EXPECT_TRUE(j["rtt_ms"]["max"].is_null());
  EXPECT_TRUE(j["tick_interval_ms"]["mean"].is_null());
  EXPECT_TRUE(j["bytes_in_per_bot_s"].is_null());
  EXPECT_TRUE(j["cpu_s"]["user"].is_null());
  EXPECT_TRUE(j["cpu_percent"].is_null());
  EXPECT_EQ(j["logins_ok"], 0);  // the rest is untouched
  EXPECT_EQ(j["violations_total"], 3);
}

}  // namespace
}  // namespace zs::sim
