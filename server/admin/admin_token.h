// The admin token (admin.token): when set, /viewer and its WebSocket need `?token=<token>` in
// the URL. A query parameter, not a header, because a browser's WebSocket API cannot set
// headers (and Sec-WebSocket-Protocol is for sub-protocols, not secrets). The token is compared
// as it appears in the URL (no percent-decoding): the config loader allows only URL-safe
// characters in it. The comparison takes the same time whatever the guess.
#pragma once

#include <string_view>

namespace zs::admin {

// Request target "path?query" split in two (query empty when there is none).
struct Target {
  std::string_view path;
  std::string_view query;
};
inline Target SplitTarget(std::string_view target) {
  const size_t q = target.find('?');
  if (q == std::string_view::npos) return {.path = target, .query = {}};
  return {.path = target.substr(0, q), .query = target.substr(q + 1)};
}

// The value of `name` in "a=1&b=2" (the first occurrence), or nullopt-like `found == false`.
struct QueryValue {
  bool found = false;
  std::string_view value;
};
inline QueryValue FindQueryParam(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view part = query.substr(0, amp);
    if (part.size() > name.size() && part.substr(0, name.size()) == name &&
        part[name.size()] == '=') {
      return {.found = true, .value = part.substr(name.size() + 1)};
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return {};
}

// True when `given` equals `expected`, in time that depends only on expected's length.
inline bool ConstantTimeEqual(std::string_view given, std::string_view expected) {
  unsigned diff = given.size() == expected.size() ? 0u : 1u;
  for (size_t i = 0; i < expected.size(); ++i) {
    const char g = i < given.size() ? given[i] : '\0';
    diff |= static_cast<unsigned>(static_cast<unsigned char>(g) ^
                                  static_cast<unsigned char>(expected[i]));
  }
  return diff == 0;
}

// URL-safe token characters (RFC 3986 unreserved), so a token never needs escaping.
inline bool IsTokenText(std::string_view token) {
  if (token.empty() || token.size() > 256) return false;
  for (const char c : token) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '.' || c == '_' || c == '~';
    if (!ok) return false;
  }
  return true;
}

}  // namespace zs::admin
