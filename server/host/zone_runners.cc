#include "host/zone_runners.h"

#include <algorithm>

namespace zs::host {

ZoneRunners::ZoneRunners(const zone::WorldConfig& config, RunnerMetrics* metrics,
                         size_t sim_threads, ChurnLog* churn, ZoneRunner::Persistence persistence,
                         std::span<const uint32_t> hosted, const SplitZones& split)
    : cell_counters_(metrics->cells()), ids_(split.ids) {
  std::vector<uint32_t> zones;
  for (const zone::ZoneConfig& z : config.zones) {
    if (hosted.empty() || std::find(hosted.begin(), hosted.end(), z.id) != hosted.end()) {
      zones.push_back(z.id);
    }
  }
  start_zone_ = zones.empty() ? 0 : zones[0];
  const bool alone = zones.size() == 1;  // nobody to hand players to: no roster, no routing
  for (size_t i = 0; i < zones.size(); ++i) {
    runner_of_zone_[zones[i]] = i;
    runners_.push_back(std::make_unique<ZoneRunner>(
        config, metrics, sim_threads, churn, persistence, std::span<const uint32_t>(&zones[i], 1),
        ZoneRunner::Siblings{.local = alone ? nullptr : this, .index = i, .ids = &ids_},
        split.cells));
  }
}

ZoneRunners::~ZoneRunners() { Stop(); }

void ZoneRunners::AttachPorts(const ZoneRunner::Ports& ports) {
  relay_ = ports.relay;
  for (auto& r : runners_) r->AttachPorts(ports);
}

void ZoneRunners::TakeGhosts(BorderBatch batch) {
  const auto it = runner_of_zone_.find(batch.batch.zone);
  if (it == runner_of_zone_.end()) {
    cell_counters_.border.refusals[static_cast<size_t>(BorderRefusal::kNotSplit)].Add(1);
    return;
  }
  runners_[it->second]->TakeGhosts(std::move(batch));
}

void ZoneRunners::TakeZoneChat(zone::ZoneChat chat) {
  const auto it = runner_of_zone_.find(chat.zone);
  if (it == runner_of_zone_.end()) {
    cell_counters_.chat.refusals[static_cast<size_t>(BorderRefusal::kNotSplit)].Add(1);
    return;
  }
  runners_[it->second]->TakeZoneChat(std::move(chat));
}

void ZoneRunners::DetachRelay() {
  relay_ = nullptr;
  for (auto& r : runners_) r->DetachRelay();
}

void ZoneRunners::Relayed(uint32_t zone, SessionKey session, std::optional<ClientInput> input) {
  ZoneRunner* runner = nullptr;
  if (session.relayed()) {  // a client at another node: the runner of its player's zone
    const auto it = runner_of_zone_.find(zone);
    if (it == runner_of_zone_.end()) return;
    runner = runners_[it->second].get();
  } else {
    runner = &RunnerOf(session.session());  // a client here, whose player came back or moved on
  }
  runner->SubmitRelayed(session, std::move(input));
}

void ZoneRunners::SetObserver(size_t runner, TickObserver* observer) {
  runners_.at(runner)->SetObserver(observer);
}

void ZoneRunners::Start() {
  for (auto& r : runners_) r->Start();
}

void ZoneRunners::Stop() {
  for (auto& r : runners_) r->Stop();
}

void ZoneRunners::SaveEveryone() {
  // Applying one runner's queue may hand a login to another (its zone is there): two rounds
  // leave every queue empty (a handed login is entered where it lands, never handed again).
  for (int round = 0; round < 2; ++round) {
    for (auto& r : runners_) r->ApplyQueued();
  }
  for (auto& r : runners_) r->SaveEveryone();
}

size_t ZoneRunners::monster_count() const {
  size_t n = 0;
  for (const auto& r : runners_) n += r->monster_count();
  return n;
}

ZoneRunner& ZoneRunners::RunnerOf(uint64_t session) const {
  if (runners_.size() == 1) return *runners_[0];
  std::lock_guard lock(mu_);
  const auto it = session_runner_.find(session);
  return *runners_[it != session_runner_.end() ? it->second : 0];
}

std::optional<size_t> ZoneRunners::OnlineRunner(const LoginIdentity& who) const {
  if (const auto n = name_runner_.find(names::LookAlikeKey(who.name)); n != name_runner_.end())
    return n->second;
  if (who.account == 0) return std::nullopt;
  if (const auto a = account_runner_.find(who.account); a != account_runner_.end()) {
    return a->second;
  }
  return std::nullopt;
}

void ZoneRunners::Join(uint64_t session, std::weak_ptr<SessionSink> sink, LoginIdentity who) {
  if (runners_.size() == 1) {
    runners_[0]->Join(SessionKey::Local(session), std::move(sink), std::move(who));
    return;
  }
  std::lock_guard lock(mu_);
  const size_t r = OnlineRunner(who).value_or(0);
  session_runner_[session] = r;
  runners_[r]->Join(SessionKey::Local(session), std::move(sink), std::move(who));
}

void ZoneRunners::Arrive(uint64_t session, std::weak_ptr<SessionSink> sink,
                         storage::CharacterRecord character) {
  if (runners_.size() == 1) {
    runners_[0]->Arrive(SessionKey::Local(session), std::move(sink), std::move(character));
    return;
  }
  std::lock_guard lock(mu_);
  const auto z = runner_of_zone_.find(character.state.zone);
  const size_t r = z != runner_of_zone_.end() ? z->second : 0;
  session_runner_[session] = r;
  runners_[r]->Arrive(SessionKey::Local(session), std::move(sink), std::move(character));
}

void ZoneRunners::Leave(uint64_t session) {
  if (runners_.size() == 1) {
    runners_[0]->Leave(SessionKey::Local(session));
    return;
  }
  std::lock_guard lock(mu_);
  const auto it = session_runner_.find(session);
  if (it == session_runner_.end()) return;  // never joined
  runners_[it->second]->Leave(SessionKey::Local(session));
  session_runner_.erase(it);
}

void ZoneRunners::Submit(uint64_t session, ClientInput input) {
  // A player owned by another node: straight there, not a tick later through the runner. (Its
  // inputs queued before it left are sent on by the runner; the owner drops a move older than
  // one it has: ZoneRunner::Apply.)
  if (relay_ != nullptr && relay_->FromHome(session, &input)) return;
  RunnerOf(session).Submit(SessionKey::Local(session), std::move(input));
}

uint64_t ZoneRunners::TickOf(uint64_t session) const { return RunnerOf(session).tick(); }

bool ZoneRunners::HostsHere(uint32_t zone_id) const { return runner_of_zone_.contains(zone_id); }

void ZoneRunners::HandTo(uint32_t zone_id, LocalArrival arrival) {
  const size_t r = runner_of_zone_.at(zone_id);
  const std::string& name = arrival.player ? arrival.player->name : arrival.character.name;
  std::lock_guard lock(mu_);
  name_runner_[names::LookAlikeKey(name)] = r;
  if (arrival.account != 0) account_runner_[arrival.account] = r;
  const SessionKey session = arrival.session;
  // A connection here is listed (unless its Leave went to the old runner); a relayed key never.
  const auto s =
      session.relayed() ? session_runner_.end() : session_runner_.find(session.session());
  const bool left = s == session_runner_.end();
  if (!left) s->second = r;
  runners_[r]->Adopt(std::move(arrival));
  if (left) runners_[r]->Leave(session);  // arrives, is saved, and leaves
}

bool ZoneRunners::PassOnLogin(size_t runner, SessionKey session,
                              const std::weak_ptr<SessionSink>& sink, const LoginIdentity& who) {
  std::lock_guard lock(mu_);
  const std::optional<size_t> online = OnlineRunner(who);
  if (!online || *online == runner) return false;
  const auto s = session_runner_.find(session.session());  // a login: a connection here
  if (s == session_runner_.end()) return true;  // the client left meanwhile: nothing to do
  s->second = *online;
  runners_[*online]->Join(session, sink, who);
  return true;
}

bool ZoneRunners::PassOnWhisper(size_t runner, SiblingWhisper chat) {
  std::lock_guard lock(mu_);
  const auto it = name_runner_.find(names::LookAlikeKey(chat.to_name));
  if (it == name_runner_.end() || it->second == runner) return false;
  runners_[it->second]->TakeWhisper(std::move(chat));
  return true;
}

void ZoneRunners::Listed(size_t runner, const std::string& name, uint64_t account) {
  std::lock_guard lock(mu_);
  name_runner_[names::LookAlikeKey(name)] = runner;
  if (account != 0) account_runner_[account] = runner;
}

void ZoneRunners::Unlisted(size_t runner, const std::string& name, uint64_t account) {
  std::lock_guard lock(mu_);
  if (const auto n = name_runner_.find(names::LookAlikeKey(name));
      n != name_runner_.end() && n->second == runner) {
    name_runner_.erase(n);
  }
  if (account == 0) return;
  if (const auto a = account_runner_.find(account);
      a != account_runner_.end() && a->second == runner) {
    account_runner_.erase(a);
  }
}

}  // namespace zs::host
