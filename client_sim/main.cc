// client_sim: many bots over real TCP against a zone server, speaking only the public protocol.
//
//   client_sim --port 7777 --bots 500 --ramp 200 --duration 30 --scenario crowd --report r.json
//
// Prints one progress line per second (an updating line on a terminal), then a summary, and
// writes a JSON report. Exits 1 when protocol violations or failed logins exceed the
// thresholds, so scripts and CI can use it.
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include "client_sim/bot.h"
#include "client_sim/stats.h"

namespace {

using zs::sim::Quantile;
using zs::sim::Scenario;
using Clock = std::chrono::steady_clock;

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out + "\"";
}

std::string JsonMap(const std::map<std::string, uint64_t>& m) {
  std::string out = "{";
  for (const auto& [k, v] : m) {
    if (out.size() > 1) out += ", ";
    out += JsonString(k) + ": " + std::to_string(v);
  }
  return out + "}";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App cli{"client_sim: load generator and protocol checker for zone_server"};
  zs::sim::BotOptions bot;
  uint32_t bots = 100;
  double ramp = 100, duration = 30;
  std::string scenario = "wander", report_path;
  uint64_t seed = 1;
  uint64_t max_violations = 0, max_failed_logins = 0;
  unsigned threads = 2;
  cli.add_option("--host", bot.host, "Server address")->capture_default_str();
  cli.add_option("-p,--port", bot.port, "Server game port")->capture_default_str();
  cli.add_option("-n,--bots", bots, "Number of bots")
      ->capture_default_str()
      ->check(CLI::Range(1u, 100000u));
  cli.add_option("--ramp", ramp, "Ramp-up rate, bots per second")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cli.add_option("-d,--duration", duration, "Seconds to run after the ramp-up")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cli.add_option("-s,--scenario", scenario, "wander, crowd, raid, churn or zones")
      ->capture_default_str()
      ->check(CLI::IsMember({"wander", "crowd", "raid", "churn", "zones"}));
  cli.add_option("--input-rate", bot.input_rate, "Direction changes per bot per second")
      ->capture_default_str();
  cli.add_option("--swing-rate", bot.swing_rate, "Swings per bot per second")
      ->capture_default_str();
  cli.add_option("--seed", seed, "Random seed")->capture_default_str();
  cli.add_option("--report", report_path, "Write a JSON report here");
  cli.add_option("--max-violations", max_violations, "Exit 1 above this many protocol violations")
      ->capture_default_str();
  cli.add_option("--max-failed-logins", max_failed_logins, "Exit 1 above this many failed logins")
      ->capture_default_str();
  cli.add_option("--threads", threads, "I/O threads")
      ->capture_default_str()
      ->check(CLI::Range(1u, 64u));
  CLI11_PARSE(cli, argc, argv);
  const std::map<std::string, Scenario> scenarios = {{"wander", Scenario::kWander},
                                                     {"crowd", Scenario::kCrowd},
                                                     {"raid", Scenario::kRaid},
                                                     {"churn", Scenario::kChurn},
                                                     {"zones", Scenario::kZones}};
  bot.scenario = scenarios.at(scenario);

  boost::asio::io_context io;
  {  // resolve once: bots connect to an address (the host may be a name, e.g. in compose)
    boost::system::error_code ec;
    boost::asio::ip::tcp::resolver resolver(io);
    const auto found = resolver.resolve(bot.host, std::to_string(bot.port), ec);
    if (ec || found.empty()) {
      std::fprintf(stderr, "client_sim: cannot resolve %s: %s\n", bot.host.c_str(),
                   ec.message().c_str());
      return 2;
    }
    bot.host = found.begin()->endpoint().address().to_string();
  }
  auto work = boost::asio::make_work_guard(io);
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < threads; ++i) pool.emplace_back([&io] { io.run(); });

  zs::sim::Stats stats;
  std::vector<std::shared_ptr<zs::sim::Bot>> all;
  const bool tty = ::isatty(1) != 0;
  const auto start = Clock::now();
  const double ramp_s = bots / ramp;
  const double total_s = ramp_s + duration;
  uint64_t last_in = 0, last_out = 0, last_msgs_in = 0, last_msgs_out = 0, last_ticks = 0;
  auto next_print = start + std::chrono::seconds(1);
  for (;;) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const auto want = static_cast<uint32_t>(std::min<double>(bots, std::floor(elapsed * ramp) + 1));
    while (all.size() < want) {
      all.push_back(std::make_shared<zs::sim::Bot>(
          io, bot, &stats, static_cast<uint32_t>(all.size()), seed * 1000003 + all.size()));
      all.back()->Start();
    }
    if (Clock::now() >= next_print) {
      next_print += std::chrono::seconds(1);
      const uint64_t in = stats.bytes_in.load(), out = stats.bytes_out.load();
      const uint64_t mi = stats.messages_in.load(), mo = stats.messages_out.load();
      const uint64_t tk = stats.ticks.load();
      double p50 = 0, p99 = 0;
      {
        std::lock_guard lock(stats.mu);
        std::vector<double> tail(stats.rtt_ms.end() - std::min<size_t>(stats.rtt_ms.size(), 20000),
                                 stats.rtt_ms.end());
        p50 = Quantile(tail, 0.5);
        p99 = Quantile(tail, 0.99);
      }
      std::printf(
          "%s[%5.0fs] bots %llu/%llu in world | %6.0f ticks/s | msgs/s in %7llu out %6llu | "
          "KB/s in %8.1f out %6.1f | rtt p50 %5.1f p99 %6.1f ms | violations %llu%s",
          tty ? "\r" : "", elapsed, static_cast<unsigned long long>(stats.connected.load()),
          static_cast<unsigned long long>(stats.in_world.load()),
          static_cast<double>(tk - last_ticks), static_cast<unsigned long long>(mi - last_msgs_in),
          static_cast<unsigned long long>(mo - last_msgs_out),
          static_cast<double>(in - last_in) / 1024, static_cast<double>(out - last_out) / 1024, p50,
          p99, static_cast<unsigned long long>(stats.TotalViolations()), tty ? "" : "\n");
      std::fflush(stdout);
      last_in = in, last_out = out, last_msgs_in = mi, last_msgs_out = mo, last_ticks = tk;
    }
    if (elapsed >= total_s) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const double run_s = std::chrono::duration<double>(Clock::now() - start).count();
  for (auto& b : all) b->Stop();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  work.reset();
  io.stop();
  for (auto& t : pool) t.join();
  if (tty) std::printf("\n");

  // ---- report ----
  std::lock_guard lock(stats.mu);
  const std::vector<double>& rtt = stats.rtt_ms;
  std::vector<double> jitter;  // |inter-arrival - mean interval|
  double mean_interval = 0;
  for (double v : stats.tick_interval_ms) mean_interval += v;
  if (!stats.tick_interval_ms.empty())
    mean_interval /= static_cast<double>(stats.tick_interval_ms.size());
  for (double v : stats.tick_interval_ms) jitter.push_back(std::abs(v - mean_interval));
  double rtt_max = 0;
  for (double v : rtt) rtt_max = std::max(rtt_max, v);
  uint64_t violations = 0;
  for (const auto& [k, v] : stats.violations) violations += v;
  const double bot_seconds = std::max(1.0, static_cast<double>(bots) * duration);
  std::ostringstream json;
  json << "{\n  \"scenario\": " << JsonString(scenario) << ",\n  \"bots\": " << bots
       << ",\n  \"duration_s\": " << run_s << ",\n  \"logins_ok\": " << stats.logins_ok.load()
       << ",\n  \"logins_failed\": " << stats.logins_failed.load()
       << ",\n  \"rtt_ms\": {\"samples\": " << rtt.size() << ", \"p50\": " << Quantile(rtt, 0.5)
       << ", \"p90\": " << Quantile(rtt, 0.9) << ", \"p99\": " << Quantile(rtt, 0.99)
       << ", \"p999\": " << Quantile(rtt, 0.999) << ", \"max\": " << rtt_max << "}"
       << ",\n  \"tick_interval_ms\": {\"mean\": " << mean_interval
       << ", \"jitter_p50\": " << Quantile(jitter, 0.5)
       << ", \"jitter_p99\": " << Quantile(jitter, 0.99)
       << "},\n  \"ticks_received\": " << stats.ticks.load() << ",\n  \"bytes_in_per_bot_s\": "
       << static_cast<double>(stats.bytes_in.load()) / bot_seconds
       << ",\n  \"bytes_out_per_bot_s\": "
       << static_cast<double>(stats.bytes_out.load()) / bot_seconds
       << ",\n  \"messages_in_per_bot_s\": "
       << static_cast<double>(stats.messages_in.load()) / bot_seconds
       << ",\n  \"messages_out_per_bot_s\": "
       << static_cast<double>(stats.messages_out.load()) / bot_seconds
       << ",\n  \"errors\": " << JsonMap(stats.errors)
       << ",\n  \"disconnects\": " << JsonMap(stats.disconnects)
       << ",\n  \"violations\": " << JsonMap(stats.violations)
       << ",\n  \"violations_total\": " << violations << "\n}\n";
  std::printf(
      "client_sim %s: %u bots, %.0f s | logins ok %llu failed %llu | rtt p50 %.1f p99 %.1f "
      "p99.9 %.1f max %.1f ms | tick jitter p99 %.1f ms | per bot: %.0f B/s in, %.0f B/s out | "
      "violations %llu\n",
      scenario.c_str(), bots, run_s, static_cast<unsigned long long>(stats.logins_ok.load()),
      static_cast<unsigned long long>(stats.logins_failed.load()), Quantile(rtt, 0.5),
      Quantile(rtt, 0.99), Quantile(rtt, 0.999), rtt_max, Quantile(jitter, 0.99),
      static_cast<double>(stats.bytes_in.load()) / bot_seconds,
      static_cast<double>(stats.bytes_out.load()) / bot_seconds,
      static_cast<unsigned long long>(violations));
  for (const auto& [k, v] : stats.violations)
    std::printf("  violation %s: %llu\n", k.c_str(), static_cast<unsigned long long>(v));
  for (const auto& [k, v] : stats.errors)
    std::printf("  server said %s: %llu\n", k.c_str(), static_cast<unsigned long long>(v));
  for (const auto& [k, v] : stats.disconnects)
    std::printf("  disconnected (%s): %llu\n", k.c_str(), static_cast<unsigned long long>(v));
  if (!report_path.empty()) std::ofstream(report_path) << json.str();
  const bool ok = violations <= max_violations && stats.logins_failed.load() <= max_failed_logins;
  if (!ok)
    std::printf("client_sim: FAILED thresholds (violations <= %llu, failed logins <= %llu)\n",
                static_cast<unsigned long long>(max_violations),
                static_cast<unsigned long long>(max_failed_logins));
  return ok ? 0 : 1;
}
