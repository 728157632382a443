// client_sim: many bots over real TCP against a zone server, speaking only the public protocol.
//
//   client_sim --port 7777 --bots 500 --ramp 200 --duration 30 --scenario crowd --report r.json
//
// Prints one progress line per second (an updating line on a terminal), then a summary, and
// writes a JSON report, both with client_sim's own CPU use (it shares the machine with the
// server). Exits 1 when protocol violations or failed logins exceed the thresholds, so scripts
// and CI can use it. SIGINT or SIGTERM (`docker stop`, Ctrl-C) ends the run early the same way:
// the bots stop, then the summary, the report and the exit code as at the end of a full run; a
// second signal ends the process at once.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "auth/secret_file.h"
#include "auth/token.h"
#include "client_sim/bot.h"
#include "client_sim/report.h"
#include "client_sim/stats.h"

namespace {

using zs::sim::CpuUse;
using zs::sim::Quantile;
using zs::sim::Results;
using zs::sim::Scenario;
using Clock = std::chrono::steady_clock;

struct Options {
  zs::sim::BotOptions bot;
  uint32_t bots = 100;
  uint32_t first_bot = 0;  // bot i is "bot<first_bot + i>" (several client_sims, one world)
  double ramp = 100;
  double duration = 30;
  std::string scenario = "wander";
  std::string transport = "tcp";
  std::string report_path;
  uint64_t seed = 1;
  uint64_t max_violations = 0;
  uint64_t max_failed_logins = 0;
  unsigned threads = 2;
  std::string token_secret_file;
};

// CPU time this process has used so far (getrusage RUSAGE_SELF: all threads).
CpuUse CpuUseNow() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return CpuUse{.user_s = seconds(u.ru_utime), .system_s = seconds(u.ru_stime)};
}

unsigned long long Ull(uint64_t v) { return static_cast<unsigned long long>(v); }

// A figure in ms for the console, or "n/a" when there was nothing to measure (NaN).
std::string Ms(double v) {
  if (std::isnan(v)) return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", v);
  return text;
}

// The signal that asked the run to end (0: none yet). Written by the handler, read by the main
// thread's loop in RunBots.
std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "written from a signal handler");

void OnStopSignal(int signal) { g_stop_signal.store(signal, std::memory_order_relaxed); }

