// Relay messages on the cluster wire: a migrated player's client's inputs and frames between its
// home node and the node that owns the player (docs/seamless.md "Relay"; proto/cluster.proto,
// Relay). In cluster_codec (protobuf, zone, wire; no NATS), so a fuzz target can build it.
//
// Errors: the bytes come from another process. DecodeRelay refuses what is not a Relay, of
// another version, for a zone or cell the world does not split that way, from a node that is
// not the configured owner of the sending cell (host::BorderRefusal), or whose input or frame
// is invalid (kUnparsable: a non-finite number, a session beyond kMaxRelayedSession, a chat
// text that is not text, a frame over kMaxRelayedFrame or with a bad length prefix, a tick
// frame without its tick, an unknown enum, a held notice of no or too many sessions or not from
// the home). The zone checks an input's values as any input's.
//
// Threads: pure functions, no state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster.pb.h"
#include "host/border_port.h"
#include "host/client_input.h"
#include "host/relay_port.h"
#include "host/session_sink.h"
#include "zone/world_config.h"

namespace zs::cluster {

inline constexpr size_t kMaxRelayedFrame = size_t{1} << 20;  // NATS' default payload limit
inline constexpr size_t kMaxRelayedName = 64;                // a whisper's recipient
inline constexpr size_t kMaxHeldSessions = 8192;             // sessions in one held notice

// One relay message, decoded.
struct RelayMessage {
  host::RelayAddress to;  // zone, receiving cell, the client's home cell and session there
  uint32_t from_cell = 0;
  // kHeld: home to owner, the clients the home still holds (to.session 0, home_cell from_cell).
  enum class What : uint8_t { kInput, kFrame, kLeave, kHeld } what = What::kLeave;
  host::ClientInput input = {};                   // kInput
  std::string frame = {};                         // kFrame: a whole client frame
  host::FrameKind kind = host::FrameKind::kTick;  // kFrame
  uint64_t tick = 0;       // kFrame of a TickUpdate: its tick (wire::TickOfFrame)
  std::string close = {};  // kFrame: the close reason's name after this frame (empty: no close)
  std::vector<uint64_t> sessions = {};  // kHeld: 1 .. kMaxHeldSessions sessions at the home
};

// `m` as node `node` (the owner of m.from_cell) sends it, into *out; `scratch` is reused.
void EncodeRelay(const RelayMessage& m, const std::string& node, v1::Relay* scratch,
                 std::string* out);

// A relay message from another node, or why it is none (nullopt: *out is the message).
[[nodiscard]] std::optional<host::BorderRefusal> DecodeRelay(std::string_view bytes,
                                                             const zone::WorldConfig& world,
                                                             RelayMessage* out);

}  // namespace zs::cluster
