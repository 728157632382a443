// Fault names and the cooldowns column's text form.
#include "storage/character_record.h"

#include <charconv>

namespace zs::storage {

const char* FaultName(Fault f) {
  switch (f) {
    case Fault::kBusy:
      return "busy";
    case Fault::kReadOnly:
      return "read_only";
    case Fault::kFull:
      return "full";
    case Fault::kMissing:
      return "missing";
    case Fault::kCorrupt:
      return "corrupt";
    case Fault::kConnection:
      return "connection";
    case Fault::kOther:
    case Fault::kCount:
      break;
  }
  return "other";
}

namespace {

constexpr char kPairSeparator = ',';
constexpr char kFieldSeparator = ':';

// A whole decimal uint32, nothing else.
bool ParseU32(std::string_view text, uint32_t* out) {
  const char* last = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), last, *out);
  return ec == std::errc() && ptr == last;
}

}  // namespace

std::string EncodeCooldowns(const zone::PlayerSnapshot& state) {
  std::string out;
  for (uint32_t i = 0; i < state.num_cooldowns && i < zone::kMaxSkills; ++i) {
    if (i > 0) out += kPairSeparator;
    out += std::to_string(state.cooldowns[i].skill);
    out += kFieldSeparator;
    out += std::to_string(state.cooldowns[i].remaining_ms);
  }
  return out;
}

bool DecodeCooldowns(std::string_view text, zone::PlayerSnapshot* state) {
  state->cooldowns = {};
  state->num_cooldowns = 0;
  if (text.empty()) return true;
  while (state->num_cooldowns < zone::kMaxSkills) {
    const size_t end = text.find(kPairSeparator);
    const std::string_view pair = text.substr(0, end);
    const size_t colon = pair.find(kFieldSeparator);
    if (colon == std::string_view::npos) return false;
    zone::SkillCooldown& c = state->cooldowns[state->num_cooldowns];
    if (!ParseU32(pair.substr(0, colon), &c.skill) ||
        !ParseU32(pair.substr(colon + 1), &c.remaining_ms)) {
      return false;
    }
    ++state->num_cooldowns;
    if (end == std::string_view::npos) return true;
    text.remove_prefix(end + 1);
  }
  return false;  // more than kMaxSkills pairs
}

}  // namespace zs::storage
