// ClusterNode: this zone_server as one node of a world spread over many (issue 9).
//
// Puts the cluster's parts together for the server: the NATS connection (NatsBus), the zone
// directory (claims this node's zones at start: another node already hosting one of them stops
// start-up with a clear error), the hand-off service for those zones (a request is accepted
// with a one-time ticket from the TicketBook and the character saved at once, so storage knows
// where it is), and the HandoffPort the zone runner uses to offer players to other nodes (a small
// pool of threads does the blocking lookups and requests, off the tick thread).
//
// The zone runners and the sessions never see NATS: they see host::HandoffPort and
// host::TicketBook. Threads: Offer may be called from any thread; `done` runs on a pool thread.
// Release() at a graceful shutdown, before destruction (destruction alone looks like a crash to the
// others).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cluster/border_link.h"
#include "cluster/handoff.h"
#include "cluster/nats_bus.h"
#include "cluster/zone_directory.h"
#include "host/handoff_port.h"
#include "host/ticket_book.h"
#include "storage/storage_worker.h"

namespace zs::cluster {

struct NodeOptions {
  std::string nats_url;
  std::string node;                  // unique in the world
  std::string public_address;        // "host:port" clients of this node connect to
  std::string public_websocket_url;  // its WebSocket door for clients (empty: none)
  int directory_ttl_seconds = 5;
  int handoff_timeout_ms = 500;  // a hand-off not answered by then: the player stays
  size_t handoff_threads = 4;    // requests in flight at once
  size_t max_queued_offers = 10000;
  // Called (on the directory's heartbeat thread) when a zone this node claimed turned out to be
  // held by another node: it was paused or cut off longer than the ttl and a standby took the
  // zone. Logged as critical either way; null: nothing more (the server decides, see main).
  std::function<void(uint32_t zone, const std::string& now_node)> on_lost;
  // The world's zones (borrowed, outlives the node): a hand-off into a split zone goes to the
  // owner of the cell its arrival is in. Null: no zone is split.
  const zone::WorldConfig* world = nullptr;
};

class ClusterNode : public host::HandoffPort {
 public:
  // Connects, claims `zones` (id, name) and serves their hand-offs. Throws BusError or
  // DirectoryError (start-up: cannot connect), or std::runtime_error with the claim's message
  // (a zone hosted by another node).
  ClusterNode(NodeOptions options, std::vector<ZoneClaim> zones, host::TicketBook* tickets,
              storage::StorageWorker* storage);
  ~ClusterNode() override;
  ClusterNode(const ClusterNode&) = delete;
  ClusterNode& operator=(const ClusterNode&) = delete;

  void Offer(host::HandoffOffer offer, std::function<void(host::HandoffAnswer)> done) override;
  // Joins the borders of the cells this node claimed (docs/seamless.md): the neighbours' batches
  // go to `sink` and the inputs relayed for players owned here to `relayed` (on libnats'
  // threads); the ports returned publish this node's batches and relay its players' clients.
  // Nulls when it claimed no cell. Once, after construction; throws BusError (no subscription).
  struct BorderPorts {
    host::BorderPort* border = nullptr;
    host::RelayPort* relay = nullptr;
  };
  // Where what the other cells send goes (the zone runners).
  struct BorderSinks {
    BorderLink::Sink batches;
    BorderLink::ChatSink chat;
    RelayLink::Sink relayed;
  };
  BorderPorts JoinBorder(const zone::WorldConfig& world, host::CellCounters counters,
                         BorderSinks sinks);
  // Graceful shutdown: no more offers; the directory entries are deleted at once.
  void Release();

 private:
  struct Job {
    host::HandoffOffer offer;
    std::function<void(host::HandoffAnswer)> done;
  };
  void Work();
  host::HandoffAnswer Handle(const host::HandoffOffer& offer);
  // The cell of split zone `zone` that `at` is in (kWholeZone: the zone is not split here).
  [[nodiscard]] uint32_t CellOfArrival(uint32_t zone, Vec2 at) const;
  HandoffReply Decide(const HandoffRequest& request);

  const NodeOptions options_;
  std::vector<ZoneClaim> zones_;
  host::TicketBook* tickets_;
  storage::StorageWorker* storage_;
  const int64_t started_ms_;
  std::unique_ptr<RelayLink> relay_;    // before bus_: its handlers run until the bus closes
  std::unique_ptr<BorderLink> border_;  // (and the relay's sinks publish on it)
  std::unique_ptr<NatsBus> bus_;
  std::unique_ptr<ZoneDirectory> directory_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;   // guarded by mu_
  bool stopping_ = false;  // guarded by mu_
  std::vector<std::thread> workers_;
};

}  // namespace zs::cluster
