// Metrics::Render: the page is valid Prometheus text exposition whatever the label values hold
// (zone names come from config files), keeps its metric names and types, and the tick histogram
// stays cumulative with +Inf, _sum and _count.
#include "host/metrics.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace zs::host {
namespace {

std::vector<std::string> Lines(const std::string& page) {
  std::vector<std::string> lines;
  std::istringstream in(page);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// One sample line of the text format (version 0.0.4), parsed.
struct SampleLine {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;  // values unescaped
  double value = 0;
};

bool NameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool NameChar(char c) { return NameStart(c) || std::isdigit(static_cast<unsigned char>(c)); }

// Reads a metric name (colons allowed) or a label name (no colons) at *i.
bool ReadName(const std::string& s, size_t* i, bool metric, std::string* out) {
  const auto start = [metric](char c) { return NameStart(c) || (metric && c == ':'); };
  const auto rest = [metric](char c) { return NameChar(c) || (metric && c == ':'); };
  if (*i >= s.size() || !start(s[*i])) return false;
  const size_t begin = (*i)++;
  while (*i < s.size() && rest(s[*i])) ++*i;
  *out = s.substr(begin, *i - begin);
  return true;
}

// A quoted label value at *i: only `\\`, `\"` and `\n` are escapes, and no raw newline.
bool ReadLabelValue(const std::string& s, size_t* i, std::string* out) {
  if (*i >= s.size() || s[*i] != '"') return false;
  out->clear();
  for (++*i; *i < s.size(); ++*i) {
    const char c = s[*i];
    if (c == '"') {
      ++*i;
      return true;
    }
    if (c == '\n') return false;
    if (c == '\\') {
      if (++*i >= s.size()) return false;
      const char e = s[*i];
      if (e == 'n') {
        *out += '\n';
      } else if (e == '\\' || e == '"') {
        *out += e;
      } else {
        return false;
      }
    } else {
      *out += c;
    }
  }
  return false;  // unterminated
}

// A float as Go's strconv.ParseFloat reads it in the text format, or +Inf, -Inf, NaN.
bool ReadValue(const std::string& s, double* out) {
  static const std::map<std::string, double> kSpecial = {{"+Inf", HUGE_VAL},
                                                         {"Inf", HUGE_VAL},
                                                         {"-Inf", -HUGE_VAL},
                                                         {"NaN", std::nan("")},
                                                         {"Nan", std::nan("")}};
  if (const auto it = kSpecial.find(s); it != kSpecial.end()) {
    *out = it->second;
    return true;
  }
  if (s.empty() || s.find_first_not_of("0123456789+-.eE") != std::string::npos) return false;
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

// name{label="value",...} value [timestamp]
std::optional<SampleLine> ParseSample(const std::string& line) {
  SampleLine sample;
  size_t i = 0;
  if (!ReadName(line, &i, /*metric=*/true, &sample.name)) return std::nullopt;
  if (i < line.size() && line[i] == '{') {
    ++i;
    while (i < line.size() && line[i] != '}') {
      std::string label, value;
      if (!ReadName(line, &i, /*metric=*/false, &label)) return std::nullopt;
      if (i >= line.size() || line[i++] != '=') return std::nullopt;
      if (!ReadLabelValue(line, &i, &value)) return std::nullopt;
      sample.labels.emplace_back(label, value);
      if (i < line.size() && line[i] == ',') ++i;
    }
    if (i >= line.size()) return std::nullopt;
    ++i;  // '}'
  }
  if (i >= line.size() || line[i++] != ' ') return std::nullopt;
  const size_t space = line.find(' ', i);
  if (!ReadValue(line.substr(i, space - i), &sample.value)) return std::nullopt;
  if (space != std::string::npos) {  // a timestamp: an integer
    const std::string ts = line.substr(space + 1);
    if (ts.empty() || ts.find_first_not_of("-0123456789") != std::string::npos) {
      return std::nullopt;
    }
  }
  return sample;
}

// Every line is a HELP, a TYPE or a sample, and each sample belongs to the family declared
// last (its name, or name_bucket/_sum/_count for a histogram). Returns the samples and fills
// *types with each family's declared type.
std::vector<SampleLine> ParsePage(const std::string& page,
                                  std::map<std::string, std::string>* types = nullptr) {
  std::map<std::string, std::string> declared;
  std::vector<SampleLine> samples;
  std::string family;
  EXPECT_FALSE(page.empty());
  EXPECT_EQ(page.back(), '\n');
  for (const std::string& line : Lines(page)) {
    if (line.rfind("# HELP ", 0) == 0) {
      std::string name;
      size_t i = 7;
      EXPECT_TRUE(ReadName(line, &i, true, &name) && i < line.size() && line[i] == ' ') << line;
      family = name;
    } else if (line.rfind("# TYPE ", 0) == 0) {
      std::istringstream in(line.substr(7));
      std::string name, type, extra;
      in >> name >> type;
      EXPECT_FALSE(in >> extra) << line;
      EXPECT_TRUE(type == "counter" || type == "gauge" || type == "histogram" ||
                  type == "summary" || type == "untyped")
          << line;
      EXPECT_EQ(name, family) << "TYPE without its HELP: " << line;
      EXPECT_EQ(declared.count(name), 0u) << "family declared twice: " << line;
      declared[name] = type;
    } else {
      const std::optional<SampleLine> sample = ParseSample(line);
      if (!sample) {
        ADD_FAILURE() << "not exposition format: [" << line << "]";
        continue;
      }
      const bool histogram = declared[family] == "histogram";
      EXPECT_TRUE(sample->name == family || (histogram && (sample->name == family + "_bucket" ||
                                                           sample->name == family + "_sum" ||
                                                           sample->name == family + "_count")))
          << "sample outside its family " << family << ": " << line;
      samples.push_back(*sample);
    }
  }
  if (types != nullptr) *types = declared;
  return samples;
}

// The value of the sample with this name and labels; -1 when absent.
double Sample(const std::vector<SampleLine>& samples, const std::string& name,
              const std::vector<std::pair<std::string, std::string>>& labels = {}) {
  for (const SampleLine& s : samples) {
    if (s.name == name && s.labels == labels) return s.value;
  }
  return -1;
}

TEST(Metrics, ZoneNamesAreEscapedAndThePageParses) {
  Metrics m;
  const std::string nasty = "a \"quoted\" zone\\with\na newline";
  m.ObserveZone(nasty, {.entities = 7});
  m.ObserveZone("plaza", {.entities = 3});
  m.kicks().Add(CloseReason::kSlowReader);
  m.RejectInput(InputRefusal::kCooldown, 2);
  m.traffic().rate_limited_inputs.Add(5);
  const std::string page = m.Render();
  const std::vector<SampleLine> samples = ParsePage(page);

  // Escaped on the page, and read back as the names they were.
  EXPECT_NE(page.find(R"(zs_zone_entities{zone="a \"quoted\" zone\\with\na newline"} 7)"),
            std::string::npos)
      << page;
  EXPECT_EQ(Sample(samples, "zs_zone_entities", {{"zone", nasty}}), 7) << page;
  EXPECT_EQ(Sample(samples, "zs_zone_entities", {{"zone", "plaza"}}), 3) << page;
  EXPECT_EQ(Sample(samples, "zs_kicks_total", {{"reason", "slow_reader"}}), 1) << page;
  EXPECT_EQ(Sample(samples, "zs_rejected_inputs_total", {{"reason", "cooldown"}}), 2) << page;
  EXPECT_EQ(Sample(samples, "zs_rejected_inputs_total", {{"reason", "server_busy"}}), 0)
      << "every reason is on the page, 0 until it happens" << page;
  EXPECT_EQ(Sample(samples, "zs_rejected_inputs_total", {{"reason", "rate_limited"}}), 5) << page;
}

TEST(Metrics, TheParserRejectsWhatTheOldPageWrote) {  // the checker itself
  EXPECT_FALSE(ParseSample(R"(zs_zone_entities{zone="a "quoted" zone"} 7)"));
  EXPECT_FALSE(ParseSample(R"(zs_zone_entities{zone="a\with"} 7)"));
  EXPECT_FALSE(ParseSample("zs_zone_entities{zone=\"a"));
  EXPECT_FALSE(ParseSample("a newline\"} 7"));
  EXPECT_TRUE(ParseSample(R"(zs_zone_entities{zone="a\nb"} 7)"));
  EXPECT_TRUE(ParseSample(R"(zs_tick_duration_seconds_bucket{le="+Inf"} 5)"));
  EXPECT_TRUE(ParseSample("zs_interest_scale 1.5e-07"));
}

TEST(Metrics, NamesAndTypesStayTheSame) {
  Metrics m;
  m.ObserveZone("plaza", {.entities = 1});
  std::map<std::string, std::string> types;
  ParsePage(m.Render(), &types);
  const std::map<std::string, std::string> want = {
      {"zs_connections", "gauge"},
      {"zs_connections_total", "counter"},
      {"zs_connections_refused_total", "counter"},
      {"zs_players", "gauge"},
      {"zs_bytes_in_total", "counter"},
      {"zs_bytes_out_total", "counter"},
      {"zs_messages_in_total", "counter"},
      {"zs_messages_out_total", "counter"},
      {"zs_sends_out_total", "counter"},
      {"zs_io_wakeups_total", "counter"},
      {"zs_io_batches_total", "counter"},
      {"zs_send_queue_overflows_total", "counter"},
      {"zs_send_queue_global_overflows_total", "counter"},
      {"zs_admin_connections", "gauge"},
      {"zs_admin_evictions_total", "counter"},
      {"zs_interest_level", "gauge"},
      {"zs_interest_scale", "gauge"},
      {"zs_interest_level_changes_total", "counter"},
      {"zs_send_queue_bytes", "gauge"},
      {"zs_tick_phase_seconds_total", "counter"},
      {"zs_tick_overruns_total", "counter"},
      {"zs_tick_duration_seconds", "histogram"},
      {"zs_kicks_total", "counter"},
      {"zs_rejected_inputs_total", "counter"},
      {"zs_zone_entities", "gauge"},
      {"zs_zone_ticks_total", "counter"},
      {"zs_zone_tick_seconds_total", "counter"},
      {"zs_zone_interest_level", "gauge"},
      {"zs_zone_tick_duration_seconds", "histogram"},
      {"zs_tick_during_flush_seconds", "histogram"},
      {"zs_logins_total", "counter"},
      {"zs_login_takeovers_total", "counter"},
      {"zs_checkpoints_total", "counter"},
      {"zs_login_refusals_total", "counter"},
      {"zs_handoffs_offered_total", "counter"},
      {"zs_handoffs_accepted_total", "counter"},
      {"zs_handoffs_failed_total", "counter"},
      {"zs_handoffs_arrived_total", "counter"},
      {"zs_ghosts", "gauge"},
      {"zs_ghosts_sent_total", "counter"},
      {"zs_border_batches_sent_total", "counter"},
      {"zs_border_bytes_sent_total", "counter"},
      {"zs_border_bytes_received_total", "counter"},
      {"zs_border_silent_total", "counter"},
      {"zs_migration_latency_seconds", "histogram"},
      {"zs_migrations_total", "counter"},
      {"zs_relay_messages_total", "counter"},
      {"zs_players_real", "gauge"},
      {"zs_relay_homes_silent_total", "counter"},
      {"zs_relay_orphaned_total", "counter"},
      {"zs_relay_refused_total", "counter"},
      {"zs_zone_chat_lines_total", "counter"},
      {"zs_zone_chat_total", "counter"},
      {"zs_border_batches_total", "counter"},
      {"zs_viewers", "gauge"},
      {"zs_viewer_frames_total", "counter"},
      {"zs_viewer_frames_skipped_total", "counter"},
      {"zs_viewers_refused_total", "counter"},
      {"zs_viewer_snapshot_seconds_total", "counter"},
  };
  EXPECT_EQ(types, want);
}

// A figure declared with its name (host/metric_groups.h) is on the page once, with the help
// it was declared with, and shows its value as declared (scaled, never below 0).
TEST(Metrics, EachNamedFigureIsOnThePageOnceWithItsDeclaredHelp) {
  Metrics m;
  const CellCounters cells = m.cells();
  const std::vector<const MetricGroup*> groups = {
      &m.connections(), &m.traffic(), &m.send_queues(), &m.io_loops(), &m.ticks(),
      &m.interest(),    &m.players(), &m.handoffs(),    &m.admin(),    &m.viewers(),
      &cells.border,    &cells.relay, &cells.chat};
  m.viewers().snapshot_us.Add(2'500'000);  // shown in seconds
  m.admin().connections.Sub(1);            // a moment below 0: shown as 0
  const std::string page = m.Render();
  size_t named = 0;
  for (const MetricGroup* g : groups) {
    for (const MetricGroup::Named& n : g->named()) {
      ++named;
      const std::string help = std::string("# HELP ") + n.info.name + " " + n.info.help + "\n";
      const size_t at = page.find(help);
      ASSERT_NE(at, std::string::npos) << n.info.name;
      EXPECT_EQ(page.find(help, at + 1), std::string::npos) << n.info.name << " twice";
    }
  }
  EXPECT_GT(named, 30u);
  std::map<std::string, std::string> types;
  const std::vector<SampleLine> samples = ParsePage(page, &types);
  EXPECT_EQ(Sample(samples, "zs_viewer_snapshot_seconds_total", {}), 2.5);
  EXPECT_EQ(Sample(samples, "zs_admin_connections", {}), 0);
}

// Each zone ticks on its own runner: its ticks, tick time and overload level are its own, and
// zs_interest_level shows the busiest zone's.
TEST(Metrics, EachZoneHasItsOwnTicksAndTheBusiestSetsTheInterestLevel) {
  Metrics m;
  m.ObserveZone(
      "plaza", {.entities = 10, .tick_seconds = 0.004, .interest_level = 3, .interest_scale = 0.5});
  m.ObserveZone(
      "plaza", {.entities = 12, .tick_seconds = 0.006, .interest_level = 3, .interest_scale = 0.5});
  m.ObserveZone("yard",
                {.entities = 2, .tick_seconds = 0.001, .interest_level = 0, .interest_scale = 1});
  const std::vector<SampleLine> samples = ParsePage(m.Render());
  EXPECT_EQ(Sample(samples, "zs_zone_ticks_total", {{"zone", "plaza"}}), 2);
  EXPECT_EQ(Sample(samples, "zs_zone_ticks_total", {{"zone", "yard"}}), 1);
  EXPECT_NEAR(Sample(samples, "zs_zone_tick_seconds_total", {{"zone", "plaza"}}), 0.010, 1e-9);
  EXPECT_EQ(Sample(samples, "zs_zone_entities", {{"zone", "plaza"}}), 12) << "the last tick's";
  EXPECT_EQ(Sample(samples, "zs_zone_interest_level", {{"zone", "plaza"}}), 3);
  EXPECT_EQ(Sample(samples, "zs_zone_interest_level", {{"zone", "yard"}}), 0);
  EXPECT_EQ(Sample(samples, "zs_zone_tick_duration_seconds_count", {{"zone", "plaza"}}), 2);
  EXPECT_EQ(
      Sample(samples, "zs_zone_tick_duration_seconds_bucket", {{"zone", "yard"}, {"le", "0.001"}}),
      1);
  EXPECT_EQ(Sample(samples, "zs_interest_level"), 3) << "the busiest zone's";
  EXPECT_EQ(Sample(samples, "zs_interest_scale"), 0.5);
}

TEST(Metrics, StorageFiguresAppearOnceTheLoopPublishesThem) {
  Metrics m;
  EXPECT_EQ(m.Render().find("zs_storage_"), std::string::npos) << "no storage: no figures";
  m.PublishStorage({.errors = 3,
                    .flushes = 7,
                    .rows_saved = 5000,
                    .unsaved = 12,
                    .pending_loads = 1,
                    .last_flush_seconds = 0.025,
                    .last_flush_rows = 4000,
                    .load_failures = 2});
  m.login_refusals().Add(CloseReason::kAuthExpired);
  m.ObserveTick(0.004, /*flushing=*/true);
  const std::string page = m.Render();
  EXPECT_NE(page.find("zs_storage_errors_total 3\n"), std::string::npos) << page;
  EXPECT_NE(page.find("zs_storage_unsaved 12\n"), std::string::npos) << page;
  EXPECT_NE(page.find("zs_storage_last_flush_seconds 0.025\n"), std::string::npos) << page;
  EXPECT_NE(page.find("zs_login_refusals_total{reason=\"auth_expired\"} 1\n"), std::string::npos);
  EXPECT_NE(page.find("zs_tick_during_flush_seconds_count 1\n"), std::string::npos) << page;
  EXPECT_NE(page.find("zs_tick_duration_seconds_count 1\n"), std::string::npos) << page;
}

TEST(Metrics, ValuesAndLabels) {
  Metrics m;
  m.connections().open.Set(12);
  m.traffic().bytes_out.Add(123456789012);
  m.send_queues().bytes.Set(4096);
  m.admin().connections.Set(-1);  // never shown below 0
  m.admin().evictions.Add(9);
  m.interest().scale_milli.Set(350);
  m.ticks().world_us.Add(1500000);
  const std::vector<SampleLine> samples = ParsePage(m.Render());
  EXPECT_EQ(Sample(samples, "zs_connections"), 12);
  EXPECT_EQ(Sample(samples, "zs_bytes_out_total"), 123456789012.0);
  EXPECT_EQ(Sample(samples, "zs_send_queue_bytes"), 4096);
  EXPECT_EQ(Sample(samples, "zs_admin_connections"), 0);
  EXPECT_EQ(Sample(samples, "zs_admin_evictions_total"), 9);
  EXPECT_DOUBLE_EQ(Sample(samples, "zs_interest_scale"), 0.35);
  EXPECT_DOUBLE_EQ(Sample(samples, "zs_tick_phase_seconds_total", {{"phase", "world"}}), 1.5);
  EXPECT_EQ(Sample(samples, "zs_tick_phase_seconds_total", {{"phase", "deliver"}}), 0);
  EXPECT_EQ(Sample(samples, "zs_send_queue_overflows_total"), 0);
}

TEST(Metrics, TickHistogramIsCumulativeWithInfSumAndCount) {
  Metrics m;
  m.ObserveTick(0.0001);  // first bucket
  m.ObserveTick(0.004);   // le 0.005
  m.ObserveTick(0.004);
  m.ObserveTick(0.3);  // le 0.5
  m.ObserveTick(2.0);  // beyond the last bound: only +Inf
  const std::string page = m.Render();
  const std::vector<SampleLine> samples = ParsePage(page);

  std::vector<double> les, counts;
  for (const SampleLine& s : samples) {
    if (s.name != "zs_tick_duration_seconds_bucket") continue;
    ASSERT_EQ(s.labels.size(), 1u);
    ASSERT_EQ(s.labels[0].first, "le");
    double le = 0;
    ASSERT_TRUE(ReadValue(s.labels[0].second, &le)) << s.labels[0].second;
    les.push_back(le);
    counts.push_back(s.value);
  }
  ASSERT_EQ(les.size(), Metrics::kTickBuckets.size() + 1) << page;
  for (size_t b = 0; b < Metrics::kTickBuckets.size(); ++b) {
    EXPECT_DOUBLE_EQ(les[b], Metrics::kTickBuckets[b]);
    if (b > 0) {
      EXPECT_GE(counts[b], counts[b - 1]) << "not cumulative at le=" << les[b];
    }
  }
  EXPECT_TRUE(std::isinf(les.back()) && les.back() > 0);
  EXPECT_NE(page.find(R"(zs_tick_duration_seconds_bucket{le="+Inf"} 5)"), std::string::npos);
  EXPECT_EQ(counts.front(), 1);
  EXPECT_EQ(Sample(samples, "zs_tick_duration_seconds_bucket", {{"le", "0.005"}}), 3);
  EXPECT_EQ(Sample(samples, "zs_tick_duration_seconds_bucket", {{"le", "0.5"}}), 4);
  EXPECT_EQ(Sample(samples, "zs_tick_duration_seconds_bucket", {{"le", "1"}}), 4);
  EXPECT_EQ(counts.back(), 5);
  EXPECT_EQ(Sample(samples, "zs_tick_duration_seconds_count"), 5);
  EXPECT_NEAR(Sample(samples, "zs_tick_duration_seconds_sum"), 2.3081, 1e-5);
}

}  // namespace
}  // namespace zs::host
