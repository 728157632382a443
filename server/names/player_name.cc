#include "names/player_name.h"

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/uniset.h>
#include <unicode/unistr.h>
#include <unicode/uspoof.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>

#include <memory>

namespace zs::names {

namespace {

// Longer input is refused before ICU sees it: NFC can shrink a name, but not from more than
// four bytes per code point of the result (a composed character).
constexpr size_t kMaxRawBytes = 4 * kMaxPlayerName;

// ICU's spoof checker, configured once: the identifier profile (Recommended + Inclusion, plus
// the ASCII space that rule 5 polices), restriction level "moderately restrictive", one
// digit system. Read-only afterwards, which ICU allows from many threads.
class Checker {
 public:
  Checker() {
    UErrorCode status = U_ZERO_ERROR;
    checker_.reset(uspoof_open(&status));
    icu::UnicodeSet allowed;  // a copy of a frozen set would be frozen too: built from empty
    allowed.addAll(*uspoof_getRecommendedUnicodeSet(&status));
    allowed.addAll(*uspoof_getInclusionUnicodeSet(&status));
    allowed.add(0x20);
    allowed.freeze();
    uspoof_setAllowedUnicodeSet(checker_.get(), &allowed, &status);
    uspoof_setRestrictionLevel(checker_.get(), USPOOF_MODERATELY_RESTRICTIVE);
    uspoof_setChecks(
        checker_.get(),
        USPOOF_RESTRICTION_LEVEL | USPOOF_CHAR_LIMIT | USPOOF_INVISIBLE | USPOOF_MIXED_NUMBERS,
        &status);
    nfc_ = icu::Normalizer2::getNFCInstance(status);
    fold_ = icu::Normalizer2::getNFKCCasefoldInstance(status);
    ok_ = U_SUCCESS(status);
  }

  // ICU's data is part of libicu: failing to load it is a broken installation, refused loudly
  // by every name rather than accepting names unchecked.
  [[nodiscard]] bool ok() const { return ok_; }
  [[nodiscard]] const icu::Normalizer2& nfc() const { return *nfc_; }
  [[nodiscard]] const icu::Normalizer2& fold() const { return *fold_; }
  [[nodiscard]] int32_t Check(const icu::UnicodeString& s) const {
    UErrorCode status = U_ZERO_ERROR;
    const int32_t result = uspoof_check2UnicodeString(checker_.get(), s, nullptr, &status);
    return U_SUCCESS(status) ? result : USPOOF_CHAR_LIMIT;
  }
  [[nodiscard]] icu::UnicodeString Skeleton(const icu::UnicodeString& s) const {
    UErrorCode status = U_ZERO_ERROR;
    icu::UnicodeString out;
    uspoof_getSkeletonUnicodeString(checker_.get(), 0, s, out, &status);
    return out;
  }

