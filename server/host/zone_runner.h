// ZoneRunner: owns one World (the zones it was given: one zone in a server, see ZoneRunners)
// and advances it at the tick rate on its own thread.
//
// Threads: Join/Arrive/Adopt/Leave/Submit/TakeWhisper may be called from any thread (I/O threads,
// other runners); each queues a request in an Inbox, keyed by session id, never a pointer into
// the world. The runner's thread takes the inboxes at the start of each tick (sessions <->
// entities in a PlayerDirectory), runs World::Tick, and hands each zone's output to a
// FrameFanout, which gives every player exactly one frame through its SessionSink.
// A tick that overruns its interval is counted and logged; the schedule then restarts from
// now instead of trying to catch up (no spiral). Overload control: each tick's work, as a share
// of the interval, feeds an interest::OverloadGovernor whose level shrinks the zones' interest
// budgets on the next tick (logged once per change, exported as zs_interest_level/scale).
// The zones' views and frames run on a WorkerPool of `sim_threads`.
//
// What else it owns, each behind its own class: the players' characters (CharacterKeeper:
// logins, saves, checkpoints, hand-offs), sessions <-> entities (PlayerDirectory), inputs that
// came before their player (EarlyInputs), and, in a split zone, the clients of players that
// crossed to or from another node's cell (ClientRelay) and the border batches (BorderExchange:
// the neighbours' taken before a tick, this tick's sent after it, each the host's envelope
// around the zone's, BorderBatch). What it is given: its metrics (RunnerMetrics), the storage
// worker and ticket book (Persistence), the other runners of this process (Siblings) and, once
// the server listens, the cluster's ports (Ports: hand-offs, border batches, the client relay).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "host/border_exchange.h"
#include "host/border_port.h"
#include "host/character_keeper.h"
#include "host/churn_log.h"
#include "host/client_input.h"
#include "host/client_relay.h"
#include "host/early_inputs.h"
#include "host/frame_fanout.h"
#include "host/inbox.h"
#include "host/local_zones.h"
#include "host/metrics.h"
#include "host/player_directory.h"
#include "host/relay_port.h"
#include "host/session_key.h"
#include "host/session_sink.h"
#include "host/thread_owner.h"
#include "host/tick_observer.h"
#include "host/worker_pool.h"
#include "interest/overload.h"
#include "wire/encoder.h"
#include "zone/world.h"

namespace zs::host {

// Where the runner's characters are kept (CharacterKeeper): no storage means fresh
// characters, never saved (tests, benchmarks).
struct ZoneRunnerPersistence {
  storage::StorageWorker* storage = nullptr;
  double checkpoint_seconds = 10;
  bool token_mode = false;
  TicketBook* tickets = nullptr;  // characters handed to this server
};

// Where the runner reaches the rest of a cluster: known only once the server listens (its
// address is then known), so attached after construction, once, before Start. Each null: none.
struct ZoneRunnerPorts {
  HandoffPort* handoff = nullptr;  // this server hosts some zones only: portals hand off
  BorderPort* border = nullptr;    // a split zone's batches and `zone` chat, after each tick
  // Players cross the borders of the split zones' cells, their clients' connections relayed
  // (ClientRelay; docs/seamless.md "Relay"). Null: the border holds them.
  RelayPort* relay = nullptr;
};

// The other runners of this process (`local`, null: this runner is alone), this one's number
// among them, and the entity ids they share (null: the world's own).
struct ZoneRunnerSiblings {
  LocalZones* local = nullptr;
  size_t index = 0;
  zone::IdSource* ids = nullptr;
};

class ZoneRunner {
 public:
  using Persistence = ZoneRunnerPersistence;
  using Ports = ZoneRunnerPorts;
  // `sim_threads`: workers for the zones' simulation, views and frames (1: the loop thread only).
  // `churn`: throttles the per-player "joined" lines under churn (nullptr: log every one).
  // `hosted`: the zone ids this runner ticks (empty: all of them). `cells`: the one cell of a
  // split zone it ticks (none: its zones whole; zone::World).
  using Siblings = ZoneRunnerSiblings;
  ZoneRunner(zone::WorldConfig config, RunnerMetrics* metrics, size_t sim_threads = 1,
             ChurnLog* churn = nullptr, Persistence persistence = {},
             std::span<const uint32_t> hosted = {}, Siblings siblings = {},
             std::span<const zone::HostedCell> cells = {});
  ~ZoneRunner();

  void Start();
  void Stop();  // joins the thread; idempotent
  // Joins the runner to a cluster. REQUIRES: before Start.
  void AttachPorts(const Ports& ports);
  // At shutdown, after Stop and the last save: the relay goes away before the runner, and
  // nothing of it is kept.
  void DetachRelay();
  // A neighbouring cell's batch, and another cell's `zone` chat (any thread): taken at the start
  // of the next tick, or refused and counted when the queue is full (BorderExchange).
  void TakeGhosts(BorderBatch batch) { border_.TakeGhosts(std::move(batch)); }
  void TakeZoneChat(zone::ZoneChat chat) { border_.TakeZoneChat(std::move(chat)); }
  // After Stop: applies the requests still queued (logouts) and hands every character still
  // online to storage. The caller then flushes the storage worker.
  void SaveEveryone();
  // After Stop: applies the requests still queued (without saving).
  void ApplyQueued() { Drain(); }

