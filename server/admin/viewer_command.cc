#include "admin/viewer_command.h"

#include <charconv>

namespace zs::admin {

namespace {

// "<word> <decimal u32>" exactly: no sign, no leading or trailing spaces, no other characters.
std::optional<uint32_t> Argument(std::string_view text, std::string_view word) {
  if (text.size() <= word.size() + 1 || text.substr(0, word.size()) != word ||
      text[word.size()] != ' ') {
    return std::nullopt;
  }
  const std::string_view digits = text.substr(word.size() + 1);
  if (digits.empty() || digits.front() < '0' || digits.front() > '9') return std::nullopt;
  uint32_t v = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<ViewerCommand> ParseViewerCommand(std::string_view text) {
  using Kind = ViewerCommand::Kind;
  if (text.size() > kMaxViewerCommandBytes) return std::nullopt;
  if (text == "pause") return ViewerCommand{.kind = Kind::kPause};
  if (text == "resume") return ViewerCommand{.kind = Kind::kResume};
  if (const auto z = Argument(text, "zone")) return ViewerCommand{.kind = Kind::kZone, .value = *z};
  if (const auto e = Argument(text, "select")) {
    return ViewerCommand{.kind = Kind::kSelect, .value = *e};
  }
  return std::nullopt;
}

}  // namespace zs::admin
