// ZoneRunners: the zones of one server, each ticked by a ZoneRunner on its own thread, and the
// one door the sessions go through (PlayerPort). A busy zone no longer slows a quiet one, and a
// server with many zones uses many cores.
//
// - Routing: every session is played in one runner at a time; its requests go there. A login
//   goes to the runner that has its character online (a takeover) or another character of its
//   account (logged out there), else to the runner of the first hosted zone, which loads it and
//   hands it to the runner of its zone.
// - Zone changes inside the process: LocalZones::HandTo moves the session to the new runner and
//   queues the character there (same entity id: the runners share their ids, SharedIds). The
//   roster (which runner has which name and account online) is updated before the old runner
//   lets go, so a login is never sent where the character is not.
// - A client arriving with a ticket (from another server) goes to the runner of its zone.
//
// Threads: PlayerPort calls from the I/O threads, LocalZones calls from the runners' threads;
// the routing tables are guarded by one mutex, taken once per request (a lookup) and never held
// while waiting for anything but a runner's queue (lock order: this, then a runner's).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "host/local_zones.h"
#include "host/player_port.h"
#include "host/session_key.h"
#include "host/shared_ids.h"
#include "host/tick_observer.h"
#include "host/zone_runner.h"

namespace zs::host {

// The cells of split zones this process ticks (docs/seamless.md), and the entity ids it may hand
// out (zone::IdsOfCell of its cells: one range for the whole process).
struct SplitZones {
  std::vector<zone::HostedCell> cells;
  zone::IdRange ids;
};

class ZoneRunners final : public PlayerPort, public LocalZones {
 public:
  // One runner per zone of `hosted` (empty: every zone of the world), in the config's order;
  // the zones of `split.cells` tick only their cell.
  ZoneRunners(const zone::WorldConfig& config, RunnerMetrics* metrics, size_t sim_threads,
              ChurnLog* churn, ZoneRunner::Persistence persistence,
              std::span<const uint32_t> hosted = {}, const SplitZones& split = {});
  ~ZoneRunners() override;
  ZoneRunners(const ZoneRunners&) = delete;
  ZoneRunners& operator=(const ZoneRunners&) = delete;

  // Every runner joins the cluster (ZoneRunner::AttachPorts). REQUIRES: before Start.
  void AttachPorts(const ZoneRunner::Ports& ports);
  // A neighbouring cell's batch, for the runner of its zone (any thread; a zone not ticked here
  // is counted as BorderRefusal::kNotSplit).
  void TakeGhosts(BorderBatch batch);
  // Another cell's `zone` chat, to the runner of its zone (any thread).
  void TakeZoneChat(zone::ZoneChat chat);
  // ZoneRunner::DetachRelay, on every runner. REQUIRES: after Stop.
  void DetachRelay();
  // An input (nullopt: the leaving) relayed from another node for `session` (a local session
  // or a relayed one: SessionKey) in zone `zone` (any thread).
  void Relayed(uint32_t zone, SessionKey session, std::optional<ClientInput> input);
  void SetObserver(size_t runner, TickObserver* observer);
  void Start();
  void Stop();  // joins every runner's thread; idempotent
  // After Stop: every runner applies its queued requests and hands its characters to storage.
  void SaveEveryone();

  [[nodiscard]] size_t size() const { return runners_.size(); }
  [[nodiscard]] const ZoneRunner& runner(size_t i) const { return *runners_[i]; }
  [[nodiscard]] size_t monster_count() const;

  // PlayerPort
  void Join(uint64_t session, std::weak_ptr<SessionSink> sink, LoginIdentity who) override;
  void Arrive(uint64_t session, std::weak_ptr<SessionSink> sink,
              storage::CharacterRecord character) override;
  void Leave(uint64_t session) override;
  void Submit(uint64_t session, ClientInput input) override;
  [[nodiscard]] uint64_t TickOf(uint64_t session) const override;

  // LocalZones
  [[nodiscard]] bool HostsHere(uint32_t zone_id) const override;
  [[nodiscard]] uint32_t StartZone() const override { return start_zone_; }
  void HandTo(uint32_t zone_id, LocalArrival arrival) override;
  bool PassOnLogin(size_t runner, SessionKey session, const std::weak_ptr<SessionSink>& sink,
                   const LoginIdentity& who) override;
  bool PassOnWhisper(size_t runner, SiblingWhisper chat) override;
  void Listed(size_t runner, const std::string& name, uint64_t account) override;
  void Unlisted(size_t runner, const std::string& name, uint64_t account) override;

 private:
  // The runner playing `session` (the first one when it plays nowhere yet).
  [[nodiscard]] ZoneRunner& RunnerOf(uint64_t session) const;
  // The runner with `who` (by name, else by account) online, if any. REQUIRES: mu_ held.
  [[nodiscard]] std::optional<size_t> OnlineRunner(const LoginIdentity& who) const;

  CellCounters cell_counters_;
  RelayPort* relay_ = nullptr;  // set before Start
  SharedIds ids_;               // before the runners: their worlds take ids from it
  std::vector<std::unique_ptr<ZoneRunner>> runners_;
  std::unordered_map<uint32_t, size_t> runner_of_zone_;  // by zone id; fixed after construction
  uint32_t start_zone_ = 0;                              // runner 0's zone

  mutable std::mutex mu_;
  std::unordered_map<uint64_t, size_t> session_runner_;  // guarded by mu_
  std::unordered_map<std::string, size_t> name_runner_;  // by names::LookAlikeKey; mu_
  std::unordered_map<uint64_t, size_t> account_runner_;  // guarded by mu_ (not 0)
};

}  // namespace zs::host
