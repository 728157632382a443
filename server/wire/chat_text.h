// Chat text: what a client may say. Names are not here: names/player_name.h has their rules.
#pragma once

#include <cstddef>
#include <string_view>

namespace zs::wire {

// Chat text: 1..kMaxChatText bytes of valid UTF-8 without control characters, line or
// paragraph separators or bidirectional overrides (zero-width joiners are allowed: emoji and
// some scripts need them).
inline constexpr size_t kMaxChatText = 256;
[[nodiscard]] bool IsChatText(std::string_view text);

}  // namespace zs::wire
