// CharacterKeeper: the lasting side of players, on its zone runner's thread.
//
// - Login: a character already online is taken over (the old connection gets Kick
//   "logged_in_elsewhere", the entity stays, the new connection gets a Welcome and a resync;
//   the runner drops the old connection's inputs of that tick: ZoneRunner::ForgetTakenOver);
//   another character of the same account online is logged out first (one session per account).
//   Otherwise the character is loaded through the storage worker, off this thread: the login
//   waits for its row without stalling the tick, and a newer login for the same name or account
//   supersedes one still loading. Found: put back as it was; not found: a fresh character, saved
//   at once; storage failing: Error STORAGE_UNAVAILABLE, never a fresh character over an
//   existing one. A character owned by another account: AUTH_FAILED.
// - Logout and zone change: the character is handed to storage at once.
// - Checkpoint: every checkpoint interval, every character whose state changed since it was last
//   handed over goes to storage in one batch (one transaction). A crash loses at most that much.
//
// - Zone change between the runners of one process (character_keeper_handoff.cc): a player who
//   walks into a portal to a zone another runner ticks is handed to it with its connection (the
//   client gets ZoneChanged without an address and stays connected; same entity id); a login
//   whose character is in such a zone is handed over the same way, and a login that reached a
//   runner while another has the character online is passed on to that one (LocalZones).
// - Hand-off (character_keeper_handoff.cc), when this server hosts only some zones: a player who
//   walks into a portal to a zone hosted elsewhere is offered to that zone's server through the
//   HandoffPort; accepted: the client gets ZoneChanged{server_address, ticket} and is closed, and
//   the character is this server's no more (the other one saves it); refused or unreachable:
//   the player stands beside the portal again and gets a Notice. A login whose character is in
//   a zone hosted elsewhere is routed the same way. A client arriving with a ticket (TicketBook)
//   enters as the character handed over; tickets that expire are saved.
//
// Without a storage worker (tests, benchmarks) characters start fresh and nothing is saved.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "host/churn_log.h"
#include "host/handoff_port.h"
#include "host/local_zones.h"
#include "host/metrics.h"
#include "host/player_directory.h"
#include "host/player_port.h"
#include "host/session_key.h"
#include "host/session_sink.h"
#include "host/ticket_book.h"
#include "storage/storage_worker.h"
#include "zone/world.h"

namespace zs::host {

class CharacterKeeper {
 public:
  // `loaded` hands a finished load back to the zone runner (called on the storage thread).
  using Loaded = std::function<void(SessionKey session, storage::LoadResult result)>;
  // Which hand-off an answer belongs to: a departing player (by raw entity id) or a login being
  // routed to another server (by session).
  struct HandoffKey {
    bool login = false;
    uint64_t id = 0;  // a login's session here (logins come to connections here), else the
                      // departing player's raw entity id
  };
  // `answered` hands a hand-off's answer back to the zone runner (called on any thread).
  using Answered = std::function<void(HandoffKey key, HandoffAnswer answer)>;
  struct Options {
    uint32_t checkpoint_ticks = 200;  // ticks between checkpoints
    uint32_t tick_rate = 20;
    bool token_mode = false;         // accounts are real: a name owned by another is refused
    HandoffPort* handoff = nullptr;  // null: every zone is here
    TicketBook* tickets = nullptr;   // null: nobody arrives from elsewhere
    LocalZones* local = nullptr;     // the other runners of this process (null: none)
    size_t runner = 0;               // this runner's number among them
    Answered answered;
  };
  CharacterKeeper(zone::World* world, PlayerDirectory* players, KeeperCounters counters,
                  ChurnLog* churn, storage::StorageWorker* storage, Options options, Loaded loaded);

