// ServerConfig: the environment (ZS_ADMIN_LISTEN, ZS_ADMIN_PORT) beats the file; a bad variable
// is refused by name. That the command line beats both is checked on the real binary, in
// tests/integration/admin_env_test.cc.
#include "app/server_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "zone/config_loader.h"

namespace zs::app {
namespace {

namespace fs = std::filesystem;

// A server.yaml in a temporary directory, removed afterwards.
class ConfigFile {
 public:
  ConfigFile() {
    dir_ = fs::temp_directory_path() / ("zs_config_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::ofstream(path()) << "listen: {address: 0.0.0.0, port: 7777}\n"
                          << "admin: {address: 127.0.0.1, port: 9100}\n"
                          << "world: world.yaml\n";
  }
  ~ConfigFile() { fs::remove_all(dir_); }
  [[nodiscard]] std::string path() const { return (dir_ / "server.yaml").string(); }

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
    } catch (const zone::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("ZS_ADMIN_PORT"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace zs::app