  void Join(SessionKey session, std::weak_ptr<SessionSink> sink, LoginIdentity who);
  // A client with a redeemed hand-off ticket, as `character`.
  void Arrive(SessionKey session, std::weak_ptr<SessionSink> sink,
              storage::CharacterRecord character);
  // A character handed over by another runner of this process (LocalZones::HandTo).
  void Adopt(LocalArrival arrival);
  // A whisper from another runner of this process to a player of this one (by name).
  void TakeWhisper(SiblingWhisper chat);
  void Leave(SessionKey session);
  // An input of the session's player (dropped, and counted as server_busy, when
  // kMaxPendingRequests are queued already: a tick thread that falls behind must not let
  // inputs pile up without bound; joins, leaves and resyncs always go through).
  void Submit(SessionKey session, ClientInput input);
  // An input or (nullopt) the leaving of `session`'s client relayed from another node
  // (ZoneRunners::Relayed): a player owned here whose client is elsewhere, or one of ours that
  // came back (a leaving for one of ours is ignored: its own connection says when it leaves).
  void SubmitRelayed(SessionKey session, std::optional<ClientInput> input);

  [[nodiscard]] uint64_t tick() const { return tick_.load(std::memory_order_relaxed); }
  [[nodiscard]] uint32_t tick_rate() const { return tick_rate_; }
  [[nodiscard]] size_t zone_count() const { return zone_count_; }
  [[nodiscard]] size_t monster_count() const { return monsters_; }

  // Runs one tick on the calling thread (the loop calls this; tests may too).
  void Step();
  // Called after every tick, on the loop thread (the zone viewer). REQUIRES: before Start().
  void SetObserver(TickObserver* observer) { observer_ = observer; }

 private:
  // What the sessions and the other runners ask, applied at the start of a tick in order.
  struct JoinRequest {
    std::weak_ptr<SessionSink> sink;
    LoginIdentity who;
  };
  struct ArriveRequest {
    std::weak_ptr<SessionSink> sink;
    storage::CharacterRecord character;
  };
  struct LeaveRequest {};
  struct Request {
    SessionKey session;
    std::variant<ClientInput, JoinRequest, ArriveRequest, LocalArrival, LeaveRequest> what;
    bool relayed = false;  // from another node (RelayPort): may come after a newer input
  };
  using Loaded = std::pair<SessionKey, storage::LoadResult>;
  using Answer = std::pair<CharacterKeeper::HandoffKey, HandoffAnswer>;

  void Run();
  void WaitForNextTick(std::chrono::steady_clock::time_point next);
  void ObserveLoad(double share);  // work / interval of the last tick
  void Drain() { Drain(requests_.Take()); }
  void Drain(std::vector<Request>& requests);
  void Admit(Request& r);
  // The player's input, for this tick's World::Tick (or the runner's own: resync, refusals).
  void Apply(ClientInput& input, PlayerDirectory::Player& player, bool relayed = false);
  void ForgetTakenOver();
  // Inputs that came before their session's player: applied once it is in the world, dropped
  // once its login ended without one.
  void ApplyEarly();
  // A whisper's recipient, by name: here (`to`), in another runner (relayed there) or nowhere.
  void ResolveWhisper(zone::ChatInput& chat, const PlayerDirectory::Player& player);
  void AdmitWhispers(std::vector<SiblingWhisper>& relayed);
  void ApplyAnswers();  // hand-off answers from the cluster
  void PublishStorageStats();
  LocalZones* local_;
  const size_t runner_index_;

  zone::World world_;
  RunnerMetrics* metrics_;
  WorkerPool pool_;
  interest::OverloadGovernor governor_;
  const uint32_t tick_rate_;
  const size_t zone_count_;
  size_t monsters_ = 0;
  FrameFanout fanout_;
  std::atomic<uint64_t> tick_{0};

  static constexpr size_t kMaxPendingRequests = 200000;
  Inbox<Request> requests_{kMaxPendingRequests};
  Inbox<Loaded> loaded_;                                          // from the storage thread
  Inbox<SiblingWhisper> whispers_in_{kMaxPendingRequests / 100};  // whispers from other runners
  Inbox<Answer> answers_;                                         // hand-off answers
  std::mutex wake_mu_;
  std::condition_variable wake_;  // an answer came, or Stop (with wake_mu_)
  bool answer_waiting_ = false;   // guarded by wake_mu_

  // Loop thread only (asserted in the checked builds: loop_).
  ThreadOwner loop_;  // claimed by Run while the loop runs
  PlayerDirectory players_;
  storage::StorageWorker* storage_;
  CharacterKeeper keeper_;
  std::vector<zone::PlayerInput> inputs_;  // this tick's, for World::Tick
  EarlyInputs early_;                      // of sessions whose login is under way
  std::deque<std::string> chat_text_;  // relayed whispers' texts (stable addresses for relayed_)
  std::vector<zone::InputResult> results_;
  std::vector<zone::RelayedWhisper> relayed_;
  ClientRelay relay_;      // players crossing the cells of a split zone, their clients relayed
  BorderExchange border_;  // the neighbours' batches in (any thread), this tick's out

  TickObserver* observer_ = nullptr;
  double last_tick_seconds_ = 0;  // Run's measure of the last tick's work (TickTiming)
  std::atomic<bool> running_{false};
  std::thread thread_;
};

}  // namespace zs::host
