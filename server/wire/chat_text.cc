#include "wire/chat_text.h"

#include <cstdint>

namespace zs::wire {

namespace {

// Decodes one code point starting at s[*i]; advances *i. Returns -1 for malformed UTF-8.
int32_t NextCodePoint(std::string_view s, size_t* i) {
  const auto b0 = static_cast<uint8_t>(s[*i]);
  if (b0 < 0x80) {
    ++*i;
    return b0;
  }
  size_t len = 0;
  int32_t cp = 0;
  int32_t min = 0;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return -1;  // a continuation byte or 0xF8..0xFF where a code point starts
  }
  if (*i + len > s.size()) return -1;
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<uint8_t>(s[*i + k]);
    if ((b & 0xC0) != 0x80) return -1;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
  *i += len;
  return cp;
}

bool IsControl(int32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029;
}

}  // namespace

bool IsChatText(std::string_view text) {
  if (text.empty() || text.size() > kMaxChatText) return false;
  for (size_t i = 0; i < text.size();) {
    const int32_t cp = NextCodePoint(text, &i);
    if (cp < 0 || IsControl(cp)) return false;
    if (cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
        (cp >= 0x2066 && cp <= 0x2069)) {
      return false;  // text-direction controls: they can make a line read as something else
    }
  }
  return true;
}

}  // namespace zs::wire
