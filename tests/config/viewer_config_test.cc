// server.yaml's zone viewer settings under `admin:` (token, max_viewers, viewer_stall_seconds,
// web_dir): defaults, values, and bad values refused by key.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "config/config_loader.h"
#include "config/server_config.h"

namespace zs::config {
namespace {

namespace fs = std::filesystem;

// Loads a server.yaml whose admin line is `admin`.
ServerConfig LoadWithAdmin(const std::string& admin) {
  const fs::path dir =
      fs::temp_directory_path() / ("zs_viewer_config_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "server.yaml") << "listen: {address: 0.0.0.0, port: 7777}\n"
                                     << "admin: " << admin << "\n"
                                     << "world: world.yaml\n";
  struct Cleanup {
    fs::path d;
    ~Cleanup() { fs::remove_all(d); }
  } cleanup{dir};
  return LoadServerConfig((dir / "server.yaml").string());
}

TEST(ViewerConfig, DefaultsWithoutTheKeys) {
  const ServerConfig c = LoadWithAdmin("{address: 127.0.0.1, port: 9100}");
  EXPECT_EQ(c.admin_token, "");
  EXPECT_EQ(c.admin_max_viewers, 4u);
  EXPECT_EQ(c.admin_viewer_stall_s, 5);
  EXPECT_EQ(c.admin_web_dir, "");
}

TEST(ViewerConfig, ValuesAreRead) {
  const ServerConfig c = LoadWithAdmin(
      "{address: 127.0.0.1, port: 9100, token: Ab-9_.~x, max_viewers: 2, "
      "viewer_stall_seconds: 1.5, web_dir: ../web}");
  EXPECT_EQ(c.admin_token, "Ab-9_.~x");
  EXPECT_EQ(c.admin_max_viewers, 2u);
  EXPECT_EQ(c.admin_viewer_stall_s, 1.5);
  EXPECT_EQ(fs::path(c.admin_web_dir).filename(), "web");
}

TEST(ViewerConfig, BadValuesAreRefusedByKey) {
  for (const auto& [admin, key] : {
           std::pair{"{address: 127.0.0.1, port: 9100, token: 'a b'}", "token"},
           {"{address: 127.0.0.1, port: 9100, token: 'a&b=c'}", "token"},
           {"{address: 127.0.0.1, port: 9100, token: ''}", "token"},
           {"{address: 127.0.0.1, port: 9100, max_viewers: 65}", "max_viewers"},
           {"{address: 127.0.0.1, port: 9100, max_viewers: -1}", "max_viewers"},
           {"{address: 127.0.0.1, port: 9100, viewer_stall_seconds: 0}", "viewer_stall_seconds"},
           {"{address: 127.0.0.1, port: 9100, viewers: 2}", "viewers"},
       }) {
    try {
      (void)LoadWithAdmin(admin);
      ADD_FAILURE() << "accepted: " << admin;
    } catch (const config::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace zs::config
