// ServerConfig: config/server.yaml (listen addresses, world file, limits, logging), loaded
// with the same file/key/problem errors as the world config.
//
// Where a setting comes from, highest first:
//   1. the command line (zone_server's main applies each flag given after ApplyEnvironment);
//   2. the environment, for the admin address: ZS_ADMIN_LISTEN and ZS_ADMIN_PORT (a
//      container image sets them, so that `docker run IMAGE --port 7000` keeps the admin port
//      reachable and its HEALTHCHECK knows where to look), and for the SQLite file:
//      ZS_STORAGE_PATH (the image keeps characters on its volume, /var/lib/zone_server), and
//      for cluster.node: ZS_CLUSTER_NODE (one ConfigMap for a Fleet of nodes, each named after
//      its pod: docker/k8s/fleet.yaml);
//   3. the config file.
// Everything here runs once at start-up, on the main thread; errors are ConfigError exceptions.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/authenticator.h"
#include "net/limits.h"

namespace zs::config {

// auth: who a Hello logs in as (auth/authenticator.h). The secret is never in this file: it
// comes from a file or an environment variable that the config names (ResolveAuthSecret).
struct AuthConfig {
  auth::AuthMode mode = auth::AuthMode::kNone;
  // auth.mode none_insecure: mode none on purpose beyond loopback (CheckOpenDoor), warned about
  // at every start. Plain `none` is refused on any address but loopback.
  bool none_insecure = false;
  std::string secret_file;  // absolute, or relative to the config file's directory
  std::string secret_env;   // the name of an environment variable holding the secret
  int64_t max_token_ttl_seconds = 3600;
  size_t replay_cache_size = 262144;
};

// storage: where characters are kept (storage/).
enum class StorageBackend : uint8_t { kSqlite, kPostgres };
struct StorageConfig {
  StorageBackend backend = StorageBackend::kSqlite;
  std::string sqlite_path = "data/characters.db";  // relative to the config file's directory
  std::string postgres;  // libpq connection string (passwords: PGPASSWORD / ~/.pgpass)
  double checkpoint_seconds = 10;
  double shutdown_timeout_seconds = 10;  // SIGTERM: the longest wait for the final save
  size_t max_unsaved = 50000;            // characters waiting to be saved before logins are refused
};

// agones: used only when AGONES_SDK_HTTP_PORT is set (Agones sets it in the game server's pod;
// agones/agones_sdk.h). Health must reach the sidecar more often than the Fleet's
// health.periodSeconds (5 s by default, docker/k8s/fleet.yaml), or the GameServer goes Unhealthy.
struct AgonesConfig {
  double health_interval_seconds = 2;
  // cluster.public_address `agones`: the GameServer's port (status.ports[].name, the Fleet's
  // spec.ports[].name) whose host port clients use, and how long start-up waits for the
  // GameServer's status to have an address and that port (GET /gameserver) before giving up.
  std::string port_name = "game";
  double address_timeout_seconds = 30;
};

// cluster.public_address that means: the GameServer's status.address and its game port's
// host port, from the Agones SDK (GET /gameserver) once Ready (app/cluster_setup.h).
inline constexpr std::string_view kPublicAddressFromAgones = "agones";

// cluster: this server as one node of a world spread over many (docs/cluster.md). Absent: the
// server hosts every zone and needs no NATS.
struct ClusterConfig {
  bool enabled = false;
  std::string nats_url;        // e.g. nats://127.0.0.1:4222
  std::string node;            // unique in the world (ZS_CLUSTER_NODE overrides)
  std::string public_address;  // "host:port" this node's clients connect to, or
                               // kPublicAddressFromAgones
  // The URL of this node's WebSocket door that clients handed here over WebSocket dial
  // (ZoneChanged.websocket_url, protocol 10): "ws://..." or "wss://..." (a TLS proxy's). Empty:
  // ws://<public_address's host>:<the door's port>/ when the door is open (not under Agones,
  // whose host port for it is not known), else none.
  std::string public_websocket_url;
  std::vector<std::string> zones;  // zone names this node hosts (--zones overrides)
  int directory_ttl_seconds = 5;
  int handoff_timeout_ms = 500;
  double ticket_seconds = 30;  // a hand-off ticket not used by then expires (character saved)
  // A standby (--standby): hosts nothing until one of `zones` (the candidates; empty: every
  // zone) has no owner in the directory, then hosts it (cluster/standby.h). Polled this often.
  bool standby = false;
  double standby_poll_seconds = 0.25;
};

// The game's WebSocket door (docs/protocol.md "Transports"): the same sessions as the game
// port, for browsers and engines, on the listen address and a port of its own.
struct WebSocketConfig {
  bool enabled = false;  // config/server.yaml turns it on
  uint16_t port = 7778;
  // Pages of these origins ("https://game.example.com") may open it besides its own origin;
  // "*": any page (net/ws_handshake.h).
  std::vector<std::string> allowed_origins;
};

struct ServerConfig {
  std::string listen_address = "127.0.0.1";  // loopback: auth mode none is safe only here
  uint16_t port = 7777;
  WebSocketConfig websocket;
  std::string admin_address = "127.0.0.1";
  uint16_t admin_port = 9100;
  size_t admin_max_connections = 16;  // concurrent admin HTTP connections (oldest idle evicted)
  // Zone viewer (/viewer on the admin port): the token that protects it (empty: none; URL-safe
  // characters only), the most WebSocket viewers at once, how long a viewer may leave a frame
  // untaken before it is closed, and where its page's files are ("" : the default places,
  // admin/web_assets.h; relative to this file).
  std::string admin_token;
  size_t admin_max_viewers = 4;
  double admin_viewer_stall_s = 5;
  std::string admin_web_dir;
  std::string world_path = "config/world.yaml";
  unsigned io_threads = 2;
  // After a busy socket thread wakes (sooner than this after its last pass), it waits this long
  // and then handles everything ready in one pass (net::RunIoLoop): one wake-up for many
  // clients' inputs. 0: each as it comes.
  uint32_t io_batch_us = 2000;
  unsigned sim_threads = 0;  // views and frames of the tick; 0: one per core
  std::string log_level = "info";
  double stats_interval_s = 10;
  std::optional<uint32_t> tick_rate;
  net::Limits limits;
  AuthConfig auth;
  StorageConfig storage;
  ClusterConfig cluster;
  AgonesConfig agones;
};

// The environment variables read (names kept in one place for the Dockerfile and the docs).
inline constexpr const char* kEnvListen = "ZS_LISTEN";
inline constexpr const char* kEnvAuthMode = "ZS_AUTH_MODE";
inline constexpr const char* kEnvAuthSecretFile = "ZS_AUTH_SECRET_FILE";
inline constexpr const char* kEnvAdminListen = "ZS_ADMIN_LISTEN";
inline constexpr const char* kEnvAdminPort = "ZS_ADMIN_PORT";
inline constexpr const char* kEnvStoragePath = "ZS_STORAGE_PATH";
inline constexpr const char* kEnvClusterNode = "ZS_CLUSTER_NODE";

// Returns the value of an environment variable, or nullptr when it is unset.
using GetEnvFn = std::function<const char*(const char*)>;

// Throws config::ConfigError naming the file, key and problem.
ServerConfig LoadServerConfig(const std::string& path);

// Applies ZS_LISTEN / ZS_AUTH_MODE / ZS_AUTH_SECRET_FILE / ZS_ADMIN_LISTEN / ZS_ADMIN_PORT /
// ZS_STORAGE_PATH / ZS_CLUSTER_NODE (unset or empty: no change; ZS_CLUSTER_NODE only to a
// config with a `cluster:` block). Throws config::ConfigError naming the variable for a port
// that is not an integer in 0..65535 or an auth mode that is not one of auth.mode's values.
void ApplyEnvironment(const GetEnvFn& getenv, ServerConfig* config);

// auth.mode as the config spells it: "none", "none_insecure" or "token".
[[nodiscard]] const char* AuthModeName(const AuthConfig& auth);

// True for an address that only this machine reaches: 127.0.0.0/8, ::1, "localhost".
[[nodiscard]] bool IsLoopbackAddress(std::string_view address);

// The open-door rule, on the settled config (file, environment, flags): auth mode none lets a
// client log in as any character by sending its name, so it is allowed on loopback only, or
// anywhere when the config says auth.mode: none_insecure. Throws config::ConfigError otherwise.
void CheckOpenDoor(const ServerConfig& config);

// Token mode: the secret from auth.secret_file (contents, one trailing newline dropped) or the
// variable auth.secret_env names. Throws config::ConfigError when neither gives one of at least
// auth::kMinSecretBytes bytes. Mode none: "".
std::string ResolveAuthSecret(const AuthConfig& auth, const GetEnvFn& getenv);

}  // namespace zs::config
