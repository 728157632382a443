#include "config/server_config.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>

#include "admin/admin_token.h"
#include "auth/secret_file.h"
#include "config/config_loader.h"
#include "config/yaml_node.h"
#include "net/io_loop.h"
#include "wire/websocket_url.h"

namespace zs::config {

namespace {

// websocket: on or off, its port, and the origins allowed besides its own.
void LoadWebSocket(const config::YamlNode& ws, WebSocketConfig* c) {
  ws.AllowOnly({"enabled", "port", "allowed_origins"});
  if (ws.Has("enabled")) c->enabled = ws["enabled"].Bool();
  if (ws.Has("port")) c->port = static_cast<uint16_t>(ws["port"].Int(0, 65535));
  if (!ws.Has("allowed_origins")) return;
  for (const config::YamlNode& o : ws["allowed_origins"].Seq()) {
    std::string origin = o.String();
    // An Origin header is "scheme://host[:port]" (or "null"), never a path or a slash at the end.
    const bool url = origin.starts_with("http://") || origin.starts_with("https://");
    const size_t host = origin.find("://");
    if (origin != "*" && origin != "null" &&
        (!url || origin.find('/', host + 3) != std::string::npos || origin.size() == host + 3)) {
      o.Fail("must be \"*\", \"null\" or an origin such as https://game.example.com (no path)");
    }
    c->allowed_origins.push_back(std::move(origin));
  }
}

// admin: the address and port, the connection cap, and the zone viewer's settings.
void LoadAdmin(const config::YamlNode& admin, const std::string& path, ServerConfig* c) {
  admin.AllowOnly({"address", "port", "max_connections", "token", "max_viewers",
                   "viewer_stall_seconds", "web_dir"});
  c->admin_address = admin["address"].String();
  c->admin_port = static_cast<uint16_t>(admin["port"].Int(0, 65535));
  if (admin.Has("max_connections")) {
    c->admin_max_connections = static_cast<size_t>(admin["max_connections"].Int(1, 1024));
  }
  if (admin.Has("token")) {
    c->admin_token = admin["token"].String();
    if (!admin::IsTokenText(c->admin_token)) {
      admin["token"].Fail("must be 1..256 characters from A-Z a-z 0-9 - . _ ~");
    }
  }
  if (admin.Has("max_viewers")) {
    c->admin_max_viewers = static_cast<size_t>(admin["max_viewers"].Int(0, 64));
  }
  if (admin.Has("viewer_stall_seconds")) {
    c->admin_viewer_stall_s = admin["viewer_stall_seconds"].Number(0.1, 600);
  }
  if (admin.Has("web_dir")) {
    c->admin_web_dir =
        (std::filesystem::path(path).parent_path() / admin["web_dir"].String()).string();
  }
}

std::string RelativeTo(const std::string& config_path, const std::string& file) {
  return (std::filesystem::path(config_path).parent_path() / file).lexically_normal().string();
}

constexpr const char* kAuthModes = "must be none, none_insecure or token";

// auth.mode's value (the file's or ZS_AUTH_MODE's) into `out`; false when it is none of them.
bool SetAuthMode(std::string_view mode, AuthConfig* out) {
  if (mode != "none" && mode != "none_insecure" && mode != "token") return false;
  out->mode = mode == "token" ? auth::AuthMode::kToken : auth::AuthMode::kNone;
  out->none_insecure = mode == "none_insecure";
  return true;
}

void LoadAuth(const config::YamlNode& root, const std::string& path, AuthConfig* out) {
  if (!root.Has("auth")) return;
  const config::YamlNode a = root["auth"];
  a.AllowOnly({"mode", "secret_file", "secret_env", "max_token_ttl_seconds", "replay_cache_size"});
  if (a.Has("mode") && !SetAuthMode(a["mode"].String(), out)) {
    a["mode"].Fail(kAuthModes);
  }
  if (a.Has("secret_file")) out->secret_file = RelativeTo(path, a["secret_file"].String());
  if (a.Has("secret_env")) out->secret_env = a["secret_env"].String();
  if (a.Has("max_token_ttl_seconds")) {
    out->max_token_ttl_seconds = a["max_token_ttl_seconds"].Int(1, 7 * 24 * 3600);
  }
  if (a.Has("replay_cache_size")) {
    out->replay_cache_size = static_cast<size_t>(a["replay_cache_size"].Int(1, 100'000'000));
  }
}

void LoadStorage(const config::YamlNode& root, const std::string& path, StorageConfig* out) {
  out->sqlite_path = RelativeTo(path, out->sqlite_path);
  if (!root.Has("storage")) return;
  const config::YamlNode st = root["storage"];
  st.AllowOnly({"backend", "path", "postgres", "checkpoint_seconds", "shutdown_timeout_seconds",
                "max_unsaved"});
  if (st.Has("backend")) {
    const std::string b = st["backend"].String();
    if (b != "sqlite" && b != "postgres") st["backend"].Fail("must be sqlite or postgres");
    out->backend = b == "postgres" ? StorageBackend::kPostgres : StorageBackend::kSqlite;
  }
  if (st.Has("path")) out->sqlite_path = RelativeTo(path, st["path"].String());
  if (st.Has("postgres")) out->postgres = st["postgres"].String();
  if (out->backend == StorageBackend::kPostgres && out->postgres.empty()) {
    st.Fail("backend postgres needs `postgres`: a libpq connection string");
  }
  if (st.Has("checkpoint_seconds")) {
    out->checkpoint_seconds = st["checkpoint_seconds"].Number(0.1, 3600);
  }
  if (st.Has("shutdown_timeout_seconds")) {
    out->shutdown_timeout_seconds = st["shutdown_timeout_seconds"].Number(0, 600);
  }
  if (st.Has("max_unsaved")) {
    out->max_unsaved = static_cast<size_t>(st["max_unsaved"].Int(1, 10'000'000));
  }
}

void LoadCluster(const config::YamlNode& root, ClusterConfig* out) {
  if (!root.Has("cluster")) return;
  const config::YamlNode c = root["cluster"];
  c.AllowOnly({"nats_url", "node", "public_address", "public_websocket_url", "zones",
               "directory_ttl_seconds", "handoff_timeout_ms", "ticket_seconds", "standby",
               "standby_poll_seconds"});
  out->enabled = true;
  out->nats_url = c["nats_url"].String();
  if (c.Has("node")) out->node = c["node"].String();  // or ZS_CLUSTER_NODE: CheckClusterConfig
  out->public_address = c["public_address"].String();
  if (out->public_address != kPublicAddressFromAgones &&
      out->public_address.find(':') == std::string::npos) {
    c["public_address"].Fail(
        "must be host:port (what this node's clients connect to), or agones (the GameServer's "
        "address and port, from the Agones SDK)");
  }
  if (c.Has("public_websocket_url")) {
    out->public_websocket_url = c["public_websocket_url"].String();
    if (!wire::IsWebSocketUrl(out->public_websocket_url)) {
      c["public_websocket_url"].Fail(
          "must be a ws:// or wss:// URL of at most 256 bytes without spaces or control "
          "characters (what this node's WebSocket clients connect to)");
    }
  }
  if (c.Has("zones")) {
    for (const config::YamlNode& z : c["zones"].Seq(1)) out->zones.push_back(z.String());
  }
  if (c.Has("directory_ttl_seconds")) {
    out->directory_ttl_seconds = static_cast<int>(c["directory_ttl_seconds"].Int(2, 300));
  }
  if (c.Has("ticket_seconds")) out->ticket_seconds = c["ticket_seconds"].Number(1, 3600);
  if (c.Has("standby")) out->standby = c["standby"].Bool();
  if (c.Has("standby_poll_seconds")) {
    out->standby_poll_seconds = c["standby_poll_seconds"].Number(0.05, 10);
  }
  if (c.Has("handoff_timeout_ms")) {
    out->handoff_timeout_ms = static_cast<int>(c["handoff_timeout_ms"].Int(10, 60000));
  }
}

void LoadAgones(const config::YamlNode& root, AgonesConfig* out) {
  if (!root.Has("agones")) return;
  const config::YamlNode a = root["agones"];
  a.AllowOnly({"health_interval_seconds", "port_name", "address_timeout_seconds"});
  if (a.Has("health_interval_seconds")) {
    out->health_interval_seconds = a["health_interval_seconds"].Number(0.1, 60);
  }
  if (a.Has("port_name")) {
    out->port_name = a["port_name"].String();
    if (out->port_name.empty()) a["port_name"].Fail("must name the Fleet's game port");
  }
  if (a.Has("address_timeout_seconds")) {
    out->address_timeout_seconds = a["address_timeout_seconds"].Number(0.1, 600);
  }
}

// The `limits` block: each key by its own range.
void LoadLimits(const config::YamlNode& l, net::Limits* out) {
  l.AllowOnly({"max_frame_bytes", "recursion_limit", "login_timeout_seconds",
               "idle_timeout_seconds", "move_rate", "skill_rate", "ping_rate", "chat_rate",
               "send_queue_bytes", "stall_timeout_seconds", "send_queue_delay_seconds",
               "total_send_queue_bytes", "max_connections", "max_connections_per_ip",
               "shutdown_flush_seconds", "socket_send_buffer_bytes", "socket_unsent_bytes",
               "ticks_per_send"});
  net::Limits& x = *out;
  const auto opt = [&l](const char* key, auto apply) {
    if (l.Has(key)) apply(l[key]);
  };
  opt("max_frame_bytes", [&](const config::YamlNode& n) {
    x.max_frame_bytes = static_cast<size_t>(n.Int(16, 16 * 1024 * 1024));
  });
  opt("recursion_limit",
      [&](const config::YamlNode& n) { x.recursion_limit = static_cast<int>(n.Int(2, 100)); });
  opt("login_timeout_seconds",
      [&](const config::YamlNode& n) { x.login_timeout_s = n.Number(0.1, 3600); });
  opt("idle_timeout_seconds",
      [&](const config::YamlNode& n) { x.idle_timeout_s = n.Number(0.1, 86400); });
  opt("move_rate", [&](const config::YamlNode& n) { x.move_rate = n.Number(1, 10000); });
  opt("skill_rate", [&](const config::YamlNode& n) { x.skill_rate = n.Number(1, 10000); });
  opt("ping_rate", [&](const config::YamlNode& n) { x.ping_rate = n.Number(1, 10000); });
  opt("chat_rate", [&](const config::YamlNode& n) { x.chat_rate = n.Number(0.1, 1000); });
  opt("send_queue_bytes", [&](const config::YamlNode& n) {
    x.send_queue_bytes = static_cast<size_t>(n.Int(1024, 1LL << 32));
  });
  opt("total_send_queue_bytes", [&](const config::YamlNode& n) {
    x.total_send_queue_bytes = static_cast<size_t>(n.Int(64 * 1024, 1LL << 40));
  });
  opt("stall_timeout_seconds",
      [&](const config::YamlNode& n) { x.stall_timeout_s = n.Number(0.1, 3600); });
  opt("send_queue_delay_seconds",
      [&](const config::YamlNode& n) { x.send_queue_delay_s = n.Number(0.05, 3600); });
  opt("max_connections", [&](const config::YamlNode& n) {
    x.max_connections = static_cast<size_t>(n.Int(1, 1000000));
  });
  opt("max_connections_per_ip", [&](const config::YamlNode& n) {
    x.max_connections_per_ip = static_cast<size_t>(n.Int(1, 1000000));
  });
  opt("socket_send_buffer_bytes", [&](const config::YamlNode& n) {
    x.socket_send_buffer_bytes = static_cast<size_t>(n.Int(0, 64 * 1024 * 1024));
  });
  opt("socket_unsent_bytes", [&](const config::YamlNode& n) {
    x.socket_unsent_bytes = static_cast<size_t>(n.Int(0, 64 * 1024 * 1024));
  });
  opt("ticks_per_send",
      [&](const config::YamlNode& n) { x.ticks_per_send = static_cast<uint32_t>(n.Int(1, 8)); });
  opt("shutdown_flush_seconds",
      [&](const config::YamlNode& n) { x.shutdown_flush_s = n.Number(0, 60); });
}

}  // namespace

ServerConfig LoadServerConfig(const std::string& path) {
  const config::YamlNode root = config::LoadYamlFile(path);
  root.AllowOnly({"listen", "websocket", "admin", "world", "io_threads", "io_batch_microseconds",
                  "sim_threads", "log_level", "stats_interval_seconds", "tick_rate", "limits",
                  "auth", "storage", "cluster", "agones"});
  ServerConfig c;
  const config::YamlNode listen = root["listen"];
  listen.AllowOnly({"address", "port"});
  c.listen_address = listen["address"].String();
  c.port = static_cast<uint16_t>(listen["port"].Int(0, 65535));
  if (root.Has("websocket")) LoadWebSocket(root["websocket"], &c.websocket);
  LoadAdmin(root["admin"], path, &c);
  c.world_path = (std::filesystem::path(path).parent_path() / root["world"].String()).string();
  if (root.Has("io_threads")) c.io_threads = static_cast<unsigned>(root["io_threads"].Int(1, 64));
  if (root.Has("io_batch_microseconds")) {
    c.io_batch_us =
        static_cast<uint32_t>(root["io_batch_microseconds"].Int(0, net::kMaxIoBatchDelay.count()));
  }
  if (root.Has("sim_threads")) {
    c.sim_threads = static_cast<unsigned>(root["sim_threads"].Int(0, 64));
  }
  if (root.Has("log_level")) {
    c.log_level = root["log_level"].String();
    const std::string& l = c.log_level;
    if (l != "trace" && l != "debug" && l != "info" && l != "warn" && l != "error") {
      root["log_level"].Fail("must be trace, debug, info, warn or error");
    }
  }
  if (root.Has("stats_interval_seconds")) {
    c.stats_interval_s = root["stats_interval_seconds"].Number(0.1, 3600);
  }
  if (root.Has("tick_rate")) c.tick_rate = static_cast<uint32_t>(root["tick_rate"].Int(1, 120));
  if (root.Has("limits")) LoadLimits(root["limits"], &c.limits);
  LoadAuth(root, path, &c.auth);
  LoadStorage(root, path, &c.storage);
  LoadCluster(root, &c.cluster);
  LoadAgones(root, &c.agones);
  return c;
}

void ApplyEnvironment(const GetEnvFn& getenv, ServerConfig* config) {
  const auto value = [&getenv](const char* name) -> std::optional<std::string> {
    const char* v = getenv(name);
    if (v == nullptr || *v == '\0') return std::nullopt;
    return std::string(v);
  };
  if (const auto address = value(kEnvListen)) config->listen_address = *address;
  if (const auto mode = value(kEnvAuthMode); mode && !SetAuthMode(*mode, &config->auth)) {
    throw config::ConfigError(std::string("environment: ") + kEnvAuthMode + ": " + kAuthModes +
                              ", got \"" + *mode + "\"");
  }
  if (const auto file = value(kEnvAuthSecretFile)) config->auth.secret_file = *file;
  if (const auto address = value(kEnvAdminListen)) config->admin_address = *address;
  if (const auto path = value(kEnvStoragePath)) config->storage.sqlite_path = *path;
  if (const auto node = value(kEnvClusterNode); node && config->cluster.enabled) {
    config->cluster.node = *node;
  }
  if (const auto port = value(kEnvAdminPort)) {
    unsigned parsed = 0;
    const char* end = port->data() + port->size();
    const auto [ptr, ec] = std::from_chars(port->data(), end, parsed);
    if (ec != std::errc() || ptr != end || parsed > 65535) {
      throw config::ConfigError(std::string("environment: ") + kEnvAdminPort +
                                ": must be an integer in 0..65535, got \"" + *port + "\"");
    }
    config->admin_port = static_cast<uint16_t>(parsed);
  }
}

const char* AuthModeName(const AuthConfig& auth) {
  if (auth.mode == auth::AuthMode::kToken) return "token";
  return auth.none_insecure ? "none_insecure" : "none";
}

bool IsLoopbackAddress(std::string_view address) {
  if (address == "localhost") return true;
  const std::string a(address);
  in_addr v4{};
  if (inet_pton(AF_INET, a.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  return inet_pton(AF_INET6, a.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

void CheckOpenDoor(const ServerConfig& config) {
  if (config.auth.mode != auth::AuthMode::kNone || config.auth.none_insecure) return;
  if (IsLoopbackAddress(config.listen_address)) return;
  throw config::ConfigError(
      "auth.mode is none while the game port listens on " + config.listen_address +
      ", beyond loopback: anyone who reaches it could log in as any character by sending its "
      "name. Use auth.mode: token (docs/accounts.md), listen on 127.0.0.1, or, for a trusted "
      "network only, say auth.mode: none_insecure");
}

std::string ResolveAuthSecret(const AuthConfig& auth, const GetEnvFn& getenv) {
  if (auth.mode != auth::AuthMode::kToken) return {};
  std::string secret;
  std::string source;
  if (!auth.secret_file.empty()) {
    source = "auth.secret_file " + auth.secret_file;
    std::optional<std::string> read = auth::ReadSecretFile(auth.secret_file);
    if (!read) throw config::ConfigError(source + ": cannot be read");
    secret = std::move(*read);
  } else if (!auth.secret_env.empty()) {
    source = "auth.secret_env " + auth.secret_env;
    const char* v = getenv(auth.secret_env.c_str());
    if (v != nullptr) secret = v;
  } else {
    throw config::ConfigError(
        "auth.mode is token but no secret is configured: set auth.secret_file or "
        "auth.secret_env (never put the secret itself in the config)");
  }
  if (secret.size() < auth::kMinSecretBytes) {
    throw config::ConfigError(source + ": the secret must be at least " +
                              std::to_string(auth::kMinSecretBytes) + " bytes (got " +
                              std::to_string(secret.size()) + ")");
  }
  return secret;
}

}  // namespace zs::config
