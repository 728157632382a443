// Login tokens: what a studio's login service hands a player so this server lets them in as
// one character of one account. The server never issues them; it only checks them.
//
// Format (docs/accounts.md has a Python example that mints one):
//   token   = "zs1." base64url(payload) "." base64url(HMAC-SHA256(secret, "zs1."
//   base64url(payload))) payload = account "\n" expiry "\n" name
// where account is a decimal id in 1..2^63-1, expiry the Unix time in seconds after which the
// token is void, and name the character's name (the rules of names::CheckPlayerName; Verify
// gives it in NFC). base64url
// is RFC 4648 section 5 without padding. The MAC is computed with OpenSSL (no hand-written
// crypto) and compared in constant time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace zs::auth {

// Tokens longer than this are refused before any work (a real one is ~120 bytes).
inline constexpr size_t kMaxTokenBytes = 512;
// Secrets shorter than this are refused at start-up (HMAC-SHA256's own block of strength).
inline constexpr size_t kMinSecretBytes = 32;

struct Identity {
  uint64_t account = 0;
  std::string name;
  int64_t expiry = 0;  // Unix seconds
};

// Why a token was refused: for the server's log and metrics only. The client is told
// "authentication failed" whatever the reason, so an attacker learns nothing from it.
enum class Refusal : uint8_t {
  kNone = 0,
  kTooLong,
  kMalformed,     // not three dot-separated base64url parts of the right version and sizes
  kBadSignature,  // forged, or signed with another secret
  kBadPayload,    // signed, but the fields do not parse
  kBadName,       // signed, but the name breaks the name rules
  kExpired,
  kTooFarAhead,  // expiry beyond now + the longest lifetime the server accepts
  kReplayed,     // already used once (a token logs in once)
  kCacheFull,    // the replay cache is full: refusing is safer than forgetting a token
};
[[nodiscard]] const char* RefusalName(Refusal r);

// `bytes` random bytes from OpenSSL's CSPRNG, base64url-encoded (nonces, hand-off tickets).
// Empty if the generator fails (a caller must refuse rather than use a guessable value).
[[nodiscard]] std::string RandomBase64Url(size_t bytes);

class TokenCodec {
 public:
  // REQUIRES: secret.size() >= kMinSecretBytes (checked by the caller at start-up).
  explicit TokenCodec(std::string secret) : secret_(std::move(secret)) {}

  // A new token for `id` with a random nonce.
  [[nodiscard]] std::string Sign(const Identity& id) const;
  // Checks the format and the MAC (constant time) and parses the payload. Does not look at
  // the clock or the replay cache (Authenticator does).
  [[nodiscard]] Refusal Verify(std::string_view token, Identity* out) const;
  // The MAC part of a well-formed token (what the replay cache remembers).
  [[nodiscard]] static std::string_view MacPart(std::string_view token);

 private:
  [[nodiscard]] std::string Mac(std::string_view signed_part) const;
  std::string secret_;
};

}  // namespace zs::auth