 private:
  struct Close {
    void operator()(USpoofChecker* c) const { uspoof_close(c); }
  };
  std::unique_ptr<USpoofChecker, Close> checker_;
  const icu::Normalizer2* nfc_ = nullptr;
  const icu::Normalizer2* fold_ = nullptr;
  bool ok_ = false;
};

const Checker& TheChecker() {
  static const Checker checker;
  return checker;
}

bool IsMark(UChar32 cp) {
  const auto type = static_cast<UCharCategory>(u_charType(cp));
  return type == U_NON_SPACING_MARK || type == U_ENCLOSING_MARK || type == U_COMBINING_SPACING_MARK;
}

// Rule 4 for one code point.
NameProblem CodePointProblem(UChar32 cp) {
  const auto type = static_cast<UCharCategory>(u_charType(cp));
  if (type == U_CONTROL_CHAR || type == U_LINE_SEPARATOR || type == U_PARAGRAPH_SEPARATOR) {
    return NameProblem::kControl;
  }
  if (U_IS_UNICODE_NONCHAR(cp)) return NameProblem::kNonCharacter;
  if (type == U_UNASSIGNED) return NameProblem::kUnassigned;
  if (type == U_FORMAT_CHAR || u_hasBinaryProperty(cp, UCHAR_DEFAULT_IGNORABLE_CODE_POINT)) {
    return NameProblem::kInvisible;
  }
  return NameProblem::kNone;
}

// Rules 4 to 6 over the NFC form.
NameProblem CodePointsProblem(const icu::UnicodeString& s) {
  bool after_space = true;  // a leading space counts as doubled
  for (int32_t i = 0; i < s.length();) {
    const UChar32 cp = s.char32At(i);
    if (const NameProblem p = CodePointProblem(cp); p != NameProblem::kNone) return p;
    const bool space = u_charType(cp) == U_SPACE_SEPARATOR;
    if (space && (cp != 0x20 || after_space)) return NameProblem::kSpaces;
    if (i == 0 && IsMark(cp)) return NameProblem::kStartsWithMark;
    after_space = space;
    i += U16_LENGTH(cp);
  }
  return after_space ? NameProblem::kSpaces : NameProblem::kNone;  // a trailing space
}

// Rule 7: UTS #39.
NameProblem ProfileProblem(const icu::UnicodeString& s) {
  const int32_t result = TheChecker().Check(s);
  if ((result & USPOOF_INVISIBLE) != 0) return NameProblem::kInvisible;
  if ((result & USPOOF_CHAR_LIMIT) != 0) return NameProblem::kNotAllowed;
  if ((result & (USPOOF_RESTRICTION_LEVEL | USPOOF_MIXED_NUMBERS)) != 0) {
    return NameProblem::kMixedScripts;
  }
  return NameProblem::kNone;
}

}  // namespace

CheckedName CheckPlayerName(std::string_view raw) {
  if (raw.empty() || raw.size() > kMaxRawBytes)
    return {.problem = NameProblem::kLength, .name = {}};
  // Rule 1: ICU's UTF-8 reader refuses ill-formed input (rather than substituting U+FFFD).
  UChar buffer[kMaxRawBytes];
  int32_t length = 0;
  UErrorCode status = U_ZERO_ERROR;
  u_strFromUTF8(buffer, kMaxRawBytes, &length, raw.data(), static_cast<int32_t>(raw.size()),
                &status);
  if (U_FAILURE(status)) return {.problem = NameProblem::kInvalidUtf8, .name = {}};
  const Checker& checker = TheChecker();
  if (!checker.ok()) return {.problem = NameProblem::kNotAllowed, .name = {}};
  // Rule 2: NFC first.
  const icu::UnicodeString nfc =
      checker.nfc().normalize(icu::UnicodeString(buffer, length), status);
  CheckedName out;
  nfc.toUTF8String(out.name);
  if (U_FAILURE(status)) return {.problem = NameProblem::kNotAllowed, .name = {}};
  if (out.name.empty() || out.name.size() > kMaxPlayerName) {
    out.problem = NameProblem::kLength;
  } else if (const NameProblem p = CodePointsProblem(nfc); p != NameProblem::kNone) {
    out.problem = p;
  } else {
    out.problem = ProfileProblem(nfc);
  }
  return out;
}

std::string LookAlikeKey(std::string_view name) {
  const Checker& checker = TheChecker();
  UErrorCode status = U_ZERO_ERROR;
  const icu::UnicodeString skeleton = checker.Skeleton(icu::UnicodeString::fromUTF8(
      icu::StringPiece(name.data(), static_cast<int32_t>(name.size()))));
  const icu::UnicodeString key = checker.fold().normalize(skeleton, status);
  std::string out;
  key.toUTF8String(out);
  return out;
}

const char* NameProblemText(NameProblem p) {
  switch (p) {
    case NameProblem::kNone:
      return "ok";
    case NameProblem::kLength:
      return "player_name must be 1..32 bytes of UTF-8";
    case NameProblem::kInvalidUtf8:
      return "player_name is not valid UTF-8";
    case NameProblem::kControl:
      return "player_name contains a control character or line break";
    case NameProblem::kInvisible:
      return "player_name contains an invisible, zero-width or text-direction character";
    case NameProblem::kSpaces:
      return "player_name may have single spaces between words only (U+0020)";
    case NameProblem::kNonCharacter:
      return "player_name contains a Unicode noncharacter";
    case NameProblem::kUnassigned:
      return "player_name contains a code point Unicode has not assigned";
    case NameProblem::kStartsWithMark:
      return "player_name starts with a combining mark";
    case NameProblem::kNotAllowed:
      return "player_name contains a character names may not use (symbols, fullwidth or styled "
             "letters, ...)";
    case NameProblem::kMixedScripts:
      return "player_name mixes scripts or digit systems in a way that can imitate another name";
  }
  return "bad player_name";
}

}  // namespace zs::names
