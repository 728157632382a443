// The cluster protocol's constants: its version and the names it puts on NATS.
//
// proto/cluster.proto documents the messages; this header holds the facts both sides of a
// subject or bucket must agree on, each in one place. Changing any of them is a protocol change:
// bump kClusterProtocolVersion and say so in cluster.proto's version history.
#pragma once

#include <cstdint>
#include <string>

#include "zone/cells.h"

namespace zs::cluster {

// The version this build speaks (HandoffRequest.version, HandoffReply.version).
inline constexpr uint32_t kClusterProtocolVersion = 5;

// The JetStream key-value bucket of the zone directory (key: zone id in decimal; a cell of a
// split zone: CellKey).
inline constexpr const char* kZoneBucket = "zs_zones";

// Hand-off requests for zone `zone` go to this subject; its owner serves it. For a split zone,
// a request for an arrival in cell `cell` goes to that cell's subject, which its owner serves.
inline std::string HandoffSubject(uint32_t zone, uint32_t cell = zone::kWholeZone) {
  std::string s = "zs.v1.handoff." + std::to_string(zone);
  return cell == zone::kWholeZone ? s : s + "." + std::to_string(cell);
}

// The directory key of cell `cell` of a split zone: "<zone id>.<cell>".
inline std::string CellKey(uint32_t zone, uint32_t cell) {
  return std::to_string(zone) + "." + std::to_string(cell);
}

// What is sent to cell `cell` of zone `zone` goes to subjects under this prefix; its owner
// listens to them all with one subscription (CellSubjects), so that what one node sends it is
// taken in the order sent (a migrated player's last relayed frame before the batch that hands
// the player back).
inline std::string CellSubjectPrefix(uint32_t zone, uint32_t cell) {
  return "zs.v1.cell." + std::to_string(zone) + "." + std::to_string(cell) + ".";
}
inline std::string CellSubjects(uint32_t zone, uint32_t cell) {
  return CellSubjectPrefix(zone, cell) + ">";
}
inline constexpr const char* kGhostsSuffix = "ghosts";  // GhostBatch
inline constexpr const char* kRelaySuffix = "relay";    // Relay
inline constexpr const char* kChatSuffix = "chat";      // ZoneChat
// Ghost batches for cell `cell` of zone `zone`.
inline std::string GhostSubject(uint32_t zone, uint32_t cell) {
  return CellSubjectPrefix(zone, cell) + kGhostsSuffix;
}
// Relay messages (a migrated player's inputs and frames) for the node of cell `cell`.
inline std::string RelaySubject(uint32_t zone, uint32_t cell) {
  return CellSubjectPrefix(zone, cell) + kRelaySuffix;
}
// `zone` chat for the node of cell `cell` of zone `zone`.
inline std::string ChatSubject(uint32_t zone, uint32_t cell) {
  return CellSubjectPrefix(zone, cell) + kChatSuffix;
}

}  // namespace zs::cluster
