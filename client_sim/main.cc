// client_sim: many bots over real TCP against a zone server, speaking only the public protocol.
//
//   client_sim --port 7777 --bots 500 --ramp 200 --duration 30 --scenario crowd --report r.json
//
// Prints one progress line per second (an updating line on a terminal), then a summary, and
// writes a JSON report, both with client_sim's own CPU use (it shares the machine with the
// server). Exits 1 when protocol violations or failed logins exceed the thresholds, so scripts
// and CI can use it.
#include <sys/resource.h>
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

struct Options {
  zs::sim::BotOptions bot;
  uint32_t bots = 100;
  double ramp = 100;
  double duration = 30;
  std::string scenario = "wander";
  std::string report_path;
  uint64_t seed = 1;
  uint64_t max_violations = 0;
  uint64_t max_failed_logins = 0;
  unsigned threads = 2;
};

// CPU time this process has used so far (getrusage RUSAGE_SELF: all threads).
struct CpuUse {
  double user_s = 0;
  double system_s = 0;
  [[nodiscard]] double total() const { return user_s + system_s; }
};

CpuUse CpuUseNow() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return CpuUse{.user_s = seconds(u.ru_utime), .system_s = seconds(u.ru_stime)};
}

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

unsigned long long Ull(uint64_t v) { return static_cast<unsigned long long>(v); }