  void Login(SessionKey session, std::weak_ptr<SessionSink> sink, LoginIdentity who);
  void OnLoaded(SessionKey session, storage::LoadResult result);
  void Logout(SessionKey session);
  // The characters a login took over since the last call (TakeOver), then none: the runner
  // drops their old connections' inputs of this tick.
  [[nodiscard]] std::vector<EntityId> TakeTakenOver() { return std::exchange(taken_over_, {}); }
  // The session's login is under way here (its character loading, or its route being asked).
  [[nodiscard]] bool Joining(SessionKey session) const {
    return loading_.contains(session) || routing_.contains(session);
  }
  // A client arriving with a redeemed ticket, as `character` (its zone and arrival position).
  void Arrive(SessionKey session, std::weak_ptr<SessionSink> sink,
              storage::CharacterRecord character);
  // A character handed over by another runner of this process, with its connection.
  void Adopt(LocalArrival arrival);
  void OnHandoffAnswer(HandoffKey key, const HandoffAnswer& answer);
  void AttachHandoff(HandoffPort* handoff) { options_.handoff = handoff; }
  // After each tick: saves the players who changed zone, and checkpoints when due.
  void AfterTick();
  // Hands every online character to storage (shutdown, after the loop stopped).
  void SaveEveryone();
  // A player whose client is gone and who is not listed here (one that crossed from another
  // cell as its client left), taken by this tick's batches: saved under its name and removed
  // once the coming World::Tick has made it real (DismissArrived).
  void Dismiss(EntityId entity, uint64_t account, std::string name);
  // After World::Tick: the players Dismiss named, and those logged out in the tick their
  // migrant was taken (real only now), are saved and removed.
  void DismissArrived();
  // Checkpoints handed to storage so far (those with at least one changed character).
  [[nodiscard]] uint64_t checkpoints() const { return checkpoints_; }

 private:
  struct PendingLogin {
    std::weak_ptr<SessionSink> sink;
    LoginIdentity who;
  };

  void TakeOver(PlayerDirectory::Player& online, SessionKey session,
                const std::weak_ptr<SessionSink>& sink);
  void Load(SessionKey session, PendingLogin login);
  void ForgetLoading(SessionKey session);
  void Enter(SessionKey session, PendingLogin login, const storage::LoadResult& result);
  void Welcome(const std::shared_ptr<SessionSink>& sink, EntityId id, const std::string& name);
  // Kicks the connection of an online player, logging the character out (saved).
  void KickOut(PlayerDirectory::Player& player, CloseReason reason);
  void Refuse(const std::shared_ptr<SessionSink>& sink, bool storage_problem, CloseReason reason);
  // Error BAD_NAME: a character online, logging in or stored has a name that looks like this
  // one (names::LookAlikeKey).
  void RefuseLookAlike(const std::shared_ptr<SessionSink>& sink);
  [[nodiscard]] storage::CharacterRecord RecordOf(const PlayerDirectory::Player& p,
                                                  const zone::PlayerSnapshot& state) const;
  void Checkpoint();
  // Takes `session` out of the directory; zs_players counts it down when its client was here.
  void Unlist(SessionKey session);
  // Hand-off (character_keeper_handoff.cc).
  void OfferDepartures();
  // A departure into a zone another runner of this process ticks: handed over at once.
  void HandToRunner(const zone::World::Departure& d, PlayerDirectory::Player& p);
  void AdoptPlayer(LocalArrival& arrival);
  void Depart(std::optional<SessionKey> session, EntityId entity, const HandoffAnswer& answer);
  struct Departing;
  void ComeBack(const Departing& d, EntityId entity, const HandoffAnswer& answer);
  void RouteLogin(SessionKey session, PendingLogin login, storage::CharacterRecord character);
  void FinishRoute(SessionKey session, const HandoffAnswer& answer);
  void SaveExpiredTickets();
  struct Departing {
    std::optional<SessionKey> session;  // none: its player had no client here
    uint64_t account = 0;               // kept for the save, should the client leave meanwhile
    bool gone = false;                  // the client left while the offer was out
  };
  std::unordered_map<uint64_t, Departing> departing_;  // by raw entity id
  struct Routing {
    PendingLogin login;
    uint32_t zone = 0;
  };
  std::unordered_map<SessionKey, Routing> routing_;  // logins being routed, by session
  uint64_t ticks_since_expiry_ = 0;

  zone::World* world_;
  PlayerDirectory* players_;
  KeeperCounters counters_;
  ChurnLog* churn_;
  storage::StorageWorker* storage_;
  Options options_;
  Loaded loaded_;
  std::unordered_map<SessionKey, PendingLogin> loading_;      // by session
  std::unordered_map<std::string, SessionKey> loading_name_;  // newest loading session by key
  std::unordered_map<uint64_t, SessionKey> loading_account_;  // ... by account (not 0)
  uint64_t ticks_since_checkpoint_ = 0;
  uint64_t checkpoints_ = 0;
  std::vector<storage::CharacterRecord> batch_;  // checkpoint scratch
  std::vector<EntityId> taken_over_;             // by TakeOver, until TakeTakenOver
  struct Dismissed {
    EntityId entity = kInvalidEntity;
    uint64_t account = 0;
    std::string name;
  };
  std::vector<Dismissed> dismissed_;  // until DismissArrived
};

}  // namespace zs::host
