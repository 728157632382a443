// Viewer commands: what a viewer page may ask over its WebSocket, as short text messages
// (every byte from a browser is untrusted: a message is parsed strictly or refused).
//
//   "zone <id>"      watch zone <id> (a zone id from the hello message)
//   "select <id>"    follow entity <id> (its interest set, view radius, bytes per second);
//                    "select 0" clears the selection
//   "pause" / "resume"   stop / restart the frames (the page keeps its last picture)
//
// At most kMaxViewerCommandBytes; ids are decimal, up to 2^32-1, with one space before them.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace zs::admin {

inline constexpr size_t kMaxViewerCommandBytes = 64;

struct ViewerCommand {
  enum class Kind : uint8_t { kZone, kSelect, kPause, kResume } kind = Kind::kPause;
  uint32_t value = 0;  // kZone: zone id; kSelect: raw entity id (0: none)
};

// nullopt for anything but the commands above (the session then closes with a reason).
[[nodiscard]] std::optional<ViewerCommand> ParseViewerCommand(std::string_view text);

}  // namespace zs::admin
