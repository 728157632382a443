// Player names by the Unicode rules, with ICU (libicu): names end up in other players' UIs, in
// logs and in the database, so a name must be visible text that cannot pass for another.
//
// The rules, in order (each refusal has its own NameProblem and text):
//   1. well-formed UTF-8;
//   2. normalised to NFC before anything else: the two spellings of "Zoë" are one name, and the
//      NFC form is the character's name from then on;
//   3. 1..kMaxPlayerName bytes of UTF-8 (NFC);
//   4. no control character or line/paragraph separator; no noncharacter (U+FDD0..U+FDEF,
//      U+xFFFE/U+xFFFF); no unassigned code point (ICU 72's Unicode 15); no default-ignorable
//      code point or format character (zero-width, bidi controls, variation selectors, tags,
//      Hangul fillers, U+FFF9..U+FFFB, ...);
//   5. spaces: only U+0020, one at a time, between words (no NBSP, EM SPACE, U+3000, ...);
//   6. not starting with a combining mark;
//   7. UTS #39: every character in the identifier profile (the General Security Profile's
//      Recommended set plus its Inclusion set: letters and digits of modern scripts, and
//      ' - . : · and a few more), scripts mixed no more than restriction level "moderately
//      restrictive" allows (Latin with one other script, but not Cyrillic or Greek; Han with
//      Hiragana/Katakana, Bopomofo or Hangul), digits from one numbering system only.
//
// Two names "look alike" when their LookAlikeKey is equal: the UTS #39 confusable skeleton of
// the name, then NFKC case-folded (so "observer", "0bserver", "Observer" and "OBSERVER" share
// one key, as do all-Cyrillic "сосо" and Latin "coco", and "modern" and "rnodern"). The
// skeleton comes first: a capital I is l's look-alike, so "Ivan" shares "lvan"'s key and "ivan"
// has its own. The server keeps at most one character per key, online and stored.
//
// Threads: every function may be called from any thread (ICU's checker is configured once,
// then only read).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace zs::names {

inline constexpr size_t kMaxPlayerName = 32;  // bytes of UTF-8, after NFC

enum class NameProblem : uint8_t {
  kNone = 0,
  kLength,          // empty, or longer than kMaxPlayerName bytes once in NFC
  kInvalidUtf8,     // not well-formed UTF-8 (overlong, surrogate, truncated, > U+10FFFF)
  kControl,         // a control character or a line/paragraph separator
  kInvisible,       // a default-ignorable or format character (zero-width, bidi, tag, filler)
  kSpaces,          // a space other than U+0020, or a space leading, trailing or doubled
  kNonCharacter,    // U+FDD0..U+FDEF or U+xFFFE/U+xFFFF
  kUnassigned,      // a code point Unicode has not assigned
  kStartsWithMark,  // the first character is a combining mark
  kNotAllowed,      // a character outside the identifier profile (symbols, fullwidth, math...)
  kMixedScripts,    // scripts mixed beyond "moderately restrictive", or mixed digit systems
};

struct CheckedName {
  NameProblem problem = NameProblem::kNone;
  std::string name;  // the NFC form (empty when the input is not UTF-8)
};

// `raw` judged by the rules above; `name` is its NFC form.
[[nodiscard]] CheckedName CheckPlayerName(std::string_view raw);

// The look-alike key of a name that passed CheckPlayerName (its NFC form).
[[nodiscard]] std::string LookAlikeKey(std::string_view name);

// The client-facing explanation (the Error frame's text), e.g. "player_name must be 1..32
// bytes of UTF-8".
[[nodiscard]] const char* NameProblemText(NameProblem p);

}  // namespace zs::names
