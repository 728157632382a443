#include "auth/token.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <charconv>

#include "auth/base64url.h"
#include "names/player_name.h"

namespace zs::auth {

namespace {

constexpr std::string_view kVersionPrefix = "zs1.";
constexpr size_t kMacBytes = 32;    // SHA-256
constexpr size_t kNonceBytes = 12;  // random bytes behind a new token's nonce (16 characters)
constexpr size_t kMinNonceChars = 8;
constexpr size_t kMaxNonceChars = 64;

bool IsNonce(std::string_view s) {
  if (s.size() < kMinNonceChars || s.size() > kMaxNonceChars) return false;
  return s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") ==
         std::string_view::npos;
}

// Parses all of `text` as a decimal number (no sign, no spaces, no leading zeros but "0").
template <typename Int>
bool ParseDecimal(std::string_view text, Int* out) {
  if (text.empty() || (text.size() > 1 && text[0] == '0')) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

Refusal ParsePayload(std::string_view payload, Identity* out) {
  const size_t a = payload.find('\n');
  const size_t b = a == std::string_view::npos ? a : payload.find('\n', a + 1);
  const size_t c = b == std::string_view::npos ? b : payload.find('\n', b + 1);
  if (c == std::string_view::npos || !IsNonce(payload.substr(b + 1, c - b - 1))) {
    return Refusal::kBadPayload;
  }
  Identity id;
  if (!ParseDecimal(payload.substr(0, a), &id.account) || id.account == 0 ||
      id.account > static_cast<uint64_t>(INT64_MAX)) {
    return Refusal::kBadPayload;
  }
  if (!ParseDecimal(payload.substr(a + 1, b - a - 1), &id.expiry)) return Refusal::kBadPayload;
  names::CheckedName name = names::CheckPlayerName(payload.substr(c + 1));
  if (name.problem != names::NameProblem::kNone) return Refusal::kBadName;
  id.name = std::move(name.name);  // NFC: the character's name
  *out = std::move(id);
  return Refusal::kNone;
}

}  // namespace

const char* RefusalName(Refusal r) {
  switch (r) {
    case Refusal::kNone:
      return "none";
    case Refusal::kTooLong:
      return "too_long";
    case Refusal::kMalformed:
      return "malformed";
    case Refusal::kBadSignature:
      return "bad_signature";
    case Refusal::kBadPayload:
      return "bad_payload";
    case Refusal::kBadName:
      return "bad_name";
    case Refusal::kExpired:
      return "expired";
    case Refusal::kTooFarAhead:
      return "too_far_ahead";
    case Refusal::kReplayed:
      return "replayed";
    case Refusal::kCacheFull:
      return "cache_full";
  }
  return "unknown";
}

std::string TokenCodec::Mac(std::string_view signed_part) const {
  std::string mac(kMacBytes, '\0');
  unsigned int size = 0;
  const unsigned char* done =
      HMAC(EVP_sha256(), secret_.data(), static_cast<int>(secret_.size()),
           reinterpret_cast<const unsigned char*>(signed_part.data()), signed_part.size(),
           reinterpret_cast<unsigned char*>(mac.data()), &size);
  if (done == nullptr || size != kMacBytes) mac.assign(kMacBytes, '\0');  // never verifies
  return mac;
}

std::string RandomBase64Url(size_t bytes) {
  std::string raw(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(bytes)) != 1) {
    return {};
  }
  return Base64UrlEncode(raw);
}

std::string TokenCodec::Sign(const Identity& id) const {
  const std::string nonce = RandomBase64Url(kNonceBytes);
  if (nonce.empty()) return {};  // no randomness: no token (never verifies)
  const std::string payload =
      std::to_string(id.account) + "\n" + std::to_string(id.expiry) + "\n" + nonce + "\n" + id.name;
  std::string token = std::string(kVersionPrefix) + Base64UrlEncode(payload);
  const std::string mac = Mac(token);
  return token + "." + Base64UrlEncode(mac);
}

std::string_view TokenCodec::MacPart(std::string_view token) {
  const size_t dot = token.rfind('.');
  return dot == std::string_view::npos ? std::string_view() : token.substr(dot + 1);
}

Refusal TokenCodec::Verify(std::string_view token, Identity* out) const {
  if (token.size() > kMaxTokenBytes) return Refusal::kTooLong;
  if (!token.starts_with(kVersionPrefix)) return Refusal::kMalformed;
  const size_t dot = token.rfind('.');
  if (dot < kVersionPrefix.size()) return Refusal::kMalformed;
  const std::string_view signed_part = token.substr(0, dot);
  const std::optional<std::string> mac = Base64UrlDecode(token.substr(dot + 1));
  const std::optional<std::string> payload =
      Base64UrlDecode(signed_part.substr(kVersionPrefix.size()));
  if (!mac || mac->size() != kMacBytes || !payload) return Refusal::kMalformed;
  const std::string expected = Mac(signed_part);
  if (CRYPTO_memcmp(expected.data(), mac->data(), kMacBytes) != 0) return Refusal::kBadSignature;
  return ParsePayload(*payload, out);
}

}  // namespace zs::auth
