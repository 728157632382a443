// ClientRelay: one zone runner's side of the clients of players who cross the cells of a split
// zone (docs/seamless.md "Relay"): which node holds a player's client, where its inputs and
// frames go, and what to do when the other side falls silent.
//
// - A player of a client here that migrates to another cell stays in the PlayerDirectory with
//   `owner` set: its inputs go there (RelayPort::FromHome), its frames come back through the
//   relay straight to its connection. When it migrates back, it is ours again.
// - A player migrating here whose client is at another node is filed under
//   SessionKey::Relayed(home cell, session) with a sink that sends its frames home. It is saved
//   here and removed when its client leaves. When it migrates on, it is let go: inputs still in
//   flight to here are sent on for kDepartedTicks.
// - Every frame's tick goes on from the last its client was sent (Player::tick_offset).
// - Liveness, in wall time (`now`, MonotonicSeconds, passed in by the runner; a node whose ticks
//   slow down under load is still alive): a player away whose owner relayed nothing for
//   kSilentOwnerSeconds has lost it (its client is closed); a home tells the owners of its
//   players away that it holds their clients every kHoldPeriodSeconds, and a player relayed for
//   whose home told nothing for kSilentHomeSeconds is saved and let go. Watched every tick.
//
// Ownership: borrows the world (read only), the directory, the keeper (logouts, dismissals)
// and the counters from its runner, and the RelayPort from the cluster layer (Attach).
// Threads: its runner's loop thread only, like everything it borrows.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "host/border_batch.h"
#include "host/character_keeper.h"
#include "host/client_input.h"
#include "host/metrics.h"
#include "host/player_directory.h"
#include "host/relay_port.h"
#include "host/session_key.h"
#include "zone/world.h"

namespace zs::host {

class ClientRelay {
 public:
  // Inputs for a player let go to another cell are sent on for this long (ticks at 20 Hz: 10 s).
  static constexpr uint64_t kDepartedTicks = 200;
  // Shorter than kSilentOwnerSeconds: a player is let go before its home closes the client, so
  // that its login elsewhere finds it saved.
  static constexpr double kSilentOwnerSeconds = 3.0;
  static constexpr double kHoldPeriodSeconds = 0.5;
  static constexpr double kSilentHomeSeconds = 2.0;

  // A player migrant of a batch just taken (World::TakeGhosts), as the runner read it.
  struct Arriving {
    std::string name;      // the migrant's: this world may hold no ghost of it yet to name it
    MigrantClient client;  // client.entity: the migrant
    uint32_t last_input_seq = 0;
  };

  ClientRelay(const zone::World& world, PlayerDirectory& players, CharacterKeeper& keeper,
              RelayCounters& counters)
      : world_(world), players_(players), keeper_(keeper), counters_(counters) {}

  // Relays through `relay` from now on; null: detached (shutdown), and nothing of it is kept.
  void Attach(RelayPort* relay);
  [[nodiscard]] bool attached() const { return relay_ != nullptr; }

  // This tick's batch of zone index z, about to be sent: writes to *clients where the clients
  // of its player migrants are (replacing what it held; a player whose client left in this
  // tick is not listed), and lets go here of those whose clients are elsewhere (their new owner
  // relays to their homes). REQUIRES: attached.
  void SendAway(const zone::GhostBatch& batch, std::vector<MigrantClient>* clients);
  // After SendAway's batch went out: the players of clients here that it took away are
  // relayed (their inputs straight to their owners from now on, not before the batch).
  void AfterBatchSent(double now);
  // The player migrants of a batch taken from another cell of zone index z: a player of a
  // client here comes back; another's is filed under its relayed SessionKey; one whose client
  // is gone is the keeper's to dismiss. REQUIRES: attached.
  void Take(size_t z, std::span<const Arriving> arriving, double now);
  // An input (null: the leaving) of a session whose player is owned elsewhere, or has just
  // been let go to another cell: sent there. False: neither (or detached).
  bool ToOwner(SessionKey session, const PlayerDirectory::Player* player, const ClientInput* input);
  // A player of `session` that a join would take over is away (owned by another node): its
  // connection is closed and the owner told it left; the join is refused, to be tried again
  // once the owner has saved it. False: no such player (or detached).
  bool RefuseJoinOfAway(SessionKey session, const LoginIdentity& who,
                        const std::weak_ptr<SessionSink>& sink);
  // Every tick, before the world ticks: held notices to the owners, the watches of both
  // sides; once a second (`each_second`), the entries of sessions gone by any path.
  void Watch(double now, bool each_second);

 private:
  [[nodiscard]] const std::string& NodeOf(size_t z, uint32_t cell) const;
  [[nodiscard]] std::optional<uint32_t> CellOfNode(size_t z, const std::string& node) const;
  void HoldAway(double now);
  void WatchAway(double now);
  void WatchHomes(double now);
  void SweepGone();
  void ForgetDeparted();

  const zone::World& world_;
  PlayerDirectory& players_;
  CharacterKeeper& keeper_;
  RelayCounters& counters_;
  RelayPort* relay_ = nullptr;

  // The sinks of players owned here whose clients are elsewhere (by relayed key).
  std::unordered_map<SessionKey, std::shared_ptr<SessionSink>> sinks_;
  // Players let go to another cell lately (by session or key): their inputs in flight are sent
  // on, for kDepartedTicks.
  struct Departed {
    zone::CellRef owner;
    uint32_t home_cell = 0;
    uint64_t tick = 0;  // when it left
  };
  std::unordered_map<SessionKey, Departed> departed_;
  // Our players away, by session: since when (RelayPort::LastFrameRelayedAt tells of the
  // owner's frames since).
  std::unordered_map<SessionKey, double> away_since_;
  // The held notices of the homes of players relayed for (by key), as last looked at.
  struct HomeWatch {
    uint64_t notices = 0;
    double since_s = 0;  // when the count last moved
  };
  std::unordered_map<SessionKey, HomeWatch> homes_;
  std::vector<SessionKey> going_;  // sessions whose players went away in this tick's batches
  std::vector<uint64_t> held_;     // HoldAway's scratch
  double next_hold_s_ = 0;         // when HoldAway sends next
};

}  // namespace zs::host
