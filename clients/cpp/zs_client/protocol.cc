#include "zs_client/protocol.h"

#include <charconv>

namespace zs::client {
namespace {

// The code point of the UTF-8 sequence at text[i], advancing i; nullopt when malformed
// (truncated, a bad continuation, overlong, a surrogate or above U+10FFFF).
std::optional<uint32_t> DecodeUtf8(std::string_view text, size_t* i) {
  const auto b0 = static_cast<uint8_t>(text[*i]);
  int extra = 0;
  uint32_t cp = 0;
  uint32_t min = 0;
  if (b0 < 0x80) {
    ++*i;
    return b0;
  }
  if ((b0 & 0xE0U) == 0xC0U) {
    extra = 1, cp = b0 & 0x1FU, min = 0x80;
  } else if ((b0 & 0xF0U) == 0xE0U) {
    extra = 2, cp = b0 & 0x0FU, min = 0x800;
  } else if ((b0 & 0xF8U) == 0xF0U) {
    extra = 3, cp = b0 & 0x07U, min = 0x10000;
  } else {
    return std::nullopt;
  }
  if (text.size() - *i <= static_cast<size_t>(extra)) return std::nullopt;  // truncated
  for (int k = 1; k <= extra; ++k) {
    const auto b = static_cast<uint8_t>(text[*i + static_cast<size_t>(k)]);
    if ((b & 0xC0U) != 0x80U) return std::nullopt;
    cp = (cp << 6U) | (b & 0x3FU);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return std::nullopt;
  *i += static_cast<size_t>(extra) + 1;
  return cp;
}

}  // namespace

std::string Subprotocol(uint32_t version) { return "zone.v" + std::to_string(version); }

std::optional<uint32_t> VersionOfSubprotocol(std::string_view protocol) {
  constexpr std::string_view kPrefix = "zone.v";
  if (protocol.size() <= kPrefix.size() || protocol.substr(0, kPrefix.size()) != kPrefix) {
    return std::nullopt;
  }
  const std::string_view digits = protocol.substr(kPrefix.size());
  uint32_t v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return v;
}

bool IsCleanText(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const std::optional<uint32_t> cp = DecodeUtf8(text, &i);
    if (!cp) return false;
    if (*cp < 0x20 || (*cp >= 0x7F && *cp <= 0x9F) || *cp == 0x2028 || *cp == 0x2029) {
      return false;
    }
  }
  return true;
}

}  // namespace zs::client