// SIGINT and SIGTERM end the run early; SA_RESETHAND: a second one has the default effect
// (the process ends at once). Called before any thread starts, so every thread inherits it.
void InstallStopHandlers() {
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

const char* SignalName(int signal) {
  return signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal";
}

void AddOptions(CLI::App* cli, Options* o) {
  cli->add_option("--host", o->bot.host, "Server address")->capture_default_str();
  cli->add_option("-p,--port", o->bot.port,
                  "Server game port (with --transport ws: its WebSocket door's port)")
      ->capture_default_str();
  cli->add_option("--transport", o->transport,
                  "tcp (the game port, varint frames) or ws (the WebSocket door: the upgrade, "
                  "then one binary message per frame); ws cannot follow hand-offs (zones)")
      ->capture_default_str()
      ->check(CLI::IsMember({"tcp", "ws"}));
  cli->add_option("--first-bot", o->first_bot,
                  "Bot i logs in as bot<first-bot + i> (several client_sims against one world)")
      ->capture_default_str()
      ->check(CLI::Range(0u, 1000000000u));
  cli->add_option("-n,--bots", o->bots, "Number of bots")
      ->capture_default_str()
      ->check(CLI::Range(1u, 100000u));
  cli->add_option("--ramp", o->ramp, "Ramp-up rate, bots per second")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cli->add_option("-d,--duration", o->duration, "Seconds to run after the ramp-up")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cli->add_option("-s,--scenario", o->scenario,
                  "wander, crowd, raid, churn, zones, spread or border")
      ->capture_default_str()
      ->check(CLI::IsMember({"wander", "crowd", "raid", "churn", "zones", "spread", "border"}));
  cli->add_option("--verify-every", o->bot.verify_every,
                  "Bot i fully parses and checks every message when i % K == 0; the others "
                  "read only tick numbers and their own position (1 = every bot verifies)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1000000u));
  cli->add_option("--input-rate", o->bot.input_rate, "Direction changes per bot per second")
      ->capture_default_str();
  cli->add_option("--say-rate", o->bot.say_rate,
                  "Chat `say` lines per verifying bot per second; each line is checked to reach "
                  "exactly the verifying bots within the zone's chat radius")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cli->add_option("--swing-rate", o->bot.swing_rate, "Swings per bot per second")
      ->capture_default_str();
  cli->add_option("--churn-min", o->bot.churn_min_s, "churn: seconds a bot stays at least")
      ->capture_default_str()
      ->check(CLI::Range(0.05, 3600.0));
  cli->add_option("--churn-max", o->bot.churn_max_s, "churn: ... and at most")
      ->capture_default_str()
      ->check(CLI::Range(0.05, 3600.0));
  cli->add_option("--seed", o->seed, "Random seed")->capture_default_str();
  cli->add_option("--report", o->report_path, "Write a JSON report here");
  cli->add_option("--max-violations", o->max_violations,
                  "Exit 1 above this many protocol violations")
      ->capture_default_str();
  cli->add_option("--max-failed-logins", o->max_failed_logins,
                  "Exit 1 above this many failed logins")
      ->capture_default_str();
  cli->add_option("--threads", o->threads,
                  "I/O threads, each with its own event loop and its share of the bots")
      ->capture_default_str()
      ->check(CLI::Range(1u, 64u));
  cli->add_option("--token-secret-file", o->token_secret_file,
                  "Server in auth mode token: sign each bot's login token with the secret in "
                  "this file (the server's auth.secret_file)");
  cli->add_option("--token-account-base", o->bot.token_account_base,
                  "Token mode: bot i logs in as account base + i")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 62));
}

// The bots' token signer, from --token-secret-file (nullopt: none asked for). Exits 2 with the
// reason when the file cannot be read or the secret is too short.
std::optional<zs::auth::TokenCodec> TokenSigner(const std::string& path) {
  if (path.empty()) return std::nullopt;
  std::optional<std::string> secret = zs::auth::ReadSecretFile(path);
  if (!secret || secret->size() < zs::auth::kMinSecretBytes) {
    std::fprintf(stderr, "client_sim: --token-secret-file %s: %s\n", path.c_str(),
                 secret ? "the secret must be at least 32 bytes" : "cannot be read");
    std::exit(2);
  }
  return zs::auth::TokenCodec(std::move(*secret));
}

Scenario ScenarioNamed(const std::string& name) {
  static const std::map<std::string, Scenario> kScenarios = {
      {"wander", Scenario::kWander}, {"crowd", Scenario::kCrowd}, {"raid", Scenario::kRaid},
      {"churn", Scenario::kChurn},   {"zones", Scenario::kZones}, {"spread", Scenario::kSpread},
      {"border", Scenario::kBorder}};
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
        "KB/s in %8.1f out %6.1f | rtt p50 %5s p99 %6s ms | cpu %3.0f%% | violations %llu%s",
        tty_ ? "\r" : "", elapsed, Ull(stats.connected.load()), Ull(stats.in_world.load()),
        static_cast<double>(tk - last_ticks_), Ull(mi - last_msgs_in_), Ull(mo - last_msgs_out_),
        static_cast<double>(in - last_in_) / 1024, static_cast<double>(out - last_out_) / 1024,
        Ms(p50).c_str(), Ms(p99).c_str(), cpu_pct, Ull(stats.TotalViolations()), tty_ ? "" : "\n");
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

