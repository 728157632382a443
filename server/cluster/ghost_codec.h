// Ghost batches on the cluster wire: host::BorderBatch (the zone's batch in the host's envelope)
// <-> zs.cluster.v1.GhostBatch
// (docs/seamless.md; proto/cluster.proto). Its own library (cluster_codec: protobuf, zone, wire,
// no NATS), so the fuzz targets build it too (tests/fuzz/ghost_fuzz.cc).
//
// Errors: the bytes come from another process: DecodeGhostBatch refuses what is not a batch, of
// another version, for a zone or cell the world does not split that way, from a node that is not
// the configured owner of the sending cell, or with a name or a say that is not text
// (host::BorderRefusal); the zone checks the rest (zone::GhostVerdict).
//
// Threads: pure functions, no state.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "cluster.pb.h"
#include "host/border_batch.h"
#include "host/border_port.h"
#include "zone/world_config.h"
#include "zone/zone_types.h"

namespace zs::cluster {

// A split zone's `zone` chat of one tick for cell `to_cell`, as node `node` of process start
// `epoch` sends it (chat.epoch is ignored), into *out.
void EncodeZoneChat(const zone::ZoneChat& chat, uint32_t to_cell, const std::string& node,
                    uint64_t epoch, std::string* out);
// Another node's zone chat, or why it is none: as DecodeGhostBatch, and kUnparsable for no lines
// or more than zone::kMaxZoneLines, a speaker 0 or kInvalidEntity, a name or text that is not chat
// text or a name over kMaxZoneName bytes. *to_cell: the cell it was sent to.
inline constexpr size_t kMaxZoneName = 64;
[[nodiscard]] std::optional<host::BorderRefusal> DecodeZoneChat(std::string_view bytes,
                                                                const zone::WorldConfig& world,
                                                                zone::ZoneChat* out,
                                                                uint32_t* to_cell);

// `batch`, with `clients` (where the clients of its player migrants are: a player migrant not
// listed goes with none), as node `node` of process start `epoch` sends it at `sent_at_us` (the
// sender's wall clock; the batch's own epoch is ignored), into *out; `scratch` is reused between
// calls (no allocation once warm).
void EncodeGhostBatch(const zone::GhostBatch& batch, std::span<const host::MigrantClient> clients,
                      const std::string& node, uint64_t epoch, v1::GhostBatch* scratch,
                      std::string* out, uint64_t sent_at_us = 0);

// A batch from another node, or why it is none (nullopt: *out is the batch, the clients of its
// player migrants in their order, and its send time).
[[nodiscard]] std::optional<host::BorderRefusal> DecodeGhostBatch(std::string_view bytes,
                                                                  const zone::WorldConfig& world,
                                                                  host::BorderBatch* out);

}  // namespace zs::cluster
