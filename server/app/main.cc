// zone_server: the authoritative MMO zone server.
//
//   zone_server [--config config/server.yaml] [--port N] [--admin-port N] ...   (--help)
//   zone_server token --account 42 --name Aria --ttl 300 [--config ...]   (mints a login token)
//
// Settings: the command line wins over the environment (ZS_ADMIN_LISTEN, ZS_ADMIN_PORT), which
// wins over the config file (server_config.h).
//
// Loads config/server.yaml and the world it names, listens for game clients (protobuf frames
// over TCP) and for the admin HTTP port, ticks the world at its tick rate, and shuts down
// gracefully on SIGINT/SIGTERM: stop accepting, kick every client with reason "shutdown",
// flush for at most limits.shutdown_flush_seconds, save every character (waiting at most
// storage.shutdown_timeout_seconds for the storage worker), exit 0.
#include <google/protobuf/stubs/logging.h>
#include <spdlog/cfg/env.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "admin/admin_http.h"
#include "admin/viewer_hub.h"
#include "admin/web_assets.h"
#include "agones/agones_sdk.h"
#include "app/cluster_setup.h"
#include "app/fd_budget.h"
#include "app/token_tool.h"
#include "auth/authenticator.h"
#include "config/config_loader.h"
#include "config/server_config.h"
#include "host/churn_log.h"
#include "host/metrics.h"
#include "host/zone_runners.h"
#include "net/io_loop.h"
#include "net/server.h"
#include "net/ws_handshake.h"
#include "storage/postgres_store.h"
#include "storage/sqlite_store.h"
#include "storage/storage_worker.h"
#include "wire/protocol.h"

#ifndef ZS_VERSION
#define ZS_VERSION "dev"
#endif

