// Metrics::Render: the page is valid Prometheus text exposition whatever the label values hold
// (zone names come from config files), keeps its metric names and types, and the tick histogram
// stays cumulative with +Inf, _sum and _count.
#include "net/metrics.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace zs::net {
namespace {

std::vector<std::string> Lines(const std::string& page) {
  std::vector<std::string> lines;
  std::istringstream in(page);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// One sample line of the text format (version 0.0.4): a metric name, optional labels whose
// values escape only `\`, `"` and newline, a float value (or +Inf, -Inf, NaN) and an optional
// timestamp.
const std::regex kSample(
    R"(^[a-zA-Z_:][a-zA-Z0-9_:]*)"
    R"((\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\[\\"n])*")(,[a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\[\\"n])*")*,?\})?)"
    R"( ([-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?|[-+]?Inf|NaN|Nan)( -?[0-9]+)?$)");
const std::regex kHelp(R"(^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*$)");
const std::regex kType(
    R"(^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$)");

// Undoes the label-value escapes of the text format.
std::string Unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      ++i;
      out += s[i] == 'n' ? '\n' : s[i];
    } else {
      out += s[i];
    }
  }
  return out;
}

// Every line is a HELP, a TYPE or a sample; returns the declared type of each family.
std::map<std::string, std::string> CheckGrammar(const std::string& page) {
  std::map<std::string, std::string> types;
  EXPECT_FALSE(page.empty());
  EXPECT_EQ(page.back(), '\n');
  for (const std::string& line : Lines(page)) {
    std::smatch m;
    if (std::regex_match(line, m, kType)) {
      EXPECT_EQ(types.count(m[1]), 0u) << "family declared twice: " << line;
      types[m[1]] = m[2];
    } else {
      EXPECT_TRUE(std::regex_match(line, kHelp) || std::regex_match(line, kSample))
          << "not exposition format: [" << line << "]";
    }
  }
  return types;
}

// The value of the sample line starting with `series` followed by a space; -1 when absent.
double Sample(const std::string& page, const std::string& series) {
  for (const std::string& line : Lines(page)) {
    if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
  }
  return -1;
}