// Starts the bots at the ramp rate and runs them for the duration, or until SIGINT/SIGTERM;
// returns the wall seconds.
double RunBots(const Options& o, std::span<std::unique_ptr<boost::asio::io_context>> loops,
               zs::sim::Stats& stats, zs::sim::ChatCheck* chat,
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
          *loops[all->size() % loops.size()], o.bot, &stats,
          o.first_bot + static_cast<uint32_t>(all->size()), o.seed * 1000003 + all->size(), chat));
      all->back()->Start();
    }
    if (Clock::now() >= next_print) {
      next_print += std::chrono::seconds(1);
      progress.Print(stats, elapsed);
    }
    if (elapsed >= total_s) break;
    if (const int signal = g_stop_signal.load(std::memory_order_relaxed); signal != 0) {
      std::printf("%sclient_sim: %s after %.1f s: stopping the bots\n", tty ? "\n" : "",
                  SignalName(signal), elapsed);
      std::fflush(stdout);
      return std::chrono::duration<double>(Clock::now() - start).count();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (tty) std::printf("\n");
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// REQUIRES: stats.mu held (Summarise, ReportJson and PrintSummary read the samples).
// `bots_started`: fewer than o.bots when a signal ended the ramp-up; `stop_signal`: the signal
// that ended the run early, or 0.
Results Summarise(const Options& o, const zs::sim::Stats& stats, double run_s, size_t bots_started,
                  int stop_signal, Clock::time_point process_start) {
  Results r;
  r.run_s = run_s;
  if (stop_signal != 0) r.stopped_by = SignalName(stop_signal);
  r.wall_s = std::chrono::duration<double>(Clock::now() - process_start).count();
  r.cpu = CpuUseNow();
  for (double v : stats.tick_interval_ms) r.mean_interval += v;
  if (!stats.tick_interval_ms.empty()) {
    r.mean_interval /= static_cast<double>(stats.tick_interval_ms.size());
  }
  for (double v : stats.tick_interval_ms) r.jitter.push_back(std::abs(v - r.mean_interval));
  r.rtt_max = Quantile(stats.rtt_ms, 1.0);  // NaN without a sample
  for (const auto& [k, v] : stats.violations) r.violations += v;
  // Rates per bot and second count the time after the ramp-up: the duration, or what a signal
  // left of it.
  const double started = static_cast<double>(bots_started);
  const double played_s =
      stop_signal == 0 ? o.duration : std::clamp(run_s - started / o.ramp, 0.0, o.duration);
  r.bot_seconds = std::max(1.0, started * played_s);
  return r;
}

uint32_t VerifyingBots(const Options& o) {
  return (o.bots + o.bot.verify_every - 1) / o.bot.verify_every;
}

void PrintSummary(const Options& o, const zs::sim::Stats& stats, const Results& r) {
  const std::vector<double>& rtt = stats.rtt_ms;
  std::printf(
      "client_sim %s: %u bots (%u verifying), %.0f s | logins ok %llu failed %llu | rtt p50 %s "
      "p99 %s p99.9 %s max %s ms | tick jitter p99 %s ms | per bot: %.0f B/s in, %.0f B/s "
      "out | crowd summaries %llu | cpu %.1f s (user %.1f, system %.1f) = %.0f%% | violations "
      "%llu\n",
      o.scenario.c_str(), o.bots, VerifyingBots(o), r.run_s, Ull(stats.logins_ok.load()),
      Ull(stats.logins_failed.load()), Ms(Quantile(rtt, 0.5)).c_str(),
      Ms(Quantile(rtt, 0.99)).c_str(), Ms(Quantile(rtt, 0.999)).c_str(), Ms(r.rtt_max).c_str(),
      Ms(Quantile(r.jitter, 0.99)).c_str(),
      static_cast<double>(stats.bytes_in.load()) / r.bot_seconds,
      static_cast<double>(stats.bytes_out.load()) / r.bot_seconds,
      Ull(stats.crowd_summaries.load()), r.cpu.total(), r.cpu.user_s, r.cpu.system_s,
      r.cpu_percent(), Ull(r.violations));
  if (stats.handoffs.load() != 0) {
    const std::vector<double>& h = stats.handoff_ms;
    std::printf(
        "  hand-offs to other servers: %llu followed, %llu failed | latency (last tick in the old "
        "zone -> first tick from the new server) p50 %s p99 %s max %s ms\n",
        Ull(stats.handoffs.load()), Ull(stats.handoffs_failed.load()), Ms(Quantile(h, 0.5)).c_str(),
        Ms(Quantile(h, 0.99)).c_str(), Ms(Quantile(h, 1.0)).c_str());
  }
  if (!r.stopped_by.empty()) {
    std::printf("  stopped early by %s after %.1f s\n", r.stopped_by.c_str(), r.run_s);
  }
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
  o.bot.transport = o.transport == "ws" ? zs::sim::Transport::kWebSocket : zs::sim::Transport::kTcp;
  if (o.bot.transport == zs::sim::Transport::kWebSocket && o.bot.scenario == Scenario::kZones) {
    // A ZoneChanged names the next server's game port (TCP), not its WebSocket door.
    std::fprintf(stderr, "client_sim: --transport ws cannot follow hand-offs: not with zones\n");
    return 2;
  }
  const std::optional<zs::auth::TokenCodec> tokens = TokenSigner(o.token_secret_file);
  if (tokens) o.bot.tokens = &*tokens;
  InstallStopHandlers();

  // One event loop per thread, each with its share of the bots: a bot's handlers never cross
  // threads, so no loop hands work to another (one shared loop woke a thread per frame).
  std::vector<std::unique_ptr<boost::asio::io_context>> loops;
  for (unsigned i = 0; i < o.threads; ++i) {
    loops.push_back(std::make_unique<boost::asio::io_context>(1));  // hint: one thread runs it
  }
  {  // resolve once: bots connect to an address (the host may be a name, e.g. in compose)
    boost::system::error_code ec;
    boost::asio::ip::tcp::resolver resolver(*loops[0]);
    const auto found = resolver.resolve(o.bot.host, std::to_string(o.bot.port), ec);
    if (ec || found.empty()) {
      std::fprintf(stderr, "client_sim: cannot resolve %s: %s\n", o.bot.host.c_str(),
                   ec.message().c_str());
      return 2;
    }
    o.bot.host = found.begin()->endpoint().address().to_string();
  }
  std::vector<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work;
  std::vector<std::thread> pool;
  for (const auto& loop : loops) {
    work.push_back(boost::asio::make_work_guard(*loop));
    pool.emplace_back([&io = *loop] { io.run(); });
  }

  zs::sim::Stats stats;
  std::vector<std::shared_ptr<zs::sim::Bot>> all;
  zs::sim::ChatCheck chat;
  const double run_s = RunBots(o, loops, stats, &chat, &all);
  for (auto& b : all) b->Stop();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  work.clear();
  for (const auto& loop : loops) loop->stop();
  for (auto& t : pool) t.join();

  std::lock_guard lock(stats.mu);
  for (const auto& [kind, n] : chat.Check()) stats.violations[kind] += n;
  stats.says_checked = chat.lines();
  const Results r = Summarise(o, stats, run_s, all.size(),
                              g_stop_signal.load(std::memory_order_relaxed), process_start);
  PrintSummary(o, stats, r);
  if (!o.report_path.empty()) {
    const zs::sim::RunInfo run{.scenario = o.scenario,
                               .transport = o.transport,
                               .bots = o.bots,
                               .verify_every = o.bot.verify_every,
                               .verifying_bots = VerifyingBots(o)};
    std::ofstream(o.report_path) << zs::sim::ReportJson(run, stats, r);
  }
  const bool ok =
      r.violations <= o.max_violations && stats.logins_failed.load() <= o.max_failed_logins;
  if (!ok) {
    std::printf("client_sim: FAILED thresholds (violations <= %llu, failed logins <= %llu)\n",
                Ull(o.max_violations), Ull(o.max_failed_logins));
  }
  return ok ? 0 : 1;
}
