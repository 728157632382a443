#include "auth/authenticator.h"

namespace zs::auth {

Authenticator::Authenticator(AuthOptions options)
    : mode_(options.mode),
      codec_(options.mode == AuthMode::kToken ? std::optional<TokenCodec>(std::move(options.secret))
                                              : std::nullopt),
      max_ttl_s_(options.max_token_ttl_seconds),
      cache_size_(options.replay_cache_size) {}

Refusal Authenticator::Check(std::string_view token, int64_t now_s, Identity* out) {
  if (!codec_) return Refusal::kMalformed;
  Identity id;
  if (const Refusal r = codec_->Verify(token, &id); r != Refusal::kNone) return r;
  if (id.expiry <= now_s) return Refusal::kExpired;
  if (id.expiry - now_s > max_ttl_s_) return Refusal::kTooFarAhead;
  if (const Refusal r = Spend(TokenCodec::MacPart(token), id.expiry, now_s); r != Refusal::kNone) {
    return r;
  }
  *out = std::move(id);
  return Refusal::kNone;
}

Refusal Authenticator::Spend(std::string_view mac, int64_t expiry, int64_t now_s) {
  std::lock_guard lock(mu_);
  ForgetExpired(now_s);
  std::string key(mac);
  if (used_.contains(key)) return Refusal::kReplayed;
  if (used_.size() >= cache_size_) return Refusal::kCacheFull;
  used_.emplace(key, expiry);
  by_expiry_.emplace(expiry, std::move(key));
  return Refusal::kNone;
}

void Authenticator::ForgetExpired(int64_t now_s) {
  // A token that has expired can no longer log in anyway: forgetting it is safe.
  while (!by_expiry_.empty() && by_expiry_.begin()->first <= now_s) {
    used_.erase(by_expiry_.begin()->second);
    by_expiry_.erase(by_expiry_.begin());
  }
}

size_t Authenticator::remembered() const {
  std::lock_guard lock(mu_);
  return used_.size();
}

}  // namespace zs::auth
