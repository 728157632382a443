// BorderLink: a split zone's border batches between the nodes of its cells, over NATS
// (docs/seamless.md; proto/cluster.proto, GhostBatch).
//
// Send (host::BorderPort) serialises a runner's batch for one neighbouring cell and publishes it
// on that cell's subject (GhostSubject); Listen subscribes to this node's own cells' subjects and
// hands each batch that decodes to the sink (the zone runners), where the zone checks the rest
// (zone::GhostVerdict). Bytes that are no batch, of another version, for a zone or cell the world
// does not split that way, or from a node that is not the configured owner of the sending cell are
// counted (host::BorderRefusal) and dropped here. A split zone's `zone` chat goes the same way to
// every other cell of the zone (SendChat; host::CellChatCounters).
//
// Ownership: borrows the bus, the world config and the counters (all outlive the link).
// Threads: Send from any thread (each runner's); the sink runs on libnats' delivery thread.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "cluster.pb.h"
#include "cluster/ghost_codec.h"
#include "cluster/nats_bus.h"
#include "cluster/relay_link.h"
#include "host/border_port.h"
#include "host/metrics.h"
#include "zone/world_config.h"
#include "zone/zone_types.h"

namespace zs::cluster {

class BorderLink final : public host::BorderPort {
 public:
  using Sink = std::function<void(host::BorderBatch)>;
  using ChatSink = std::function<void(zone::ZoneChat)>;
  struct Options {
    std::string node;    // this node's name (cells.nodes)
    uint64_t epoch = 0;  // this process's start, wall clock ms
  };
  BorderLink(NatsBus& bus, const zone::WorldConfig& world, Options options,
             host::BorderCounters& counters, host::CellChatCounters& chat_counters);

  // Receives what is sent to `cell` of `zone`, with one subscription (CellSubjects): the
  // batches go to `sink`, relay messages to `relay`, zone chat to `chat` (null or empty:
  // refused as unparsable). Throws BusError (no subscription).
  void Listen(uint32_t zone, uint32_t cell, Sink sink, RelayLink* relay = nullptr,
              ChatSink chat = {});
  void Send(const zone::GhostBatch& batch, std::span<const host::MigrantClient> clients) override;
  // To the node of every other cell of chat.zone (ChatSubject).
  void SendChat(const zone::ZoneChat& chat) override;

 private:
  void ReceiveChat(std::string_view bytes, uint32_t cell, const ChatSink& sink);

  NatsBus& bus_;
  const zone::WorldConfig& world_;
  const Options options_;
  host::BorderCounters& counters_;
  host::CellChatCounters& chat_counters_;
  std::mutex mu_;  // Send's scratch
  v1::GhostBatch scratch_;
  std::string bytes_;
};

}  // namespace zs::cluster
