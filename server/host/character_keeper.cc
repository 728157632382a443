#include "host/character_keeper.h"

#include <spdlog/spdlog.h>

#include "host/clock.h"
#include "names/player_name.h"
#include "wire/encoder.h"

namespace zs::host {

namespace {

// What a refused client is told: the same words whatever went wrong (auth) or a clear cause
// that is not the client's fault (storage).
constexpr const char* kAuthFailedText = "authentication failed";
constexpr const char* kLookAlikeText =
    "player_name looks like the name of another character (names are unique by their look)";
constexpr const char* kStorageText =
    "storage unavailable: your character cannot be loaded just now; try again later";

}  // namespace

CharacterKeeper::CharacterKeeper(zone::World* world, PlayerDirectory* players,
                                 KeeperCounters counters, ChurnLog* churn,
                                 storage::StorageWorker* storage, Options options, Loaded loaded)
    : world_(world),
      players_(players),
      counters_(counters),
      churn_(churn),
      storage_(storage),
      options_(std::move(options)),
      loaded_(std::move(loaded)) {}

void CharacterKeeper::Login(SessionKey session, std::weak_ptr<SessionSink> sink,
                            LoginIdentity who) {
  const std::shared_ptr<SessionSink> s = sink.lock();
  if (!s) return;
  if (PlayerDirectory::Player* online = players_->ByName(who.name)) {
    if (online->name != who.name) {
      RefuseLookAlike(s);
      return;
    }
    if (options_.token_mode && online->account != who.account) {
      Refuse(s, false, CloseReason::kNameOfAnotherAccount);
      return;
    }
    TakeOver(*online, session, sink);
    return;
  }
  if (options_.local != nullptr &&
      options_.local->PassOnLogin(options_.runner, session, sink, who)) {
    return;  // online in another runner of this process: it takes the login
  }
  if (PlayerDirectory::Player* other = players_->ByAccount(who.account)) {
    KickOut(*other, CloseReason::kLoggedInElsewhere);  // one session per account: the newest wins
  }
  Load(session, {.sink = std::move(sink), .who = std::move(who)});
}

void CharacterKeeper::TakeOver(PlayerDirectory::Player& online, SessionKey session,
                               const std::weak_ptr<SessionSink>& sink) {
  if (const auto old = online.sink.lock()) {
    old->CloseWith(wire::KickFrame(CloseReasonName(CloseReason::kLoggedInElsewhere)),
                   CloseReason::kLoggedInElsewhere);
  }
  PlayerDirectory::Player& p = players_->Rebind(players_->SessionOf(online), session, sink);
  taken_over_.push_back(p.entity);
  const std::shared_ptr<SessionSink> now = sink.lock();
  if (world_->ForgetKnown(p.entity).ok()) p.resync = true;  // the new client knows nothing yet
  counters_.players.logins.Add(1);
  counters_.players.takeovers.Add(1);
  if (now) Welcome(now, p.entity, p.name);
}

void CharacterKeeper::Load(SessionKey session, PendingLogin login) {
  // A login still loading for the same name or account is superseded by this newer one.
  const auto supersede = [this](auto& index, const auto& key) {
    const auto it = index.find(key);
    if (it == index.end()) return;
    if (const auto older = loading_.find(it->second); older != loading_.end()) {
      if (const auto s = older->second.sink.lock()) {
        s->CloseWith(wire::KickFrame(CloseReasonName(CloseReason::kLoggedInElsewhere)),
                     CloseReason::kLoggedInElsewhere);
      }
      loading_.erase(older);
    }
    index.erase(it);
  };
  const std::string key = names::LookAlikeKey(login.who.name);
  if (const auto other = loading_name_.find(key); other != loading_name_.end()) {
    const auto it = loading_.find(other->second);
    if (it != loading_.end() && it->second.who.name != login.who.name) {
      if (const auto s = login.sink.lock()) RefuseLookAlike(s);  // the first one keeps its name
      return;
    }
  }
  supersede(loading_name_, key);
  if (login.who.account != 0) supersede(loading_account_, login.who.account);
  if (storage_ == nullptr) {
    Enter(session, std::move(login), {.outcome = storage::LoadOutcome::kNotFound, .record = {}});
    return;
  }
  const std::string name = login.who.name;
  loading_name_[key] = session;
  if (login.who.account != 0) loading_account_[login.who.account] = session;
  const std::weak_ptr<SessionSink> sink = login.sink;
  loading_[session] = std::move(login);
  const bool queued = storage_->Load(
      name, [loaded = loaded_, session](storage::LoadResult r) { loaded(session, std::move(r)); });
  if (!queued) {
    OnLoaded(session, {.outcome = storage::LoadOutcome::kUnavailable, .record = {}});
  }
}

void CharacterKeeper::OnLoaded(SessionKey session, storage::LoadResult result) {
  const auto it = loading_.find(session);
  if (it == loading_.end()) return;  // superseded by a newer login
  PendingLogin login = std::move(it->second);
  ForgetLoading(session);
  const std::shared_ptr<SessionSink> s = login.sink.lock();
  if (!s) return;  // gone while loading: nothing was created, nothing to save
  if (result.outcome == storage::LoadOutcome::kUnavailable) {
    Refuse(s, true, CloseReason::kStorageUnavailable);
    return;
  }
  if (result.outcome == storage::LoadOutcome::kFound && result.record.name != login.who.name) {
    // Stored before names were normalised, in another normal form: the same character, which
    // keeps its stored name (the store's key). Otherwise only a look-alike: refused.
    if (names::CheckPlayerName(result.record.name).name != login.who.name) {
      RefuseLookAlike(s);
      return;
    }
    login.who.name = result.record.name;
  }
  if (result.outcome == storage::LoadOutcome::kFound && options_.token_mode &&
      result.record.account != login.who.account) {
    Refuse(s, false, CloseReason::kNameOfAnotherAccount);
    return;
  }
  const uint32_t zone = result.record.state.zone;
  if (result.outcome == storage::LoadOutcome::kFound && options_.local != nullptr &&
      !world_->Hosts(zone) && options_.local->HostsHere(zone)) {
    options_.local->HandTo(zone, {.session = session,
                                  .sink = std::move(login.sink),
                                  .account = login.who.account,
                                  .player = std::nullopt,
                                  .character = std::move(result.record)});
    return;  // another runner of this process ticks its zone
  }
  if (result.outcome == storage::LoadOutcome::kFound && options_.handoff != nullptr &&
      !world_->Hosts(zone) && world_->FindZone(zone) != nullptr) {
    RouteLogin(session, std::move(login), std::move(result.record));  // its zone is elsewhere
    return;
  }
  Enter(session, std::move(login), result);
}

void CharacterKeeper::Enter(SessionKey session, PendingLogin login,
                            const storage::LoadResult& result) {
  const std::shared_ptr<SessionSink> s = login.sink.lock();
  if (!s) return;
  const bool fresh = result.outcome != storage::LoadOutcome::kFound;
  if (fresh && options_.local != nullptr && !world_->Hosts(options_.local->StartZone())) {
    options_.local->HandTo(options_.local->StartZone(), {.session = session,
                                                         .sink = std::move(login.sink),
                                                         .account = login.who.account,
                                                         .player = std::nullopt,
                                                         .character = {.name = login.who.name,
                                                                       .account = login.who.account,
                                                                       .state = {},
                                                                       .saved_at_ms = 0},
                                                         .fresh = true});
    return;  // new characters start in another runner's zone
  }
  EntityId id = kInvalidEntity;
  const Status added = fresh ? world_->AddPlayer(std::nullopt, &id, login.who.name)
                             : world_->RestorePlayer(result.record.state, &id, login.who.name);
  if (!added.ok()) {
    s->CloseWith(wire::ErrorFrame(wire::ErrorCode::kServerFull, added.message()),
                 CloseReason::kWorldFull);
    return;
  }
  PlayerDirectory::Player p{.entity = id,
                            .sink = login.sink,
                            .name = login.who.name,
                            .account = login.who.account,
                            .resync = false,
                            .saved = {}};
  (void)world_->SnapshotPlayer(id, &p.saved);
  // A new character is saved at once: its name is taken from now on, even after a crash.
  if (fresh && storage_ != nullptr) storage_->Save({RecordOf(p, p.saved)});
  players_->Add(session, std::move(p));
  counters_.players.online.Add(1);
  counters_.players.logins.Add(1);
  Welcome(s, id, login.who.name);
  if (churn_ == nullptr || churn_->Admit(ChurnLog::Kind::kJoined, "", MonotonicSeconds())) {
    const size_t z = *world_->ZoneIndexOf(id);
    spdlog::info("session {} joined as '{}' (entity {}, {}) in zone {}", session.session(),
                 login.who.name, ToRaw(id), fresh ? "new character" : "loaded",
                 world_->zone(z).config().name);
  }
}

void CharacterKeeper::Welcome(const std::shared_ptr<SessionSink>& sink, EntityId id,
                              const std::string& name) {
  zone::PlayerSnapshot state;
  (void)world_->SnapshotPlayer(id, &state);
  const size_t z = *world_->ZoneIndexOf(id);
  sink->DeliverFrame(wire::WelcomeFrame({.player = id,
                                         .name = name,
                                         .state = &state,
                                         .zone = &world_->zone(z).config(),
                                         .world = &world_->config(),
                                         .server_tick = world_->tick(),
                                         .server_time_ms = WallClockMs()}),
                     FrameKind::kControl);
}

void CharacterKeeper::RefuseLookAlike(const std::shared_ptr<SessionSink>& sink) {
  counters_.login_refusals.Add(CloseReason::kNameLooksLikeAnother);
  sink->CloseWith(wire::ErrorFrame(wire::ErrorCode::kBadName, kLookAlikeText),
                  CloseReason::kNameLooksLikeAnother);
}

void CharacterKeeper::Refuse(const std::shared_ptr<SessionSink>& sink, bool storage_problem,
                             CloseReason reason) {
  counters_.login_refusals.Add(reason);
  const wire::ErrorCode code =
      storage_problem ? wire::ErrorCode::kStorageUnavailable : wire::ErrorCode::kAuthFailed;
  sink->CloseWith(wire::ErrorFrame(code, storage_problem ? kStorageText : kAuthFailedText), reason);
}

storage::CharacterRecord CharacterKeeper::RecordOf(const PlayerDirectory::Player& p,
                                                   const zone::PlayerSnapshot& state) const {
  return {.name = p.name,
          .account = p.account,
          .state = state,
          .saved_at_ms = static_cast<int64_t>(WallClockMs())};
}

void CharacterKeeper::ForgetLoading(SessionKey session) {
  const auto it = loading_.find(session);
  if (it == loading_.end()) return;
  const LoginIdentity& who = it->second.who;
  if (const auto n = loading_name_.find(names::LookAlikeKey(who.name));
      n != loading_name_.end() && n->second == session) {
    loading_name_.erase(n);
  }
  if (const auto a = loading_account_.find(who.account);
      a != loading_account_.end() && a->second == session) {
    loading_account_.erase(a);
  }
  loading_.erase(it);
}

void CharacterKeeper::Logout(SessionKey session) {
  ForgetLoading(session);   // gone before its character was loaded: the load is ignored
  routing_.erase(session);  // gone while its login was being routed: the answer is ignored
  PlayerDirectory::Player* p = players_->BySession(session);
  if (p == nullptr) return;
  if (const auto d = departing_.find(ToRaw(p->entity)); d != departing_.end()) {
    d->second.gone = true;  // the hand-off's answer decides who keeps the character
    Unlist(session);
    return;
  }
  if (p->owner) {
    world_->ReleaseWhenGone(p->entity);  // away: its owner saves and removes it
  } else if (world_->SnapshotPlayer(p->entity, &p->saved).ok()) {
    if (storage_ != nullptr) storage_->Save({RecordOf(*p, p->saved)});
    (void)world_->RemovePlayer(p->entity);
  } else {  // its migrant was taken this tick: real once the world has ticked
    dismissed_.push_back({.entity = p->entity, .account = p->account, .name = p->name});
  }
  Unlist(session);
}

void CharacterKeeper::Unlist(SessionKey session) {
  const PlayerDirectory::Player* p = players_->BySession(session);
  if (p == nullptr) return;
  const bool client_here = !p->home;  // else its client is counted at its home
  players_->Remove(session);
  if (client_here) counters_.players.online.Sub(1);
}

void CharacterKeeper::Dismiss(EntityId entity, uint64_t account, std::string name) {
  dismissed_.push_back({.entity = entity, .account = account, .name = std::move(name)});
}

void CharacterKeeper::DismissArrived() {
  for (const Dismissed& d : dismissed_) {
    zone::PlayerSnapshot state;
    if (storage_ != nullptr && world_->SnapshotPlayer(d.entity, &state).ok()) {
      storage_->Save({RecordOf({.name = d.name, .account = d.account}, state)});
    }
    (void)world_->RemovePlayer(d.entity);
  }
  dismissed_.clear();
}

void CharacterKeeper::KickOut(PlayerDirectory::Player& player, CloseReason reason) {
  if (const auto s = player.sink.lock())
    s->CloseWith(wire::KickFrame(CloseReasonName(reason)), reason);
  Logout(players_->SessionOf(player));
}

void CharacterKeeper::AfterTick() {
  OfferDepartures();
  if (++ticks_since_expiry_ >= options_.tick_rate) {
    ticks_since_expiry_ = 0;
    SaveExpiredTickets();
  }
  if (storage_ == nullptr) return;
  for (size_t z = 0; z < world_->zone_count(); ++z) {
    for (const zone::Transfer& t : world_->output(z).transfers) {
      if (!world_->Hosts(t.target_zone)) continue;  // a hand-off: the other server saves it
      PlayerDirectory::Player* p = players_->ByEntity(t.player);
      if (p != nullptr && world_->SnapshotPlayer(p->entity, &p->saved).ok()) {
        storage_->Save({RecordOf(*p, p->saved)});  // a zone change is saved at once
      }
    }
  }
  if (++ticks_since_checkpoint_ >= options_.checkpoint_ticks) {
    ticks_since_checkpoint_ = 0;
    Checkpoint();
  }
}

void CharacterKeeper::Checkpoint() {
  batch_.clear();
  players_->ForEach([this](SessionKey, PlayerDirectory::Player& p) {
    if (departing_.contains(ToRaw(p.entity))) return;  // the hand-off decides
    zone::PlayerSnapshot now;
    if (!world_->SnapshotPlayer(p.entity, &now).ok() || now == p.saved) return;
    p.saved = now;
    batch_.push_back(RecordOf(p, now));
  });
  if (batch_.empty()) return;
  ++checkpoints_;
  counters_.players.checkpoints.Add(1);
  storage_->Save(std::move(batch_));
  batch_ = {};
}

void CharacterKeeper::SaveEveryone() {
  if (storage_ == nullptr) return;
  batch_.clear();
  players_->ForEach([this](SessionKey, PlayerDirectory::Player& p) {
    if (world_->SnapshotPlayer(p.entity, &p.saved).ok()) batch_.push_back(RecordOf(p, p.saved));
  });
  if (!batch_.empty()) storage_->Save(std::move(batch_));
  batch_ = {};
}

}  // namespace zs::host