void AddOptions(CLI::App* cli, Options* o) {
  cli->add_option("--host", o->bot.host, "Server address")->capture_default_str();
  cli->add_option("-p,--port", o->bot.port, "Server game port")->capture_default_str();
  cli->add_option("-n,--bots", o->bots, "Number of bots")
      ->capture_default_str()
      ->check(CLI::Range(1u, 100000u));
  cli->add_option("--ramp", o->ramp, "Ramp-up rate, bots per second")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cli->add_option("-d,--duration", o->duration, "Seconds to run after the ramp-up")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cli->add_option("-s,--scenario", o->scenario, "wander, crowd, raid, churn, zones or spread")
      ->capture_default_str()
      ->check(CLI::IsMember({"wander", "crowd", "raid", "churn", "zones", "spread"}));
  cli->add_option("--verify-every", o->bot.verify_every,
                  "Bot i fully parses and checks every message when i % K == 0; the others "
                  "read only tick numbers and their own position (1 = every bot verifies)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1000000u));
  cli->add_option("--input-rate", o->bot.input_rate, "Direction changes per bot per second")
      ->capture_default_str();
  cli->add_option("--swing-rate", o->bot.swing_rate, "Swings per bot per second")
      ->capture_default_str();
  cli->add_option("--seed", o->seed, "Random seed")->capture_default_str();
  cli->add_option("--report", o->report_path, "Write a JSON report here");
  cli->add_option("--max-violations", o->max_violations,
                  "Exit 1 above this many protocol violations")
      ->capture_default_str();
  cli->add_option("--max-failed-logins", o->max_failed_logins,
                  "Exit 1 above this many failed logins")
      ->capture_default_str();
  cli->add_option("--threads", o->threads, "I/O threads")
      ->capture_default_str()
      ->check(CLI::Range(1u, 64u));
}

Scenario ScenarioNamed(const std::string& name) {
  static const std::map<std::string, Scenario> kScenarios = {
      {"wander", Scenario::kWander}, {"crowd", Scenario::kCrowd}, {"raid", Scenario::kRaid},
      {"churn", Scenario::kChurn},   {"zones", Scenario::kZones}, {"spread", Scenario::kSpread}};
  return kScenarios.at(name);
}

// The progress line: rates since the previous line.
class Progress {
 public:
  explicit Progress(bool tty) : tty_(tty), last_cpu_(CpuUseNow()) {}

  void Print(zs::sim::Stats& stats, double elapsed) {
    const uint64_t in = stats.bytes_in.load(), out = stats.bytes_out.load();
    const uint64_t mi = stats.messages_in.load(), mo = stats.messages_out.load();
    const uint64_t tk = stats.ticks.load();
    const CpuUse cpu = CpuUseNow();
    const double cpu_pct = 100 * (cpu.total() - last_cpu_.total()) / (elapsed - last_elapsed_);
    double p50 = 0, p99 = 0;
    {
      std::lock_guard lock(stats.mu);
      const auto keep = static_cast<std::ptrdiff_t>(std::min<size_t>(stats.rtt_ms.size(), 20000));
      std::vector<double> tail(stats.rtt_ms.end() - keep, stats.rtt_ms.end());
      p50 = Quantile(tail, 0.5);
      p99 = Quantile(tail, 0.99);
    }
    std::printf(
        "%s[%5.0fs] bots %llu/%llu in world | %6.0f ticks/s | msgs/s in %7llu out %6llu | "
        "KB/s in %8.1f out %6.1f | rtt p50 %5.1f p99 %6.1f ms | cpu %3.0f%% | violations %llu%s",
        tty_ ? "\r" : "", elapsed, Ull(stats.connected.load()), Ull(stats.in_world.load()),
        static_cast<double>(tk - last_ticks_), Ull(mi - last_msgs_in_), Ull(mo - last_msgs_out_),
        static_cast<double>(in - last_in_) / 1024, static_cast<double>(out - last_out_) / 1024, p50,
        p99, cpu_pct, Ull(stats.TotalViolations()), tty_ ? "" : "\n");
    std::fflush(stdout);
    last_in_ = in, last_out_ = out, last_msgs_in_ = mi, last_msgs_out_ = mo, last_ticks_ = tk;
    last_cpu_ = cpu;
    last_elapsed_ = elapsed;
  }

 private:
  bool tty_;
  CpuUse last_cpu_;
  double last_elapsed_ = 0;
  uint64_t last_in_ = 0, last_out_ = 0, last_msgs_in_ = 0, last_msgs_out_ = 0, last_ticks_ = 0;
};

// Starts the bots at the ramp rate and runs them for the duration; returns the wall seconds.
double RunBots(const Options& o, boost::asio::io_context& io, zs::sim::Stats& stats,
               std::vector<std::shared_ptr<zs::sim::Bot>>* all) {
  const bool tty = ::isatty(1) != 0;
  Progress progress(tty);
  const auto start = Clock::now();
  const double total_s = o.bots / o.ramp + o.duration;
  auto next_print = start + std::chrono::seconds(1);
  for (;;) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const auto want =
        static_cast<uint32_t>(std::min<double>(o.bots, std::floor(elapsed * o.ramp) + 1));
    while (all->size() < want) {
      all->push_back(std::make_shared<zs::sim::Bot>(
          io, o.bot, &stats, static_cast<uint32_t>(all->size()), o.seed * 1000003 + all->size()));
      all->back()->Start();
    }
    if (Clock::now() >= next_print) {
      next_print += std::chrono::seconds(1);
      progress.Print(stats, elapsed);
    }
    if (elapsed >= total_s) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (tty) std::printf("\n");
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// What the summary and the report share.
struct Results {
  double run_s = 0;   // ramp-up and duration
  double wall_s = 0;  // the whole process so far, over which `cpu` was used
  CpuUse cpu;
  double mean_interval = 0;
  std::vector<double> jitter;  // |inter-arrival - mean interval|
  double rtt_max = 0;
  uint64_t violations = 0;
  double bot_seconds = 1;
  [[nodiscard]] double cpu_percent() const { return 100 * cpu.total() / std::max(wall_s, 1e-9); }
};

// REQUIRES: stats.mu held (Summarise, Report and PrintSummary read the samples).
Results Summarise(const Options& o, const zs::sim::Stats& stats, double run_s,
                  Clock::time_point process_start) {
  Results r;
  r.run_s = run_s;
  r.wall_s = std::chrono::duration<double>(Clock::now() - process_start).count();
  r.cpu = CpuUseNow();
  for (double v : stats.tick_interval_ms) r.mean_interval += v;
  if (!stats.tick_interval_ms.empty()) {
    r.mean_interval /= static_cast<double>(stats.tick_interval_ms.size());
  }
  for (double v : stats.tick_interval_ms) r.jitter.push_back(std::abs(v - r.mean_interval));
  for (double v : stats.rtt_ms) r.rtt_max = std::max(r.rtt_max, v);
  for (const auto& [k, v] : stats.violations) r.violations += v;
  r.bot_seconds = std::max(1.0, static_cast<double>(o.bots) * o.duration);
  return r;
}

uint32_t VerifyingBots(const Options& o) {
  return (o.bots + o.bot.verify_every - 1) / o.bot.verify_every;
}

// The JSON report. "violations_total" stays the last key (tests match it with its newline).
std::string Report(const Options& o, const zs::sim::Stats& stats, const Results& r) {
  const std::vector<double>& rtt = stats.rtt_ms;
  const auto per_bot_s = [&r](const std::atomic<uint64_t>& v) {
    return static_cast<double>(v.load()) / r.bot_seconds;
  };
  std::ostringstream json;
  json << "{\n  \"scenario\": " << JsonString(o.scenario) << ",\n  \"bots\": " << o.bots
       << ",\n  \"verify_every\": " << o.bot.verify_every
       << ",\n  \"verifying_bots\": " << VerifyingBots(o) << ",\n  \"duration_s\": " << r.run_s
       << ",\n  \"logins_ok\": " << stats.logins_ok.load()
       << ",\n  \"logins_failed\": " << stats.logins_failed.load()
       << ",\n  \"rtt_ms\": {\"samples\": " << rtt.size() << ", \"p50\": " << Quantile(rtt, 0.5)
       << ", \"p90\": " << Quantile(rtt, 0.9) << ", \"p99\": " << Quantile(rtt, 0.99)
       << ", \"p999\": " << Quantile(rtt, 0.999) << ", \"max\": " << r.rtt_max << "}"
       << ",\n  \"tick_interval_ms\": {\"mean\": " << r.mean_interval
       << ", \"jitter_p50\": " << Quantile(r.jitter, 0.5)
       << ", \"jitter_p99\": " << Quantile(r.jitter, 0.99)
       << "},\n  \"ticks_received\": " << stats.ticks.load()
       << ",\n  \"crowd_summaries\": " << stats.crowd_summaries.load()
       << ",\n  \"crowd_total\": " << stats.crowd_total.load()
       << ",\n  \"bytes_in_per_bot_s\": " << per_bot_s(stats.bytes_in)
       << ",\n  \"bytes_out_per_bot_s\": " << per_bot_s(stats.bytes_out)
       << ",\n  \"messages_in_per_bot_s\": " << per_bot_s(stats.messages_in)
       << ",\n  \"messages_out_per_bot_s\": " << per_bot_s(stats.messages_out)
       << ",\n  \"cpu_s\": {\"user\": " << r.cpu.user_s << ", \"system\": " << r.cpu.system_s
       << ", \"total\": " << r.cpu.total() << "},\n  \"cpu_percent\": " << r.cpu_percent()
       << ",\n  \"errors\": " << JsonMap(stats.errors)
       << ",\n  \"disconnects\": " << JsonMap(stats.disconnects)
       << ",\n  \"violations\": " << JsonMap(stats.violations)
       << ",\n  \"violations_total\": " << r.violations << "\n}\n";
  return json.str();
}

void PrintSummary(const Options& o, const zs::sim::Stats& stats, const Results& r) {
  const std::vector<double>& rtt = stats.rtt_ms;
  std::printf(
      "client_sim %s: %u bots (%u verifying), %.0f s | logins ok %llu failed %llu | rtt p50 %.1f "
      "p99 %.1f p99.9 %.1f max %.1f ms | tick jitter p99 %.1f ms | per bot: %.0f B/s in, %.0f B/s "
      "out | crowd summaries %llu | cpu %.1f s (user %.1f, system %.1f) = %.0f%% | violations "
      "%llu\n",
      o.scenario.c_str(), o.bots, VerifyingBots(o), r.run_s, Ull(stats.logins_ok.load()),
      Ull(stats.logins_failed.load()), Quantile(rtt, 0.5), Quantile(rtt, 0.99),
      Quantile(rtt, 0.999), r.rtt_max, Quantile(r.jitter, 0.99),
      static_cast<double>(stats.bytes_in.load()) / r.bot_seconds,
      static_cast<double>(stats.bytes_out.load()) / r.bot_seconds,
      Ull(stats.crowd_summaries.load()), r.cpu.total(), r.cpu.user_s, r.cpu.system_s,
      r.cpu_percent(), Ull(r.violations));
  for (const auto& [k, v] : stats.violations)
    std::printf("  violation %s: %llu\n", k.c_str(), Ull(v));
  for (const auto& [k, v] : stats.errors)
    std::printf("  server said %s: %llu\n", k.c_str(), Ull(v));
  for (const auto& [k, v] : stats.disconnects) {
    std::printf("  disconnected (%s): %llu\n", k.c_str(), Ull(v));
  }
}

}  // namespace

// An exception that gets this far ends the run with its message.
// NOLINTNEXTLINE(bugprone-exception-escape)
int main(int argc, char** argv) {
  const auto process_start = Clock::now();
  CLI::App cli{"client_sim: load generator and protocol checker for zone_server"};
  Options o;
  AddOptions(&cli, &o);
  CLI11_PARSE(cli, argc, argv);
  o.bot.scenario = ScenarioNamed(o.scenario);

  boost::asio::io_context io;
  {  // resolve once: bots connect to an address (the host may be a name, e.g. in compose)
    boost::system::error_code ec;
    boost::asio::ip::tcp::resolver resolver(io);
    const auto found = resolver.resolve(o.bot.host, std::to_string(o.bot.port), ec);
    if (ec || found.empty()) {
      std::fprintf(stderr, "client_sim: cannot resolve %s: %s\n", o.bot.host.c_str(),
                   ec.message().c_str());
      return 2;
    }
    o.bot.host = found.begin()->endpoint().address().to_string();
  }
  auto work = boost::asio::make_work_guard(io);
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < o.threads; ++i) pool.emplace_back([&io] { io.run(); });

  zs::sim::Stats stats;
  std::vector<std::shared_ptr<zs::sim::Bot>> all;
  const double run_s = RunBots(o, io, stats, &all);
  for (auto& b : all) b->Stop();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  work.reset();
  io.stop();
  for (auto& t : pool) t.join();

  std::lock_guard lock(stats.mu);
  const Results r = Summarise(o, stats, run_s, process_start);
  PrintSummary(o, stats, r);
  if (!o.report_path.empty()) std::ofstream(o.report_path) << Report(o, stats, r);
  const bool ok =
      r.violations <= o.max_violations && stats.logins_failed.load() <= o.max_failed_logins;
  if (!ok) {
    std::printf("client_sim: FAILED thresholds (violations <= %llu, failed logins <= %llu)\n",
                Ull(o.max_violations), Ull(o.max_failed_logins));
  }
  return ok ? 0 : 1;
}
