// BorderExchange: a runner's side of its cells' borders with their neighbours on other nodes
// (docs/seamless.md). The neighbours' batches and `zone` chat arrive on any thread and wait in
// bounded queues; before each tick the runner's loop hands them to the World (counting each
// verdict, the immigrants and how long they took to cross), and the player migrants among them
// to the ClientRelay; after the tick it sends this tick's batches and chat through the
// BorderPort (the players' clients first located by the relay) and keeps the border's gauges.
//
// Owned by the ZoneRunner, which gives it its World, its ClientRelay and its counters.
// Threads: TakeGhosts and TakeZoneChat from any thread; the rest on the runner's loop only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "host/border_batch.h"
#include "host/border_port.h"
#include "host/client_relay.h"
#include "host/inbox.h"
#include "host/metrics.h"
#include "zone/world.h"

namespace zs::host {

class BorderExchange {
 public:
  static constexpr size_t kMaxQueuedBatches = 64;  // 8 neighbours x 8 ticks behind

  BorderExchange(zone::World& world, ClientRelay& relay, CellCounters counters)
      : world_(world), relay_(relay), counters_(counters) {}

  // Sends through `port` from now on (null: this process's zones are not split over nodes).
  void Attach(BorderPort* port) { port_ = port; }

  // A neighbouring cell's batch: taken at the start of the next tick; refused and counted
  // (BorderRefusal::kQueueFull) when kMaxQueuedBatches wait already. Any thread.
  void TakeGhosts(BorderBatch batch);
  // Another cell's `zone` chat: heard at the next tick; refused and counted the same way.
  void TakeZoneChat(zone::ZoneChat chat);

  // Before the tick: the queued chat and batches into the World, their player migrants to the
  // relay (`now`: MonotonicSeconds).
  void TakeQueued(double now);
  // After the tick: each zone's batches and chat to the neighbours, silent neighbours logged,
  // and the ghost and real-player gauges brought up to date.
  void SendTick();

 private:
  // A batch taken with `migrants` migrants, sent at `sent_at_us` (its sender's wall clock).
  void ObserveMigration(uint64_t sent_at_us, size_t migrants);

  zone::World& world_;
  ClientRelay& relay_;
  CellCounters counters_;
  BorderPort* port_ = nullptr;
  Inbox<BorderBatch> ghosts_in_{kMaxQueuedBatches};
  Inbox<zone::ZoneChat> chat_in_{kMaxQueuedBatches};
  std::vector<ClientRelay::Arriving> arriving_;  // TakeQueued's, per batch
  std::vector<MigrantClient> migrant_clients_;   // SendTick's: a batch's, as it leaves
  int64_t ghosts_held_ = 0;                      // this runner's share of the zs_ghosts gauge
  int64_t players_real_ = 0;                     // ... of zs_players_real
};

}  // namespace zs::host
