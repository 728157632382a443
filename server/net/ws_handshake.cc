#include "net/ws_handshake.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "wire/protocol.h"

namespace zs::net {

namespace {

constexpr std::string_view kPrefix = "zone.v";

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool EqualNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// The version a `zone.v<N>` token names (digits only, no sign or leading zero), or nullopt.
std::optional<uint32_t> VersionOf(std::string_view token) {
  if (!token.starts_with(kPrefix)) return std::nullopt;
  const std::string_view digits = token.substr(kPrefix.size());
  if (digits.empty() || digits.size() > 9 || digits.front() == '0') return std::nullopt;
  uint32_t v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return v;
}

}  // namespace

std::string SubprotocolName(uint32_t version) {
  return std::string(kPrefix) + std::to_string(version);
}

std::optional<uint32_t> ChooseSubprotocol(std::string_view offered) {
  std::optional<uint32_t> best;
  while (!offered.empty()) {
    const size_t comma = offered.find(',');
    const std::string_view token = Trim(offered.substr(0, comma));
    offered = comma == std::string_view::npos ? std::string_view() : offered.substr(comma + 1);
    const std::optional<uint32_t> v = VersionOf(token);
    if (v && *v >= wire::kMinProtocolVersion && *v <= wire::kProtocolVersion &&
        (!best || *v > *best)) {
      best = v;
    }
  }
  return best;
}

std::string SubprotocolRange() {
  return SubprotocolName(wire::kMinProtocolVersion) + " .. " +
         SubprotocolName(wire::kProtocolVersion);
}

bool OriginAllowed(std::string_view origin, std::string_view host,
                   std::span<const std::string> allowed) {
  if (origin.empty()) return true;
  for (const std::string& a : allowed) {
    if (a == "*" || EqualNoCase(a, origin)) return true;
  }
  if (host.empty()) return false;
  for (const std::string_view scheme : {"http://", "https://"}) {
    if (origin.size() == scheme.size() + host.size() &&
        EqualNoCase(origin.substr(0, scheme.size()), scheme) &&
        EqualNoCase(origin.substr(scheme.size()), host)) {
      return true;
    }
  }
  return false;
}

}  // namespace zs::net