TEST(Metrics, ZoneNamesAreEscapedAndThePageParses) {
  Metrics m;
  const std::string nasty = "a \"quoted\" zone\\with\na newline";
  m.SetZoneEntities(nasty, 7);
  m.SetZoneEntities("plaza", 3);
  m.Kick("slow \"reader\"");
  m.RejectInput("bad\\input", 2);
  m.rate_limited_inputs = 5;
  const std::string page = m.Render();
  CheckGrammar(page);

  EXPECT_EQ(Sample(page, R"(zs_zone_entities{zone="a \"quoted\" zone\\with\na newline"})"), 7)
      << page;
  EXPECT_EQ(Sample(page, R"(zs_zone_entities{zone="plaza"})"), 3) << page;
  EXPECT_EQ(Sample(page, R"(zs_kicks_total{reason="slow \"reader\""})"), 1) << page;
  EXPECT_EQ(Sample(page, R"(zs_rejected_inputs_total{reason="bad\\input"})"), 2) << page;
  EXPECT_EQ(Sample(page, R"(zs_rejected_inputs_total{reason="rate_limited"})"), 5) << page;

  // The escaped label reads back as the zone's name.
  const std::regex zone_label(R"re(^zs_zone_entities\{zone="((?:[^"\\]|\\.)*)"\} 7$)re");
  bool found = false;
  for (const std::string& line : Lines(page)) {
    std::smatch match;
    if (std::regex_match(line, match, zone_label)) {
      EXPECT_EQ(Unescape(match[1]), nasty);
      found = true;
    }
  }
  EXPECT_TRUE(found) << page;
}

TEST(Metrics, NamesAndTypesStayTheSame) {
  Metrics m;
  m.SetZoneEntities("plaza", 1);
  const std::map<std::string, std::string> types = CheckGrammar(m.Render());
  const std::map<std::string, std::string> want = {
      {"zs_connections", "gauge"},
      {"zs_connections_total", "counter"},
      {"zs_connections_refused_total", "counter"},
      {"zs_players", "gauge"},
      {"zs_bytes_in_total", "counter"},
      {"zs_bytes_out_total", "counter"},
      {"zs_messages_in_total", "counter"},
      {"zs_messages_out_total", "counter"},
      {"zs_send_queue_overflows_total", "counter"},
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
  };
  for (const auto& [name, type] : want) {
    ASSERT_EQ(types.count(name), 1u) << name;
    EXPECT_EQ(types.at(name), type) << name;
  }
}

TEST(Metrics, ValuesAndLabels) {
  Metrics m;
  m.connections = 12;
  m.bytes_out = 123456789012;
  m.send_queue_bytes = 4096;
  m.interest_scale_milli = 350;
  m.tick_world_us = 1500000;
  const std::string page = m.Render();
  EXPECT_EQ(Sample(page, "zs_connections"), 12);
  EXPECT_EQ(Sample(page, "zs_bytes_out_total"), 123456789012.0);
  EXPECT_EQ(Sample(page, "zs_send_queue_bytes"), 4096);
  EXPECT_DOUBLE_EQ(Sample(page, "zs_interest_scale"), 0.35);
  EXPECT_DOUBLE_EQ(Sample(page, R"(zs_tick_phase_seconds_total{phase="world"})"), 1.5);
  EXPECT_EQ(Sample(page, R"(zs_tick_phase_seconds_total{phase="deliver"})"), 0);
  EXPECT_EQ(Sample(page, "zs_send_queue_overflows_total"), 0);
}

TEST(Metrics, TickHistogramIsCumulativeWithInfSumAndCount) {
  Metrics m;
  m.ObserveTick(0.0001);  // first bucket
  m.ObserveTick(0.004);   // le 0.005
  m.ObserveTick(0.004);
  m.ObserveTick(0.3);  // le 0.5
  m.ObserveTick(2.0);  // beyond the last bound: only +Inf
  const std::string page = m.Render();
  CheckGrammar(page);

  const std::regex bucket(R"re(^zs_tick_duration_seconds_bucket\{le="([^"]+)"\} ([0-9]+)$)re");
  std::vector<std::string> les;
  std::vector<uint64_t> counts;
  for (const std::string& line : Lines(page)) {
    std::smatch match;
    if (std::regex_match(line, match, bucket)) {
      les.push_back(match[1]);
      counts.push_back(std::stoull(match[2]));
    }
  }
  ASSERT_EQ(les.size(), Metrics::kTickBuckets.size() + 1) << page;
  for (size_t b = 0; b < Metrics::kTickBuckets.size(); ++b) {
    EXPECT_DOUBLE_EQ(std::stod(les[b]), Metrics::kTickBuckets[b]) << les[b];
    if (b > 0) {
      EXPECT_GE(counts[b], counts[b - 1]) << "not cumulative at le=" << les[b];
    }
  }
  EXPECT_EQ(les.back(), "+Inf");
  EXPECT_EQ(counts.front(), 1u);
  EXPECT_EQ(Sample(page, R"(zs_tick_duration_seconds_bucket{le="0.005"})"), 3);
  EXPECT_EQ(Sample(page, R"(zs_tick_duration_seconds_bucket{le="0.5"})"), 4);
  EXPECT_EQ(Sample(page, R"(zs_tick_duration_seconds_bucket{le="1"})"), 4);
  EXPECT_EQ(counts.back(), 5u);
  EXPECT_EQ(Sample(page, "zs_tick_duration_seconds_count"), 5);
  EXPECT_NEAR(Sample(page, "zs_tick_duration_seconds_sum"), 2.3081, 1e-5);
}

}  // namespace
}  // namespace zs::net
