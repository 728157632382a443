// The envelope every message between the cells of a split zone shares (proto/cluster.proto:
// GhostBatch, ZoneChat, Relay): version, zone_id, from_cell, to_cell, from_node. One check of
// it for every decoder, so the refusals mean the same whatever the message.
//
// Threads: pure functions, no state.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "cluster/cluster_protocol.h"
#include "host/border_port.h"
#include "zone/world_config.h"

namespace zs::cluster {

// Parses `bytes` (at most `max_bytes`) into *m and checks its envelope: kUnparsable (not such a
// message, or too long), kVersion (another protocol version), kNotSplit (a zone the world does
// not split, or a sending or receiving cell beyond its cells), kWrongSender (from_node is not
// the configured owner of from_cell). nullopt: *m is parsed and *zone is its zone.
template <class Message>
[[nodiscard]] std::optional<host::BorderRefusal> ParseCellMessage(std::string_view bytes,
                                                                  size_t max_bytes,
                                                                  const zone::WorldConfig& world,
                                                                  Message* m,
                                                                  const zone::ZoneConfig** zone) {
  using host::BorderRefusal;
  if (bytes.size() > max_bytes ||
      !m->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return BorderRefusal::kUnparsable;
  }
  if (m->version() != kClusterProtocolVersion) return BorderRefusal::kVersion;
  const zone::ZoneConfig* z = world.FindZone(m->zone_id());
  if (z == nullptr || !z->cells.split() || m->from_cell() >= z->cells.count() ||
      m->to_cell() >= z->cells.count()) {
    return BorderRefusal::kNotSplit;
  }
  if (m->from_node() != z->cells.nodes[m->from_cell()]) return BorderRefusal::kWrongSender;
  *zone = z;
  return std::nullopt;
}

}  // namespace zs::cluster
