#include "app/token_tool.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "auth/token.h"
#include "config/config_loader.h"
#include "config/server_config.h"
#include "names/player_name.h"

namespace zs::app {

CLI::App* AddTokenTool(CLI::App& cli, TokenToolArgs* args) {
  CLI::App* cmd = cli.add_subcommand("token", "Mint a login token (auth mode token) and exit");
  cmd->fallthrough();  // --config may come after `token` too, as docs/accounts.md writes it
  cmd->add_option("--account", args->account, "Account id (1..2^63-1)")
      ->required()
      ->check(CLI::Range(uint64_t{1}, static_cast<uint64_t>(INT64_MAX)));
  cmd->add_option("--name", args->name, "Character name")->required();
  cmd->add_option("--ttl", args->ttl_seconds, "Seconds the token stays valid")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{7 * 24 * 3600}));
  cmd->add_option("--secret-file", args->secret_file, "File holding the secret");
  cmd->add_option("--secret-env", args->secret_env, "Environment variable holding the secret");
  return cmd;
}

int RunTokenTool(const TokenToolArgs& args, const std::string& config_path) {
  if (const names::NameProblem p = names::CheckPlayerName(args.name).problem;
      p != names::NameProblem::kNone) {
    std::fprintf(stderr, "zone_server token: --name: %s\n", names::NameProblemText(p));
    return 2;
  }
  std::string secret;
  try {
    config::AuthConfig auth{.mode = auth::AuthMode::kToken,
                            .secret_file = args.secret_file,
                            .secret_env = args.secret_env};
    if (args.secret_file.empty() && args.secret_env.empty()) {
      auth = config::LoadServerConfig(config_path).auth;
      auth.mode = auth::AuthMode::kToken;
    }
    secret = config::ResolveAuthSecret(auth, [](const char* n) { return std::getenv(n); });
  } catch (const config::ConfigError& e) {
    std::fprintf(stderr, "zone_server token: %s\n", e.what());
    return 2;
  }
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const std::string token =
      auth::TokenCodec(std::move(secret))
          .Sign({.account = args.account, .name = args.name, .expiry = now + args.ttl_seconds});
  std::printf("%s\n", token.c_str());
  return 0;
}

}  // namespace zs::app
