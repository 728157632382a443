// BorderBatch: a split zone's border batch as the host sends and receives it (docs/seamless.md).
// The zone's batch (zone::GhostBatch: what the simulation checks and applies) travels in the
// host's own envelope, beside the host's data the zone never reads: where the clients of the
// batch's player migrants are, and when the batch was sent.
//
// Plain data; no threads.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/entity_id.h"
#include "zone/border_types.h"

namespace zs::host {

// Where the client of a player migrant is connected (ClientRelay fills it as the batch leaves,
// and reads it as the batch arrives). A player migrant with none (its client left in the tick
// it crossed) goes with an empty home and session 0: the receiver lets it go.
struct MigrantClient {
  EntityId entity = kInvalidEntity;  // the migrant (its body.id)
  std::string home;                  // the node holding the connection
  uint64_t session = 0;              // its session there
  uint64_t account = 0;
  uint64_t last_frame_tick = 0;   // the tick number of the last frame its client was sent
  uint32_t protocol_version = 0;  // the version its client speaks (0: not told, the oldest)
};

// A batch from another node: the zone's part, and the host's.
struct BorderBatch {
  zone::GhostBatch batch;
  std::vector<MigrantClient> clients;  // one per player migrant of batch, in its order
  // When the sender published it (its wall clock, microseconds since the Unix epoch; 0: not
  // known): the migration latency's start.
  uint64_t sent_at_us = 0;
};

// The client of player migrant `entity` in `clients`; null when none is listed.
[[nodiscard]] inline const MigrantClient* ClientOf(std::span<const MigrantClient> clients,
                                                   EntityId entity) {
  for (const MigrantClient& c : clients) {
    if (c.entity == entity) return &c;
  }
  return nullptr;
}

}  // namespace zs::host
