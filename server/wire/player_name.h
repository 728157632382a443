// Player names: what a client may call itself. Names end up in logs, in other players' UIs and
// (later) in the database, so only visible text is accepted: valid UTF-8, 1..kMaxPlayerName
// bytes, and none of the characters that can fake a log line or disguise a name.
//
// Refused: C0 and C1 control characters (including CR, LF, TAB and DEL); the Unicode line and
// paragraph separators (U+2028, U+2029); bidirectional formatting (U+061C, U+200E, U+200F,
// U+202A..U+202E, U+2066..U+2069); zero-width and invisible characters (U+00AD, U+034F,
// U+180E, U+200B..U+200F, U+2060..U+2064, U+FEFF); leading or trailing spaces. Everything else
// that is well-formed is allowed (a private-use code point shows as a box at worst). Pure.
#pragma once

#include <cstddef>
#include <string_view>

namespace zs::wire {

inline constexpr size_t kMaxPlayerName = 32;  // bytes of UTF-8

enum class NameProblem : uint8_t {
  kNone = 0,
  kLength,       // empty or longer than kMaxPlayerName bytes
  kInvalidUtf8,  // not well-formed UTF-8 (overlong, surrogate, truncated, > U+10FFFF)
  kControl,      // a control character or a line/paragraph separator
  kInvisible,    // bidirectional formatting or a zero-width/invisible character
  kSpaces,       // leading or trailing space
};

// The problem with `name`, or kNone.
[[nodiscard]] NameProblem CheckPlayerName(std::string_view name);

// Chat text: 1..kMaxChatText bytes of valid UTF-8 without control characters, line or
// paragraph separators or bidirectional overrides (zero-width joiners are allowed: emoji and
// some scripts need them).
inline constexpr size_t kMaxChatText = 256;
[[nodiscard]] bool IsChatText(std::string_view text);

// The client-facing explanation (the Error frame's text), e.g. "player_name must be 1..32
// bytes of UTF-8".
[[nodiscard]] const char* NameProblemText(NameProblem p);

}  // namespace zs::wire