namespace {

using zs::config::ServerConfig;

// After the final flush's timeout, how long the storage worker may take to leave a database
// call it is inside (a commit that has just been sent).
constexpr double kStorageStopGraceSeconds = 2;

void ScheduleStats(boost::asio::steady_timer& timer, double interval_s, zs::host::Metrics& m,
                   uint64_t last_bytes_out) {
  timer.expires_after(std::chrono::milliseconds(static_cast<int64_t>(interval_s * 1000)));
  timer.async_wait([&timer, interval_s, &m, last_bytes_out](const boost::system::error_code& ec) {
    if (ec) return;
    const uint64_t out = m.traffic().bytes_out.value();
    spdlog::info(
        "stats: {} players, {} connections, tick p50 <= {:.1f} ms, p99 <= {:.1f} ms, "
        "{:.1f} KB/s out, {} overruns",
        m.players().online.value(), m.connections().open.value(), m.TickQuantile(0.5) * 1000,
        m.TickQuantile(0.99) * 1000,
        static_cast<double>(out - last_bytes_out) / 1024.0 / interval_s,
        m.ticks().overruns.value());
    ScheduleStats(timer, interval_s, m, out);
  });
}

// libprotobuf's own messages go through the log, at the log's level, instead of straight to
// stderr. Parse problems with a client's bytes (e.g. invalid UTF-8 in a string field) are the
// client's: the session answers them (BAD_NAME, BAD_TEXT, AUTH_FAILED, BAD_FRAME), so they are
// debug lines.
void ProtobufLog(google::protobuf::LogLevel level, const char* file, int line,
                 const std::string& message) {
  using google::protobuf::LogLevel;
  const bool parsing = std::string_view(file).find("wire_format") != std::string_view::npos;
  const spdlog::level::level_enum to = level == LogLevel::LOGLEVEL_INFO      ? spdlog::level::debug
                                       : parsing                             ? spdlog::level::debug
                                       : level == LogLevel::LOGLEVEL_WARNING ? spdlog::level::warn
                                                                             : spdlog::level::err;
  spdlog::log(to, "protobuf: {} ({}:{})", message, file, line);
}

// Raises the descriptor limit and clamps max_connections to what fits, saying so.
void FitConnectionsToDescriptors(ServerConfig* config) {
  const zs::app::FdBudget fds = zs::app::RaiseFdLimit(config->admin_max_connections);
  if (fds.limit != fds.soft_before) {
    spdlog::info("file descriptor limit raised from {} to {}", fds.soft_before, fds.limit);
  }
  if (config->limits.max_connections > fds.max_connections) {
    spdlog::warn(
        "max_connections {} does not fit in {} file descriptors ({} kept for the admin port and "
        "the server itself): clamped to {}",
        config->limits.max_connections, fds.limit, fds.reserved, fds.max_connections);
    config->limits.max_connections = fds.max_connections;
  }
}

// Where the zone viewer's page may be (admin/web_assets.h), in order.
std::vector<std::filesystem::path> ViewerDirs(const ServerConfig& config) {
  std::vector<std::filesystem::path> dirs;
  if (!config.admin_web_dir.empty()) dirs.emplace_back(config.admin_web_dir);
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back(exe.parent_path().parent_path() / "share/zone_server/web/viewer");
#ifdef ZS_SOURCE_WEB_DIR
  dirs.emplace_back(ZS_SOURCE_WEB_DIR);
#endif
  return dirs;
}

// The viewer's page and WebSocket on the admin port.
void EnableViewer(const ServerConfig& config, zs::admin::ViewerHub* hub,
                  zs::admin::WebAssets* assets, zs::admin::AdminHttp* admin) {
  std::string missing;
  if (!assets->Load(ViewerDirs(config), &missing)) spdlog::warn("/viewer is off: {}", missing);
  admin->EnableViewer(
      {.hub = hub, .assets = assets, .token = config.admin_token, .missing_assets = missing});
}

// The configured character store. Throws storage::StartupError (corrupt file, newer schema,
// unreachable server), which ends start-up with its message.
std::unique_ptr<zs::storage::CharacterStore> OpenStore(const zs::config::StorageConfig& c) {
  if (c.backend == zs::config::StorageBackend::kPostgres) {
    return zs::storage::OpenPostgresStore(c.postgres);
  }
  return zs::storage::OpenSqliteStore(c.sqlite_path);
}

// After the last connection closed and the runners stopped: every character still online goes
// to storage, and the worker gets at most storage.shutdown_timeout_seconds to write it all.
// false: the worker is still inside the database (it stopped answering) and was left there;
// the process must end with std::_Exit instead of waiting for it.
bool SaveOnShutdown(zs::host::ZoneRunners& runners, zs::storage::StorageWorker& storage,
                    double timeout_s) {
  runners.SaveEveryone();
  const auto start = std::chrono::steady_clock::now();
  if (storage.Flush(timeout_s)) {
    spdlog::info("characters saved ({:.0f} ms)",
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  } else {
    spdlog::error(
        "storage: {} characters could not be saved within storage.shutdown_timeout_seconds "
        "({} s); they keep their last checkpoint",
        storage.stats().unsaved, timeout_s);
  }
  if (storage.StopWithin(kStorageStopGraceSeconds)) return true;
  spdlog::error(
      "storage: the worker is still waiting for the database after {} s more; exiting "
      "without it",
      kStorageStopGraceSeconds);
  return false;
}

// AGONES_SDK_HTTP_PORT, read with the rest of the configuration: a bad value is a config error.
std::optional<zs::agones::AgonesSdkOptions> AgonesFromEnvironment() {
  try {
    return zs::agones::AgonesSdk::FromEnvironment([](const char* n) { return std::getenv(n); });
  } catch (const std::invalid_argument& e) {
    throw zs::config::ConfigError(e.what());
  }
}

// Under Agones (agones/agones_sdk.h): Ready now that both ports listen, then Health every
// agones.health_interval_seconds. nullptr outside Agones. Neither call waits for the sidecar.
std::unique_ptr<zs::agones::AgonesSdk> StartAgones(
    const std::optional<zs::agones::AgonesSdkOptions>& options, const zs::config::AgonesConfig& c) {
  if (!options) return nullptr;
  auto sdk = std::make_unique<zs::agones::AgonesSdk>(*options);
  sdk->Ready();
  sdk->StartHealth(std::chrono::milliseconds(std::lround(c.health_interval_seconds * 1000)));
  return sdk;
}

// The longest wait for the sidecar to acknowledge Shutdown at exit (it may be gone already).
constexpr std::chrono::seconds kAgonesShutdownTimeout{5};

// The command line: each set option overrides the environment and the config file.
struct Flags {
  std::string config_path = "config/server.yaml";
  std::optional<std::string> listen, admin_listen, world, log_level, port_file, storage_path;
  std::vector<std::string> zones;
  std::optional<uint16_t> port, admin_port, ws_port;
  std::optional<unsigned> io_threads;
  std::optional<uint32_t> io_batch_us;
  std::optional<unsigned> sim_threads;
  std::optional<uint32_t> tick_rate;
  std::optional<size_t> max_connections, max_per_ip;
  std::optional<uint32_t> ticks_per_send;
  bool standby = false;
};

void AddFlags(CLI::App& cli, Flags* f) {
  cli.add_option("-c,--config", f->config_path, "Server config file")->capture_default_str();
  cli.add_option("--listen", f->listen, "Game listen address (overrides listen.address)");
  cli.add_option("-p,--port", f->port, "Game port; 0 picks a free one (overrides listen.port)");
  cli.add_option("--ws-port", f->ws_port,
                 "WebSocket door's port (on the listen address); 0 picks a free one; turns the "
                 "door on (overrides websocket.port and websocket.enabled)");
  cli.add_option("--admin-listen", f->admin_listen,
                 "Admin HTTP address (overrides $ZS_ADMIN_LISTEN, then admin.address)");
  cli.add_option("--admin-port", f->admin_port,
                 "Admin HTTP port; 0 picks a free one (overrides $ZS_ADMIN_PORT, then admin.port)");
  cli.add_option("--world", f->world, "World config file (overrides world)");
  cli.add_flag("--standby", f->standby,
               "Cluster: host nothing until a zone of cluster.zones (or any zone) has no owner, "
               "then take it over (cluster.standby)");
  cli.add_option("--tick-rate", f->tick_rate, "Ticks per second (overrides the world's)")
      ->check(CLI::Range(1u, 120u));
  cli.add_option("--io-threads", f->io_threads, "Socket threads")->check(CLI::Range(1u, 64u));
  cli.add_option("--io-batch-us", f->io_batch_us,
                 "Microseconds a busy socket thread gathers work after it wakes; 0: none "
                 "(overrides io_batch_microseconds)")
      ->check(CLI::Range(0u, static_cast<uint32_t>(zs::net::kMaxIoBatchDelay.count())));
  cli.add_option("--sim-threads", f->sim_threads, "Tick worker threads; 0: one per core")
      ->check(CLI::Range(0u, 64u));
  cli.add_option("--max-connections", f->max_connections, "Global connection cap");
  cli.add_option("--max-connections-per-ip", f->max_per_ip, "Connection cap per client address");
  cli.add_option("--ticks-per-send", f->ticks_per_send,
                 "Tick frames sent together, in one send (overrides limits.ticks_per_send)")
      ->check(CLI::Range(1u, 8u));
  cli.add_option("--log-level", f->log_level, "trace, debug, info, warn or error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));
  cli.add_option("--zones", f->zones,
                 "Zones this node hosts, by name (overrides cluster.zones), e.g. --zones field")
      ->delimiter(',');
  cli.add_option("--storage-path", f->storage_path,
                 "SQLite file for characters (overrides storage.path; created on first run)");
  cli.add_option("--port-file", f->port_file,
                 "Write '<game port> <admin port>' (then ' <WebSocket port>' when its door is "
                 "open) here once listening (for scripts and tests)");
}

void ApplyFlags(const Flags& f, ServerConfig* config) {
  if (f.listen) config->listen_address = *f.listen;
  if (f.port) config->port = *f.port;
  if (f.ws_port) {
    config->websocket.enabled = true;
    config->websocket.port = *f.ws_port;
  }
  if (f.admin_listen) config->admin_address = *f.admin_listen;
  if (f.admin_port) config->admin_port = *f.admin_port;
  if (f.world) config->world_path = *f.world;
  if (f.io_threads) config->io_threads = *f.io_threads;
  if (f.io_batch_us) config->io_batch_us = *f.io_batch_us;
  if (f.sim_threads) config->sim_threads = *f.sim_threads;
  if (f.log_level) config->log_level = *f.log_level;
  if (f.max_connections) config->limits.max_connections = *f.max_connections;
  if (f.max_per_ip) config->limits.max_connections_per_ip = *f.max_per_ip;
  if (f.tick_rate) config->tick_rate = *f.tick_rate;
  if (f.ticks_per_send) config->limits.ticks_per_send = *f.ticks_per_send;
  if (f.storage_path) config->storage.sqlite_path = *f.storage_path;
  if (!f.zones.empty()) config->cluster.zones = f.zones;
  if (f.standby) config->cluster.standby = true;
}

// The world's durations were converted to ticks at its own rate: converts them to `rate`.
void RescaleTicks(uint32_t rate, zs::zone::WorldConfig* world) {
  const double scale = static_cast<double>(rate) / world->tick_rate;
  const auto rescale = [scale](uint32_t ticks) {
    return static_cast<uint32_t>(std::lround(ticks * scale));
  };
  for (auto& s : world->skills) s.cooldown_ticks = rescale(s.cooldown_ticks);
  world->player.respawn_ticks = rescale(world->player.respawn_ticks);
  for (auto& z : world->zones) {
    for (auto& g : z.spawns) g.respawn_ticks = rescale(g.respawn_ticks);
  }
  world->tick_rate = rate;
}

// Everything start-up reads before it opens anything: the server's settings (file, then the
// environment, then the flags), the world, and Agones' (from the environment).
struct Configs {
  ServerConfig server;
  zs::zone::WorldConfig world;
  std::optional<zs::agones::AgonesSdkOptions> agones;
};

// Throws config::ConfigError.
Configs LoadConfigs(const Flags& flags) {
  Configs c;
  c.server = zs::config::LoadServerConfig(flags.config_path);
  zs::config::ApplyEnvironment([](const char* name) { return std::getenv(name); }, &c.server);
  ApplyFlags(flags, &c.server);
  zs::config::CheckOpenDoor(c.server);
  c.agones = AgonesFromEnvironment();
  zs::app::CheckClusterConfig(c.server, c.agones.has_value());
  c.world = zs::config::LoadWorldConfig(c.server.world_path);
  if (c.server.tick_rate) RescaleTicks(*c.server.tick_rate, &c.world);
  return c;
}

void StartLogging(const ServerConfig& config) {
  spdlog::set_level(spdlog::level::from_str(config.log_level));
  spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL wins over the file and the flag
  google::protobuf::SetLogHandler(&ProtobufLog);
}

// The names of the zones this process ticks, for the banner.
std::string HostedZoneNames(const zs::zone::WorldConfig& world,
                            const std::vector<uint32_t>& hosted_ids) {
  std::string names;
  for (const auto& z : world.zones) {
    if (hosted_ids.empty() ||
        std::find(hosted_ids.begin(), hosted_ids.end(), z.id) != hosted_ids.end()) {
      names += (names.empty() ? "" : ", ") + z.name;
    }
  }
  return names;
}

// SIGTERM or SIGINT while a standby waits: it stops waiting (it holds nothing to save).
volatile std::sig_atomic_t g_standby_stop = 0;
extern "C" void StopStandby(int /*signal*/) { g_standby_stop = 1; }

// --standby: waits for an orphaned zone among `candidates` (cluster/standby.h). The zones to
// host; {} when a signal stopped the wait; nullopt when NATS failed (logged).
std::optional<std::vector<zs::cluster::ZoneClaim>> AwaitStandby(
    const Configs& configs, const std::vector<zs::cluster::ZoneClaim>& candidates) {
  std::signal(SIGTERM, StopStandby);
  std::signal(SIGINT, StopStandby);
  try {
    std::vector<zs::cluster::ZoneClaim> taken = zs::app::AwaitStandbyZones(
        configs.server, configs.world, candidates, [] { return g_standby_stop == 0; });
    std::signal(SIGTERM, SIG_DFL);  // from here the server's own handling (asio's signal_set)
    std::signal(SIGINT, SIG_DFL);
    if (g_standby_stop != 0) taken.clear();  // a signal after the last look: stop all the same
    if (taken.empty()) spdlog::info("standby: stopped by a signal before any zone needed it");
    return taken;
  } catch (const std::exception& e) {  // cluster::BusError, cluster::DirectoryError
    spdlog::error("standby: {}", e.what());
    return std::nullopt;
  }
}

// Runs the io_context on `threads` threads (this one included) until it is stopped, each
// gathering what is ready for `batch` when it is busy (net::RunIoLoop).
void RunIo(boost::asio::io_context& io, unsigned threads, std::chrono::microseconds batch,
           zs::host::IoLoopCounters& counters) {
  std::vector<std::thread> others;
  for (unsigned i = 1; i < threads; ++i) {
    others.emplace_back([&io, batch, &counters] { zs::net::RunIoLoop(io, batch, counters); });
  }
  zs::net::RunIoLoop(io, batch, counters);
  for (auto& t : others) t.join();
}

// After SaveOnShutdown gave up on the database: the loggers stay (the worker may still log if
// the database answers now), flushed only, and the process ends without destroying the worker
// (which would wait for the database).
[[noreturn]] void ExitLeavingStorage() {
  spdlog::apply_all([](const std::shared_ptr<spdlog::logger>& l) { l->flush(); });
  std::fflush(nullptr);
  std::_Exit(0);
}

}  // namespace

// Start-up, one step after another: flags, configs, logging, storage, the zones, the ports,
// the cluster, then the I/O threads until a signal; then the shutdown, in order. An exception
// that gets this far ends the process with its message, which is what start-up should do
// (STYLE: exceptions are fine at start-up).
// NOLINTNEXTLINE(bugprone-exception-escape,readability-function-size)
int main(int argc, char** argv) {
  CLI::App cli{"zone_server " ZS_VERSION ": authoritative MMO zone server"};
  Flags flags;
  AddFlags(cli, &flags);
  zs::app::TokenToolArgs token_args;
  CLI::App* token_cmd = zs::app::AddTokenTool(cli, &token_args);
  CLI11_PARSE(cli, argc, argv);
  if (token_cmd->parsed()) return zs::app::RunTokenTool(token_args, flags.config_path);

  Configs configs;
  std::string secret;
  std::unique_ptr<zs::storage::CharacterStore> store;
  std::vector<zs::cluster::ZoneClaim> hosted;
  try {
    configs = LoadConfigs(flags);
  } catch (const zs::config::ConfigError& e) {
    std::fprintf(stderr, "zone_server: config error: %s\n", e.what());
    return 2;
  }
  StartLogging(configs.server);
  try {
    secret = zs::config::ResolveAuthSecret(configs.server.auth,
                                           [](const char* n) { return std::getenv(n); });
    hosted = zs::app::HostedZones(configs.server, configs.world);
    store = OpenStore(configs.server.storage);
  } catch (const zs::config::ConfigError& e) {
    std::fprintf(stderr, "zone_server: config error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {  // storage::StartupError
    spdlog::error("storage: {}", e.what());
    return 1;
  }
  if (configs.server.cluster.standby) {
    std::optional<std::vector<zs::cluster::ZoneClaim>> taken = AwaitStandby(configs, hosted);
    if (!taken) return 1;
    if (taken->empty()) return 0;  // stopped by a signal while waiting: nothing to save
    hosted = std::move(*taken);
  }
  ServerConfig& config = configs.server;
  const zs::zone::WorldConfig& world_config = configs.world;
  FitConnectionsToDescriptors(&config);

  // Before the io_context: a session's queue, destroyed with the handlers still pending when
  // the io_context goes, gives its bytes back to the metrics.
  zs::host::Metrics metrics;
  boost::asio::io_context io(static_cast<int>(config.io_threads));
  zs::host::ChurnLog churn;
  spdlog::info("characters kept in {} (checkpoint every {} s); auth mode {}", store->Describe(),
               config.storage.checkpoint_seconds, zs::config::AuthModeName(config.auth));
  if (config.auth.none_insecure) {
    spdlog::warn(
        "auth.mode none_insecure: anyone who reaches {}:{} can log in as any character by "
        "sending its name; use auth.mode token on any network you do not trust",
        config.listen_address, config.port);
  }
  zs::storage::StorageWorker storage(std::move(store), {.max_unsaved = config.storage.max_unsaved});
  storage.Start();
  zs::auth::Authenticator authenticator({.mode = config.auth.mode,
                                         .secret = std::move(secret),
                                         .max_token_ttl_seconds = config.auth.max_token_ttl_seconds,
                                         .replay_cache_size = config.auth.replay_cache_size});
  zs::host::TicketBook tickets({.ttl_seconds = config.cluster.ticket_seconds});
  const std::vector<uint32_t> hosted_ids = zs::app::ZoneIds(hosted);
  const unsigned workers = config.sim_threads != 0
                               ? config.sim_threads
                               : std::max(1u, std::thread::hardware_concurrency());
  // One runner per hosted zone, each ticking on its own thread.
  zs::host::ZoneRunners runners(world_config, &metrics, workers, &churn,
                                {.storage = &storage,
                                 .checkpoint_seconds = config.storage.checkpoint_seconds,
                                 .token_mode = config.auth.mode == zs::auth::AuthMode::kToken,
                                 .tickets = &tickets},
                                hosted_ids, zs::app::SplitOf(hosted, world_config));
  zs::net::Server server(io, config.limits, &runners, &metrics, &churn, &authenticator, &tickets);
  zs::admin::AdminHttp admin(io, &metrics, config.admin_max_connections);
  // The viewer offers the zones this process hosts (on a cluster node, not the whole world's).
  zs::admin::ViewerHub viewers(
      io, world_config, &metrics,
      {.max_viewers = config.admin_max_viewers, .stall_seconds = config.admin_viewer_stall_s},
      hosted_ids, zs::app::SplitOf(hosted, world_config).cells);
  zs::admin::WebAssets web_assets;
  EnableViewer(config, &viewers, &web_assets, &admin);
  std::vector<std::unique_ptr<zs::host::TickObserver>> viewer_taps;  // one per runner
  for (size_t r = 0; r < runners.size(); ++r) {
    runners.SetObserver(r, viewer_taps.emplace_back(viewers.NewTap()).get());
  }
  // Signals first: a SIGTERM that arrives as soon as the ports are open is still graceful.
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    spdlog::info("signal {}: shutting down", signal);
    signals.async_wait([&](const boost::system::error_code& again_ec, int again) {
      if (again_ec) return;
      spdlog::warn("signal {} again: stopping now", again);
      io.stop();
    });
    server.Shutdown(zs::host::CloseReason::kShutdown, [&] {
      viewers.CloseAll();
      admin.Stop();
      runners.Stop();
      io.stop();
    });
  });
  try {
    server.Listen(config.listen_address, config.port);
    if (config.websocket.enabled) {
      server.ListenWebSocket(config.listen_address, config.websocket.port,
                             config.websocket.allowed_origins);
    }
    admin.Listen(config.admin_address, config.admin_port);
  } catch (const std::exception& e) {
    spdlog::error("cannot listen: {}", e.what());
    return 1;
  }
  // Ready once listening; the cluster's public address may be the GameServer's (after Ready).
  const auto agones = StartAgones(configs.agones, config.agones);
  std::unique_ptr<zs::cluster::ClusterNode> node;
  zs::host::ZoneRunner::Ports ports;  // the cluster's, attached once listening
  try {  // after listening: a public address with port 0 means the port just bound
    const zs::app::BoundPorts bound{
        .game = server.port(),
        .websocket = config.websocket.enabled ? std::optional(server.ws_port()) : std::nullopt};
    node =
        zs::app::JoinCluster(config, hosted, bound, &tickets, &storage, agones.get(), world_config);
    if (node) {  // the cells of split zones: their neighbours' ghosts, and ours to them
      const zs::cluster::ClusterNode::BorderPorts border = node->JoinBorder(
          world_config, metrics.cells(),
          {.batches = [&runners](zs::host::BorderBatch b) { runners.TakeGhosts(std::move(b)); },
           .chat = [&runners](zs::zone::ZoneChat chat) { runners.TakeZoneChat(std::move(chat)); },
           .relayed =
               [&runners](uint32_t zone, zs::host::SessionKey session,
                          std::optional<zs::host::ClientInput> in) {
                 runners.Relayed(zone, session, std::move(in));
               }});
      ports.border = border.border;
      ports.relay = border.relay;
    }
  } catch (const std::exception& e) {  // cannot reach NATS, or a zone hosted by another node
    spdlog::error("cluster: {}", e.what());
    zs::cluster::NatsBus::ShutdownLibrary();  // libnats' threads, before the process ends
    return 1;
  }
  ports.handoff = node.get();
  runners.AttachPorts(ports);
  std::string zone_names = HostedZoneNames(world_config, hosted_ids);
  if (node) zone_names += " (node '" + config.cluster.node + "' of a cluster)";
  spdlog::info(
      "zone_server {} listening on {}:{} (admin http://{}:{}/metrics); {} Hz; "
      "zones: {}; {} monsters",
      ZS_VERSION, config.listen_address, server.port(), config.admin_address, admin.port(),
      world_config.tick_rate, zone_names, runners.monster_count());
  if (config.websocket.enabled) {
    spdlog::info("WebSocket door on ws://{}:{}/ (subprotocol {})", config.listen_address,
                 server.ws_port(), zs::net::SubprotocolName(zs::wire::kProtocolVersion));
  }
  if (flags.port_file) {
    std::ofstream out(*flags.port_file);
    out << server.port() << ' ' << admin.port();
    if (config.websocket.enabled) out << ' ' << server.ws_port();
    out << '\n';
  }

  runners.Start();
  boost::asio::steady_timer stats_timer(io);
  ScheduleStats(stats_timer, config.stats_interval_s, metrics, 0);
  const std::chrono::microseconds batch = zs::net::IoBatchDelayFor(
      std::chrono::microseconds(config.io_batch_us), world_config.tick_rate);
  if (batch.count() != config.io_batch_us) {
    spdlog::info("io_batch_microseconds: {} us at {} Hz (at most a tenth of a tick)", batch.count(),
                 world_config.tick_rate);
  }
  RunIo(io, config.io_threads, batch, metrics.io_loops());

  runners.Stop();
  if (node) node->Release();  // the directory forgets this node at once; no more arrivals
  // Characters handed here whose clients never came are saved with everyone else.
  storage.Save(tickets.Expire(std::numeric_limits<double>::infinity()));
  // With the node still up: the leavings of players owned by other nodes (their clients here
  // were closed) reach those nodes, and the relay the runners hold is alive while they drain.
  const bool storage_stopped =
      SaveOnShutdown(runners, storage, config.storage.shutdown_timeout_seconds);
  if (node) {
    runners.DetachRelay();
    node.reset();
    zs::cluster::NatsBus::ShutdownLibrary();
  }
  if (agones) agones->Shutdown(kAgonesShutdownTimeout);
  spdlog::info("zone_server stopped");
  if (!storage_stopped) ExitLeavingStorage();
  return 0;
}
