// Player names by the Unicode rules (names/player_name.h), with ICU's own data: each refusal has
// its own reason, NFC comes first, and look-alikes share one key. The cases include every name
// the trust review found accepted although the rules refuse it.
#include "names/player_name.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace zs::names {
namespace {

NameProblem ProblemOf(const std::string& name) { return CheckPlayerName(name).problem; }

TEST(PlayerName, NamesOfModernScriptsAreAccepted) {
  for (const char* ok :
       {"ada", "Ada Lovelace", "Élodie", "Jean-Luc", "O'Neil", "李小龍", "さくら", "김민수",
        "Ελένη", "Иван", "محمد", "דוד", "अर्जुन", "x", "Zoë", "player42", "ナルト"}) {
    EXPECT_EQ(ProblemOf(ok), NameProblem::kNone) << ok;
  }
  EXPECT_EQ(ProblemOf(std::string(32, 'x')), NameProblem::kNone);
}

TEST(PlayerName, NfcComesFirstAndIsTheName) {
  const std::string composed = "Zo\xc3\xab";     // U+00EB
  const std::string decomposed = "Zoe\xcc\x88";  // e + U+0308
  EXPECT_EQ(CheckPlayerName(composed).name, composed);
  const CheckedName d = CheckPlayerName(decomposed);
  EXPECT_EQ(d.problem, NameProblem::kNone);
  EXPECT_EQ(d.name, composed) << "the decomposed spelling is the same name";
  EXPECT_EQ(LookAlikeKey(d.name), LookAlikeKey(composed));
  // 32 bytes decomposed is fewer composed: the length is the NFC form's.
  std::string long_decomposed;
  for (int i = 0; i < 10; ++i) long_decomposed += "e\xcc\x88";  // 30 bytes -> 20 composed
  EXPECT_EQ(CheckPlayerName(long_decomposed + "ab").name.size(), 22U);
}

TEST(PlayerName, LengthAndUtf8) {
  EXPECT_EQ(ProblemOf(""), NameProblem::kLength);
  EXPECT_EQ(ProblemOf(std::string(33, 'x')), NameProblem::kLength);
  EXPECT_EQ(ProblemOf(std::string(100000, 'x')), NameProblem::kLength);
  // Truncated, overlong, surrogate, beyond U+10FFFF, stray continuation, 0xFF.
  for (const char* bad :
       {"a\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\200a", "\xff"}) {
    EXPECT_EQ(ProblemOf(bad), NameProblem::kInvalidUtf8) << bad;
  }
}

TEST(PlayerName, ControlsNoncharactersUnassignedAndInvisibles) {
  for (const std::string& bad :
       std::vector<std::string>{"a\tb", "a\rb", "a\x7f", "a\xc2\x85", "a\xe2\x80\xa8",
                                "a\xe2\x80\xa9", std::string("a\0b", 3)}) {
    EXPECT_EQ(ProblemOf(bad), NameProblem::kControl) << bad;
  }
  // U+FFFF, U+FDD0, U+1FFFE.
  for (const char* bad : {"ab\xef\xbf\xbf", "a\xef\xb7\x90", "a\xf0\x9f\xbf\xbe"}) {
    EXPECT_EQ(ProblemOf(bad), NameProblem::kNonCharacter) << bad;
  }
  // U+0378 and U+E0080 are unassigned in Unicode 15.
  for (const char* bad : {"a\xcd\xb8", "a\xf3\xa0\x82\x80"}) {
    EXPECT_EQ(ProblemOf(bad), NameProblem::kUnassigned) << bad;
  }
  // Hangul fillers U+3164, U+FFA0, U+115F; VS16 U+FE0F; tag U+E0041; U+206A; U+FFF9; ZWSP,
  // ZWJ, RLO, LRI, BOM, soft hyphen, word joiner, ALM, CGJ.
  for (const char* bad :
       {"\xe3\x85\xa4", "a\xef\xbe\xa0", "\xe1\x85\x9f", "a\xef\xb8\x8f", "a\xf3\xa0\x81\x81",
        "a\xe2\x81\xaa", "a\xef\xbf\xb9", "a\xe2\x80\x8b", "a\xe2\x80\x8d", "\xe2\x80\256admin",
        "a\xe2\x81\xa6", "\xef\xbb\277a", "a\xc2\xad", "a\xe2\x81\xa0", "a\xd8\x9c", "a\xcd\x8f"}) {
    EXPECT_EQ(ProblemOf(bad), NameProblem::kInvisible) << bad;
  }
}

TEST(PlayerName, OnlySingleAsciiSpacesBetweenWords) {
  // Leading, trailing, doubled; NBSP and EM SPACE padding; only U+3000; only NBSP.
  for (const char* bad : {" ada", "ada ", "a  b", "\xc2\240ada", "ada\xe2\x80\x83", "\xe3\x80\x80",
                          "\xc2\xa0", "a\xc2\240b"}) {
    EXPECT_EQ(ProblemOf(bad), NameProblem::kSpaces) << bad;
  }
}

TEST(PlayerName, MarksSymbolsAndStyledLettersAreRefused) {
  EXPECT_EQ(ProblemOf("\xcc\x81"), NameProblem::kStartsWithMark);  // a lone U+0301
  EXPECT_EQ(ProblemOf("\xcc\201ab"), NameProblem::kStartsWithMark);
  // Braille blank U+2800, U+FFFC, private use U+E000, fullwidth and math-bold "observer", an
  // emoji.
  const std::string fullwidth = "ｏｂｓｅｒｖｅｒ";
  const std::string math_bold = "𝐨𝐛𝐬";
  for (const std::string& bad : std::vector<std::string>{
           "\xe2\xa0\x80", "a\xef\xbf\xbc", "a\xee\x80\x80", fullwidth, math_bold, "🐉dragon"}) {
    EXPECT_EQ(ProblemOf(bad), NameProblem::kNotAllowed) << bad;
  }
}

TEST(PlayerName, MixedScriptsBeyondModeratelyRestrictiveAreRefused) {
  // Latin with a Cyrillic or Greek o; Latin digits with Arabic-Indic ones.
  for (const char* bad : {"\xd0\276bserver", "\xce\277bserver", "obs\xd0\xb5rver", "ab1\xd9\xa3"}) {
    EXPECT_EQ(ProblemOf(bad), NameProblem::kMixedScripts) << bad;
  }
  // Latin with Han, Han with Hiragana: allowed at this level.
  EXPECT_EQ(ProblemOf("Li李"), NameProblem::kNone);
  EXPECT_EQ(ProblemOf("李さくら"), NameProblem::kNone);
}

TEST(PlayerName, LookAlikesShareAKey) {
  const std::string key = LookAlikeKey("observer");
  // Digit zero for o, capitals: each a valid name on its own.
  for (const char* alike : {"0bserver", "Observer", "OBSERVER"}) {
    EXPECT_EQ(ProblemOf(alike), NameProblem::kNone) << alike;
    EXPECT_EQ(LookAlikeKey(alike), key) << alike;
  }
  // All-Cyrillic "сосо" (U+0441 U+043E) is a valid name and Latin "coco"'s look-alike.
  const std::string cyrillic = "\xd1\x81\xd0\xbe\xd1\x81\xd0\xbe";
  EXPECT_EQ(ProblemOf(cyrillic), NameProblem::kNone);
  EXPECT_EQ(LookAlikeKey(cyrillic), LookAlikeKey("coco"));
  EXPECT_EQ(LookAlikeKey("rnodern"), LookAlikeKey("modern"));
  EXPECT_EQ(LookAlikeKey("Il1"), LookAlikeKey("lll"));
  // The skeleton comes before case folding: a capital I is l's look-alike, so "Ivan" shares
  // "lvan"'s key and "ivan" has its own.
  EXPECT_EQ(LookAlikeKey("Ivan"), LookAlikeKey("lvan"));
  EXPECT_NE(LookAlikeKey("observer"), LookAlikeKey("obsever"));
  EXPECT_NE(LookAlikeKey("Ada"), LookAlikeKey("Eda"));
}

TEST(PlayerName, EveryProblemHasItsOwnText) {
  std::vector<std::string> seen;
  for (auto p : {NameProblem::kLength, NameProblem::kInvalidUtf8, NameProblem::kControl,
                 NameProblem::kInvisible, NameProblem::kSpaces, NameProblem::kNonCharacter,
                 NameProblem::kUnassigned, NameProblem::kStartsWithMark, NameProblem::kNotAllowed,
                 NameProblem::kMixedScripts}) {
    const std::string text = NameProblemText(p);
    EXPECT_NE(text.find("player_name"), std::string::npos) << text;
    for (const std::string& other : seen) EXPECT_NE(text, other);
    seen.push_back(text);
  }
}

}  // namespace
}  // namespace zs::names
