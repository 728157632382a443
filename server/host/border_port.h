// BorderPort: where a runner sends its split zone's border batches (docs/seamless.md). The
// cluster layer implements it (cluster/border_link.h: NATS); the runner knows only this.
//
// Threads: Send is called on the runner's thread after every tick and must not block (the
// implementation queues or publishes asynchronously). Several runners may call it at once.
#pragma once

#include <cstdint>
#include <span>

#include "host/border_batch.h"
#include "zone/zone_types.h"

namespace zs::host {

class BorderPort {
 public:
  virtual ~BorderPort() = default;
  // One batch for one neighbouring cell (zone::ZoneTickOutput::border), with the clients of its
  // player migrants (none when it has none); the implementation stamps the send time.
  virtual void Send(const zone::GhostBatch& batch, std::span<const MigrantClient> clients) = 0;
  // A tick's `zone` chat of a cell, for every other cell of its zone
  // (zone::ZoneTickOutput::zone_chat).
  virtual void SendChat(const zone::ZoneChat& chat) = 0;
};

// Why bytes from another node never became a batch for a zone (before the zone's own checks,
// zone::GhostVerdict).
enum class BorderRefusal : uint8_t {
  kUnparsable,   // not a GhostBatch (protobuf refused it), or a field no GhostState can hold
  kVersion,      // another cluster protocol version
  kNotSplit,     // a zone this world does not have or does not split, or a cell beyond it
  kWrongSender,  // from_node is not the configured owner of from_cell
  kQueueFull,    // the runner's queue of batches was full (it is behind): dropped
  kCount
};

[[nodiscard]] constexpr const char* BorderRefusalName(BorderRefusal r) {
  switch (r) {
    case BorderRefusal::kUnparsable:
      return "unparsable";
    case BorderRefusal::kVersion:
      return "version";
    case BorderRefusal::kNotSplit:
      return "not_split";
    case BorderRefusal::kWrongSender:
      return "wrong_sender";
    case BorderRefusal::kQueueFull:
      return "queue_full";
    case BorderRefusal::kCount:
      break;
  }
  return "unknown";
}

}  // namespace zs::host
