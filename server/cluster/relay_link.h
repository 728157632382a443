// RelayLink: the clients of players who crossed into another node's cell, relayed over NATS
// (docs/seamless.md "Relay"; proto/cluster.proto, Relay). host::RelayPort for the runners.
//
// - At the home (the node holding the client's connection): Away files the session with its
//   connection's sink and the cell its player went to; FromHome publishes the client's inputs
//   to that cell; a frame relayed for the session goes straight to the sink (on libnats'
//   thread) and names the cell that owns the player now (a player may move on). A frame for a
//   session no longer here is answered with a leaving, so its owner lets the player go.
// - At the owner: SinkAtHome gives a SessionSink that publishes each frame to the home; an
//   input or leaving received goes to the sink given at construction (the zone runners), under
//   the session's key there (host::SessionKey::Relayed, or SessionKey::Local, the home's own
//   session, when the player came home).
// - Liveness both ways: the home notes when each client's last frame was relayed
//   (LastFrameRelayedAt); the
//   owner counts the home's held notices of each player (Hold, HomeNotices). Each side's runner
//   lets go of what falls silent.
// Messages come in through Receive (BorderLink listens to the cell's subjects); what does not
// decode is counted by reason (host::RelayCounters::refusals) and dropped, and so is a
// tick frame not newer than the last delivered to its client (a replay or a late one:
// relay_stale), since a client counts one tick per frame.
//
// Ownership: borrows the bus, the world config and the counters (all outlive the link).
// Threads: any; Receive runs on libnats' delivery thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "cluster.pb.h"
#include "cluster/nats_bus.h"
#include "cluster/relay_codec.h"
#include "host/metrics.h"
#include "host/relay_port.h"
#include "host/session_key.h"
#include "zone/world_config.h"

namespace zs::cluster {

class RelayLink final : public host::RelayPort {
 public:
  // An input (nullopt: the client left) for the player filed under `session` in zone `zone`.
  using Sink = std::function<void(uint32_t zone, host::SessionKey session,
                                  std::optional<host::ClientInput>)>;
  RelayLink(NatsBus& bus, const zone::WorldConfig& world, std::string node,
            host::RelayCounters& counters, Sink sink);

  // The bytes of a message on one of this node's relay subjects.
  void Receive(std::string_view bytes);

  bool FromHome(uint64_t session, const host::ClientInput* input) override;
  void SendOn(const host::RelayAddress& to, const host::ClientInput* input) override;
  [[nodiscard]] std::shared_ptr<host::SessionSink> SinkAtHome(const host::RelayAddress& to,
                                                              uint32_t protocol_version) override;
  void Away(uint64_t session, std::weak_ptr<host::SessionSink> sink, zone::CellRef owner) override;
  void Back(uint64_t session) override;
  [[nodiscard]] double LastFrameRelayedAt(uint64_t session) override;
  void Hold(std::span<const uint64_t> sessions) override;
  [[nodiscard]] uint64_t HomeNotices(uint32_t zone, host::SessionKey key) override;

  // At the owner: held notices of the homes of players relayed for, by (zone, relayed
  // SessionKey), while a sink for it lives (held notices for any other key are ignored: the
  // registry never holds more than the players relayed for). Shared with the sinks, which may
  // outlive the link (a runner's sinks at shutdown): a sink forgets its key only if the registry
  // lives.
  class HomeRegistry {
   public:
    void Add(uint32_t zone, host::SessionKey key);
    void Forget(uint32_t zone, host::SessionKey key);
    void Notice(uint32_t zone, host::SessionKey key);  // for a key not registered: nothing
    [[nodiscard]] uint64_t Notices(uint32_t zone, host::SessionKey key) const;

   private:
    struct Key {
      uint32_t zone = 0;
      host::SessionKey key;
      bool operator==(const Key&) const = default;
    };
    struct KeyHash {
      size_t operator()(const Key& k) const {
        return std::hash<host::SessionKey>{}(k.key) ^ (uint64_t{k.zone} * 0x9E3779B97F4A7C15ull);
      }
    };
    struct Entry {
      uint64_t notices = 0;
      uint32_t sinks = 0;  // live HomeSinks for the key (a new one may come before the old goes)
    };
    mutable std::mutex mu_;
    std::unordered_map<Key, Entry, KeyHash> entries_;  // guarded by mu_
  };

  // Sends `m` (m.from_cell: this node's cell of m.to.zone, filled in here). Any thread.
  void Publish(RelayMessage& m);

 private:
  void Deliver(const RelayMessage& m);  // a frame for a client here
  void Noticed(const RelayMessage& m);  // a home's held notice
  [[nodiscard]] std::optional<uint32_t> CellHere(uint32_t zone) const;

  NatsBus& bus_;
  const zone::WorldConfig& world_;
  const std::string node_;
  host::RelayCounters& counters_;
  const Sink sink_;

  struct AwayClient {
    std::weak_ptr<host::SessionSink> sink;
    zone::CellRef owner;      // the cell whose frames came last
    double last_frame_s = 0;  // when the last frame relayed since Away came (0: none)
    uint64_t last_tick = 0;   // of the newest tick frame delivered: an older one is a replay
  };
  std::mutex away_mu_;
  std::unordered_map<uint64_t, AwayClient> away_;  // by local session; guarded by away_mu_

  const std::shared_ptr<HomeRegistry> homes_ = std::make_shared<HomeRegistry>();

  std::mutex send_mu_;  // Publish's scratch
  v1::Relay scratch_;
  std::string bytes_;
};

}  // namespace zs::cluster
