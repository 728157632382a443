// RelayPort: how a runner keeps the client of a player who crossed into another node's cell
// (docs/seamless.md "Relay"). The client's connection stays on its home node (where it logged
// in): the home sends the client's inputs to the node that owns the player now, and the owner
// sends the client's frames back to the home. The cluster layer implements it over NATS
// (cluster/relay_link.h); the runner knows only this.
//
// Sessions: a node's session ids are its own. A player owned here whose client is at another
// node is filed in the runner's PlayerDirectory under SessionKey::Relayed(home cell, session).
//
// Threads: every call from any thread (the runners'); none blocks (publishes are queued).
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "host/client_input.h"
#include "host/session_key.h"
#include "host/session_sink.h"
#include "zone/cells.h"

namespace zs::host {

// Where a message about one client goes, and about whom.
struct RelayAddress {
  uint32_t zone = 0;
  uint32_t to_cell = 0;    // the receiving node's cell
  uint32_t home_cell = 0;  // the cell of the node holding the client's connection
  uint64_t session = 0;    // the connection's session id at the home
};

class RelayPort {
 public:
  virtual ~RelayPort() = default;
  // To the owner of the player of local session `session`: an input of its client, or (null)
  // that the client left. The owner is the cell whose frames for the session came last (at
  // first the one Away named): a player may move on from cell to cell. False (nothing sent):
  // the session's player is not away.
  virtual bool FromHome(uint64_t session, const ClientInput* input) = 0;
  // To `to`: an input (null: the leaving) of a client at another node, whose player this node
  // let go to that cell (sent on, so nothing in flight is lost).
  virtual void SendOn(const RelayAddress& to, const ClientInput* input) = 0;
  // A sink for the frames of a client at another node (to.to_cell: its home's cell) that speaks
  // `protocol_version`: every frame goes there. It lives as long as the caller keeps it.
  [[nodiscard]] virtual std::shared_ptr<SessionSink> SinkAtHome(const RelayAddress& to,
                                                                uint32_t protocol_version) = 0;
  // The player of local session `session` went to cell `owner` of a split zone: frames relayed
  // for the session go to `sink`, until Back.
  virtual void Away(uint64_t session, std::weak_ptr<SessionSink> sink, zone::CellRef owner) = 0;
  virtual void Back(uint64_t session) = 0;
  // When the last frame relayed to local session `session` since Away came (MonotonicSeconds;
  // 0: none, or not away). The home watches it: an owner that died sends none.
  [[nodiscard]] virtual double LastFrameRelayedAt(uint64_t session) = 0;
  // To the owner of each of these local sessions' players (each away): the home still holds
  // their clients. The owner watches it: a home that died or is cut off sends none.
  virtual void Hold(std::span<const uint64_t> sessions) = 0;
  // Notices that the home still holds the client of the player filed here under relayed key
  // `key` in zone `zone`, counted while a sink SinkAtHome gave for it lives (0: none).
  [[nodiscard]] virtual uint64_t HomeNotices(uint32_t zone, SessionKey key) = 0;
};

}  // namespace zs::host
