// Authenticator: decides who a Hello logs in as.
//
// Mode `none` (the default, for development and tests): the Hello's player_name is the
// character and there are no accounts (account 0). Mode `token`: the Hello's auth_token must be
// a valid token (auth/token.h) minted by the studio's login service with the shared secret;
// it names the account and the character, and it logs in once: its MAC is remembered until it
// expires, so a captured token replayed later (after a logout, say) is refused. The memory of
// used tokens is bounded (`replay_cache_size`); when it is full and nothing in it has expired,
// logins are refused (and counted) rather than forgetting a token that could then be replayed.
//
// Thread-safe: sessions on any I/O thread call Check.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "auth/token.h"

namespace zs::auth {

enum class AuthMode : uint8_t { kNone, kToken };

struct AuthOptions {
  AuthMode mode = AuthMode::kNone;
  std::string secret;                    // token mode: >= kMinSecretBytes
  int64_t max_token_ttl_seconds = 3600;  // expiry further ahead than this is refused
  size_t replay_cache_size = 262144;     // used tokens remembered until they expire
};

class Authenticator {
 public:
  // REQUIRES: in token mode, options.secret.size() >= kMinSecretBytes.
  explicit Authenticator(AuthOptions options);

  [[nodiscard]] AuthMode mode() const { return mode_; }
  // Token mode: checks `token` at Unix time `now_s` and spends it. Refusal::kNone and *out set
  // when it logs in. (Mode none never calls this.)
  [[nodiscard]] Refusal Check(std::string_view token, int64_t now_s, Identity* out);
  [[nodiscard]] size_t remembered() const;  // used tokens in the replay cache

 private:
  [[nodiscard]] Refusal Spend(std::string_view mac, int64_t expiry, int64_t now_s);
  void ForgetExpired(int64_t now_s);  // REQUIRES: mu_ held

  const AuthMode mode_;
  const std::optional<TokenCodec> codec_;
  const int64_t max_ttl_s_;
  const size_t cache_size_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, int64_t> used_;  // guarded by mu_: MAC -> expiry
  std::multimap<int64_t, std::string> by_expiry_;  // guarded by mu_: the same, oldest first
};

}  // namespace zs::auth
