// ServerConfig: the environment (ZS_ADMIN_LISTEN, ZS_ADMIN_PORT) beats the file; a bad variable
// is refused by name. That the command line beats both is checked on the real binary, in
// tests/integration/admin_env_test.cc.
#include "config/server_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "config/config_loader.h"

namespace zs::config {
namespace {

namespace fs = std::filesystem;

// A server.yaml in a temporary directory, removed afterwards.
class ConfigFile {
 public:
  explicit ConfigFile(const std::string& extra = "") {
    dir_ = fs::temp_directory_path() / ("zs_config_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::ofstream(path()) << "listen: {address: 0.0.0.0, port: 7777}\n"
                          << "admin: {address: 127.0.0.1, port: 9100}\n"
                          << "world: world.yaml\n"
                          << extra;
  }
  ~ConfigFile() { fs::remove_all(dir_); }
  [[nodiscard]] std::string path() const { return (dir_ / "server.yaml").string(); }
  [[nodiscard]] const fs::path& dir() const { return dir_; }

 private:
  fs::path dir_;
};

// An environment made of a map: nothing leaks in from the test's own environment.
GetEnvFn FakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

// The file, then the environment, as zone_server's main does before applying its flags.
ServerConfig LoadWithEnv(const ConfigFile& file, std::map<std::string, std::string> vars) {
  ServerConfig c = LoadServerConfig(file.path());
  ApplyEnvironment(FakeEnv(std::move(vars)), &c);
  return c;
}

TEST(ServerConfig, WithoutTheVariablesTheFileValuesStay) {
  ConfigFile file;
  const ServerConfig c = LoadWithEnv(file, {{"ZS_ADMIN", "0.0.0.0"}, {"ADMIN_PORT", "1"}});
  EXPECT_EQ(c.admin_address, "127.0.0.1");
  EXPECT_EQ(c.admin_port, 9100);
  EXPECT_EQ(c.port, 7777);
}

TEST(ServerConfig, TheEnvironmentBeatsTheFile) {
  ConfigFile file;
  const ServerConfig c =
      LoadWithEnv(file, {{"ZS_ADMIN_LISTEN", "0.0.0.0"}, {"ZS_ADMIN_PORT", "9200"}});
  EXPECT_EQ(c.admin_address, "0.0.0.0");
  EXPECT_EQ(c.admin_port, 9200);
  EXPECT_EQ(c.listen_address, "0.0.0.0");  // the game side is not the admin side
  EXPECT_EQ(c.port, 7777);
}

TEST(ServerConfig, EachVariableAlone) {
  ConfigFile file;
  EXPECT_EQ(LoadWithEnv(file, {{"ZS_ADMIN_PORT", "0"}}).admin_port, 0);
  EXPECT_EQ(LoadWithEnv(file, {{"ZS_ADMIN_PORT", "65535"}}).admin_address, "127.0.0.1");
  EXPECT_EQ(LoadWithEnv(file, {{"ZS_ADMIN_LISTEN", "::"}}).admin_address, "::");
  EXPECT_EQ(LoadWithEnv(file, {{"ZS_ADMIN_LISTEN", "::"}}).admin_port, 9100);
}

TEST(ServerConfig, AnEmptyVariableIsIgnored) {
  ConfigFile file;
  const ServerConfig c = LoadWithEnv(file, {{"ZS_ADMIN_LISTEN", ""}, {"ZS_ADMIN_PORT", ""}});
  EXPECT_EQ(c.admin_address, "127.0.0.1");
  EXPECT_EQ(c.admin_port, 9100);
}

TEST(ServerConfig, ABadPortVariableIsRefusedByName) {
  ConfigFile file;
  for (const char* bad : {"http", "65536", "70000", "-1", "+80", "91 00", "9100x", " 9100"}) {
    try {
      (void)LoadWithEnv(file, {{"ZS_ADMIN_PORT", bad}});
      ADD_FAILURE() << "accepted ZS_ADMIN_PORT=" << bad;
    } catch (const config::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("ZS_ADMIN_PORT"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}

// Loading a config with `extra` fails with an error that names `key`.
void ExpectRefusedNaming(const std::string& extra, const std::string& key) {
  try {
    (void)LoadServerConfig(ConfigFile(extra).path());
    ADD_FAILURE() << extra << " is refused";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
  }
}

TEST(ServerConfig, TheKernelsUnsentBytesAreBoundedByDefaultAndCanBeChangedOrLifted) {
  EXPECT_EQ(LoadServerConfig(ConfigFile().path()).limits.socket_unsent_bytes, 64u * 1024);
  EXPECT_EQ(LoadServerConfig(ConfigFile("limits: {socket_unsent_bytes: 8192}\n").path())
                .limits.socket_unsent_bytes,
            8192u);
  EXPECT_EQ(LoadServerConfig(ConfigFile("limits: {socket_unsent_bytes: 0}\n").path())
                .limits.socket_unsent_bytes,
            0u);
  ExpectRefusedNaming("limits: {socket_unsent_bytes: -1}\n", "socket_unsent_bytes");
}

TEST(ServerConfig, TicksPerSendDefaultsToTwoAndIsBounded) {
  EXPECT_EQ(LoadServerConfig(ConfigFile().path()).limits.ticks_per_send, 2u);
  EXPECT_EQ(
      LoadServerConfig(ConfigFile("limits: {ticks_per_send: 1}\n").path()).limits.ticks_per_send,
      1u);
  for (const char* bad : {"0", "9", "two"}) {
    ExpectRefusedNaming(std::string("limits: {ticks_per_send: ") + bad + "}\n", "ticks_per_send");
  }
}

TEST(ServerConfig, IoBatchDefaultsToTwoMillisecondsAndIsBounded) {
  EXPECT_EQ(LoadServerConfig(ConfigFile().path()).io_batch_us, 2000u);
  EXPECT_EQ(LoadServerConfig(ConfigFile("io_batch_microseconds: 0\n").path()).io_batch_us, 0u);
  EXPECT_EQ(LoadServerConfig(ConfigFile("io_batch_microseconds: 5000\n").path()).io_batch_us,
            5000u);
  for (const char* bad : {"-1", "5001", "soon"}) {
    ExpectRefusedNaming(std::string("io_batch_microseconds: ") + bad + "\n",
                        "io_batch_microseconds");
  }
}

TEST(ServerConfig, StorageDefaultsToSqliteBesideTheConfigAndTheVariableMovesIt) {
  const ConfigFile file;
  ServerConfig c = LoadServerConfig(file.path());
  EXPECT_EQ(c.storage.backend, StorageBackend::kSqlite);
  EXPECT_EQ(c.storage.sqlite_path, (file.dir() / "data/characters.db").string());
  EXPECT_EQ(c.storage.checkpoint_seconds, 10);
  EXPECT_EQ(c.auth.mode, auth::AuthMode::kNone);
  ApplyEnvironment(FakeEnv({{kEnvStoragePath, "/var/lib/zone_server/characters.db"}}), &c);
  EXPECT_EQ(c.storage.sqlite_path, "/var/lib/zone_server/characters.db");
}

TEST(ServerConfig, StorageAndAuthBlocksAreReadAndCheckedByName) {
  {
    const ConfigFile file(
        "storage: {backend: postgres, postgres: \"host=/tmp dbname=z\", checkpoint_seconds: 2}\n"
        "auth: {mode: token, secret_env: ZS_SECRET, max_token_ttl_seconds: 60}\n");
    const ServerConfig c = LoadServerConfig(file.path());
    EXPECT_EQ(c.storage.backend, StorageBackend::kPostgres);
    EXPECT_EQ(c.storage.postgres, "host=/tmp dbname=z");
    EXPECT_EQ(c.storage.checkpoint_seconds, 2);
    EXPECT_EQ(c.auth.mode, auth::AuthMode::kToken);
    EXPECT_EQ(c.auth.secret_env, "ZS_SECRET");
    EXPECT_EQ(c.auth.max_token_ttl_seconds, 60);
  }
  for (const char* bad : {"storage: {backend: mongo}\n", "storage: {backend: postgres}\n",
                          "storage: {checkpoint_seconds: 0}\n", "auth: {mode: maybe}\n",
                          "auth: {secret: hunter2}\n"}) {
    const ConfigFile file(bad);
    EXPECT_THROW((void)LoadServerConfig(file.path()), config::ConfigError) << bad;
  }
}

TEST(ServerConfig, TokenModeNeedsALongEnoughSecretFromAFileOrTheEnvironment) {
  const ConfigFile file;
  AuthConfig a;  // not a designated initialiser: GCC 12 warns of the fields left out
  a.mode = auth::AuthMode::kToken;
  EXPECT_THROW((void)ResolveAuthSecret(a, FakeEnv({})), config::ConfigError) << "none configured";
  a.secret_env = "ZS_SECRET";
  EXPECT_THROW((void)ResolveAuthSecret(a, FakeEnv({{"ZS_SECRET", "short"}})), config::ConfigError);
  const std::string secret(40, 'k');
  EXPECT_EQ(ResolveAuthSecret(a, FakeEnv({{"ZS_SECRET", secret}})), secret);
  a.secret_file = (file.dir() / "secret").string();
  EXPECT_THROW((void)ResolveAuthSecret(a, FakeEnv({})), config::ConfigError) << "unreadable file";
  std::ofstream(a.secret_file) << secret << "\n";
  EXPECT_EQ(ResolveAuthSecret(a, FakeEnv({})), secret) << "one trailing newline dropped";
  EXPECT_EQ(ResolveAuthSecret({}, FakeEnv({})), "") << "mode none needs no secret";
}

// No open door: auth mode none (any name is that character) only on loopback, unless the config
// says none_insecure; token mode anywhere. The environment can set the address and the mode.
TEST(ServerConfig, ModeNoneBeyondLoopbackIsRefusedUnlessSaidInsecure) {
  for (const char* a : {"127.0.0.1", "127.8.9.10", "::1", "localhost"}) {
    EXPECT_TRUE(IsLoopbackAddress(a)) << a;
  }
  for (const char* a : {"0.0.0.0", "::", "10.0.0.1", "128.0.0.1", "::ffff:127.0.0.1", "", "host"}) {
    EXPECT_FALSE(IsLoopbackAddress(a)) << a;
  }
  const ConfigFile open_door("auth: {mode: none}\n");  // ConfigFile listens on 0.0.0.0
  ServerConfig c = LoadServerConfig(open_door.path());
  try {
    CheckOpenDoor(c);
    ADD_FAILURE() << "auth mode none on 0.0.0.0 was allowed";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("none_insecure"), std::string::npos) << e.what();
  }
  c.listen_address = "127.0.0.1";
  EXPECT_NO_THROW(CheckOpenDoor(c));
  EXPECT_EQ(std::string(AuthModeName(c.auth)), "none");

  const ConfigFile insecure("auth: {mode: none_insecure}\n");
  c = LoadServerConfig(insecure.path());
  EXPECT_EQ(c.auth.mode, auth::AuthMode::kNone);
  EXPECT_NO_THROW(CheckOpenDoor(c));
  EXPECT_EQ(std::string(AuthModeName(c.auth)), "none_insecure");

  // The environment: ZS_LISTEN beyond loopback with mode none is refused the same way;
  // ZS_AUTH_MODE=token (and its secret file) makes it fine.
  const ConfigFile plain;
  c = LoadWithEnv(plain, {{"ZS_LISTEN", "0.0.0.0"}});
  EXPECT_THROW(CheckOpenDoor(c), config::ConfigError);
  c = LoadWithEnv(plain, {{"ZS_AUTH_MODE", "token"}, {"ZS_AUTH_SECRET_FILE", "/run/s"}});
  EXPECT_EQ(c.auth.mode, auth::AuthMode::kToken);
  EXPECT_EQ(c.auth.secret_file, "/run/s");
  EXPECT_NO_THROW(CheckOpenDoor(c));
  EXPECT_THROW((void)LoadWithEnv(plain, {{"ZS_AUTH_MODE", "open"}}), config::ConfigError);
  EXPECT_EQ(ServerConfig{}.listen_address, "127.0.0.1") << "the built-in default is loopback";
}

// agones: (used only under Agones, agones/agones_sdk.h): 2 s unless set; checked like the rest.
TEST(ServerConfig, TheWebSocketDoorIsShutUnlessSaidAndItsOriginsAreChecked) {
  const WebSocketConfig none = LoadServerConfig(ConfigFile().path()).websocket;
  EXPECT_FALSE(none.enabled);
  const WebSocketConfig ws =
      LoadServerConfig(ConfigFile("websocket: {enabled: true, port: 0, allowed_origins: "
                                  "[\"https://game.example.com\", \"http://localhost:8080\", "
                                  "\"*\", \"null\"]}\n")
                           .path())
          .websocket;
  EXPECT_TRUE(ws.enabled);
  EXPECT_EQ(ws.port, 0);
  EXPECT_EQ(ws.allowed_origins, (std::vector<std::string>{"https://game.example.com",
                                                          "http://localhost:8080", "*", "null"}));
  for (const char* bad : {"https://game.example.com/", "https://game.example.com/play",
                          "game.example.com", "https://", "ftp://x"}) {
    ExpectRefusedNaming(
        std::string("websocket: {enabled: true, allowed_origins: [\"") + bad + "\"]}\n",
        "allowed_origins");
  }
  ExpectRefusedNaming("websocket: {enabled: yes please}\n", "enabled");
  ExpectRefusedNaming("websocket: {port: 70000}\n", "port");
  ExpectRefusedNaming("websocket: {tls: true}\n", "tls");
}

TEST(ServerConfig, AgonesBlockIsReadAndChecked) {
  EXPECT_EQ(LoadServerConfig(ConfigFile().path()).agones.health_interval_seconds, 2);
  EXPECT_EQ(LoadServerConfig(ConfigFile("agones: {health_interval_seconds: 0.5}\n").path())
                .agones.health_interval_seconds,
            0.5);
  for (const char* bad : {"agones: {health_interval_seconds: 0}\n",
                          "agones: {health_interval_seconds: 61}\n", "agones: {port: 9358}\n"}) {
    const ConfigFile file(bad);
    EXPECT_THROW((void)LoadServerConfig(file.path()), config::ConfigError) << bad;
  }
}

// cluster.public_address `agones` (the GameServer's address, cluster_setup.h) and the agones
// keys it uses; the node's name from ZS_CLUSTER_NODE (one ConfigMap for a whole Fleet).
TEST(ServerConfig, PublicAddressFromAgonesAndTheNodeFromTheEnvironment) {
  const std::string cluster = "cluster: {nats_url: \"nats://n:4222\", public_address: agones}\n";
  const ConfigFile file(cluster + "agones: {port_name: play, address_timeout_seconds: 5}\n");
  ServerConfig c = LoadServerConfig(file.path());
  EXPECT_EQ(c.cluster.public_address, kPublicAddressFromAgones);
  EXPECT_EQ(c.cluster.node, "");
  EXPECT_EQ(c.agones.port_name, "play");
  EXPECT_EQ(c.agones.address_timeout_seconds, 5);
  ApplyEnvironment(FakeEnv({{kEnvClusterNode, "zone-server-x7k2p-4fzqv"}}), &c);
  EXPECT_EQ(c.cluster.node, "zone-server-x7k2p-4fzqv");
  EXPECT_EQ(LoadServerConfig(ConfigFile().path()).agones.port_name, "game");
  for (const char* bad :
       {"cluster: {nats_url: x, public_address: agonesx}\n", "agones: {port_name: \"\"}\n",
        "agones: {address_timeout_seconds: 0}\n"}) {
    const ConfigFile f(bad);
    EXPECT_THROW((void)LoadServerConfig(f.path()), config::ConfigError) << bad;
  }
  ServerConfig plain = LoadServerConfig(ConfigFile().path());
  ApplyEnvironment(FakeEnv({{kEnvClusterNode, "n"}}), &plain);
  EXPECT_EQ(plain.cluster.node, "") << "no cluster block: the variable changes nothing";
  EXPECT_FALSE(plain.cluster.enabled);
}

// cluster.public_websocket_url (protocol 10: ZoneChanged.websocket_url): a ws:// or wss:// URL
// a browser can open, or absent (derived from public_address and the door's port).
TEST(ServerConfig, PublicWebSocketUrlIsAWebSocketUrlOrAbsent) {
  const std::string cluster = "cluster: {nats_url: \"nats://n:4222\", public_address: \"h:1\"";
  EXPECT_EQ(LoadServerConfig(ConfigFile(cluster + "}\n").path()).cluster.public_websocket_url, "");
  const auto with_url = [&](const std::string& url) {
    std::string yaml = cluster;
    yaml += ", public_websocket_url: \"";
    yaml += url;
    yaml += "\"}\n";
    return yaml;
  };
  for (const std::string& good :
       {std::string("wss://game.example.com/zone-a"), std::string("ws://10.0.0.5:7778/")}) {
    const ConfigFile f(with_url(good));
    EXPECT_EQ(LoadServerConfig(f.path()).cluster.public_websocket_url, good);
  }
  for (const std::string& bad :
       {std::string("http://game.example.com/"), std::string("ws://"), std::string("wss:///path"),
        std::string("ws://a b/"), std::string("game.example.com:7778"),
        "ws://" + std::string(300, 'w')}) {
    const ConfigFile f(with_url(bad));
    EXPECT_THROW((void)LoadServerConfig(f.path()), config::ConfigError) << bad;
  }
}

// cluster.standby (--standby): off unless said; its poll interval checked like the rest.
TEST(ServerConfig, StandbyIsReadAndChecked) {
  const std::string cluster = "cluster: {nats_url: \"nats://n:4222\", public_address: \"h:1\"";
  EXPECT_FALSE(LoadServerConfig(ConfigFile(cluster + "}\n").path()).cluster.standby);
  const ServerConfig c =
      LoadServerConfig(ConfigFile(cluster + ", standby: true, standby_poll_seconds: 1}\n").path());
  EXPECT_TRUE(c.cluster.standby);
  EXPECT_EQ(c.cluster.standby_poll_seconds, 1);
  for (const char* bad : {", standby: maybe}\n", ", standby_poll_seconds: 0}\n"}) {
    const ConfigFile f(cluster + bad);
    EXPECT_THROW((void)LoadServerConfig(f.path()), config::ConfigError) << bad;
  }
}

}  // namespace
}  // namespace zs::config
