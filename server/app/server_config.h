// ServerConfig: config/server.yaml (listen addresses, world file, limits, logging), loaded
// with the same file/key/problem errors as the world config.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "net/limits.h"

namespace zs::app {

struct ServerConfig {
  std::string listen_address = "0.0.0.0";
  uint16_t port = 7777;
  std::string admin_address = "127.0.0.1";
  uint16_t admin_port = 9100;
  size_t admin_max_connections = 16;  // concurrent admin HTTP connections (oldest idle evicted)
  std::string world_path = "config/world.yaml";
  unsigned io_threads = 2;
  unsigned sim_threads = 0;  // views and frames of the tick; 0: one per core
  std::string log_level = "info";
  double stats_interval_s = 10;
  std::optional<uint32_t> tick_rate;
  net::Limits limits;
};

// Throws zone::ConfigError naming the file, key and problem.
ServerConfig LoadServerConfig(const std::string& path);

}  // namespace zs::app
