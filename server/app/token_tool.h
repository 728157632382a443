// `zone_server token`: mints a login token (auth/token.h) with the server's secret, so a studio
// can see the format and scripts and tests can log in. A real deployment mints tokens in its
// login service instead (docs/accounts.md shows the same in a few lines of Python).
//
//   zone_server token --account 42 --name Aria --ttl 300 [--config server.yaml]
//   zone_server token ... --secret-file /run/secrets/zs_auth     (or --secret-env VAR)
//
// The secret comes from the flags, else from the config's auth.secret_file / auth.secret_env.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace zs::app {

struct TokenToolArgs {
  uint64_t account = 0;
  std::string name;
  int64_t ttl_seconds = 300;
  std::string secret_file;
  std::string secret_env;
};

// Adds the `token` subcommand to `cli`, filling `args`.
CLI::App* AddTokenTool(CLI::App& cli, TokenToolArgs* args);
// Prints the token on stdout; returns the exit code (2: config or argument problem).
int RunTokenTool(const TokenToolArgs& args, const std::string& config_path);

}  // namespace zs::app
