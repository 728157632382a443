// CharacterKeeper, the hand-off half: players leaving for a zone hosted by another server,
// logins routed to the server of their character's zone, and characters arriving with a ticket.
#include <spdlog/spdlog.h>

#include "host/character_keeper.h"
#include "host/clock.h"
#include "wire/encoder.h"

namespace zs::host {

namespace {

std::string UnavailableText(const zone::ZoneConfig* zone) {
  return "zone " + (zone != nullptr ? zone->name : std::string("?")) +
         " cannot be reached just now; you stay here, nothing is lost; try again later";
}

// The ZoneChanged's side of an accepted hand-off: where the client goes (views of `answer`).
wire::OtherServer OtherServer(const HandoffAnswer& answer) {
  return {
      .address = answer.address, .ticket = answer.ticket, .websocket_url = answer.websocket_url};
}

}  // namespace

void CharacterKeeper::OfferDepartures() {
  for (const zone::World::Departure& d : world_->departures()) {
    PlayerDirectory::Player* p = players_->ByEntity(d.player);
    const std::optional<SessionKey> session =
        p != nullptr ? std::optional(players_->SessionOf(*p)) : std::nullopt;
    if (p != nullptr && options_.local != nullptr && options_.local->HostsHere(d.to_zone)) {
      HandToRunner(d, *p);
      continue;
    }
    zone::PlayerSnapshot state;
    if (options_.handoff == nullptr || p == nullptr ||
        !world_->SnapshotPlayer(d.player, &state).ok()) {
      (void)world_->TakeBack(d.player);  // nobody to hand it to: it stays
      continue;
    }
    departing_[ToRaw(d.player)] = {.session = session, .account = p->account, .gone = false};
    counters_.handoffs.offered.Add(1);
    options_.handoff->Offer(
        {.character = RecordOf(*p, state)},
        [answered = options_.answered, key = HandoffKey{.login = false, .id = ToRaw(d.player)}](
            HandoffAnswer a) { answered(key, std::move(a)); });
  }
}

void CharacterKeeper::HandToRunner(const zone::World::Departure& d, PlayerDirectory::Player& p) {
  zone::World::HandedPlayer handed;
  if (!world_->HandOver(d.player, &handed).ok()) return;
  const SessionKey session = players_->SessionOf(p);
  const zone::ZoneConfig* zone = world_->FindZone(d.to_zone);
  if (const auto s = p.sink.lock(); s && zone != nullptr) {
    // After this tick's frame (its `left`s), before the first frame of the new zone's runner.
    s->DeliverFrame(wire::ZoneChangedFrame(*zone, handed.state.position), FrameKind::kControl);
  }
  const uint64_t account = p.account;
  std::weak_ptr<SessionSink> sink = p.sink;
  // The roster points at the new runner before this one lets go: a login never finds the
  // character nowhere.
  options_.local->HandTo(d.to_zone, {.session = session,
                                     .sink = std::move(sink),
                                     .account = account,
                                     .player = std::move(handed),
                                     .character = {}});
  Unlist(session);
}

void CharacterKeeper::Adopt(LocalArrival arrival) {
  if (arrival.player) {
    AdoptPlayer(arrival);
    return;
  }
  LoginIdentity who{.account = arrival.account, .name = arrival.character.name};
  if (players_->ByName(who.name) != nullptr || players_->ByAccount(who.account) != nullptr) {
    Login(arrival.session, std::move(arrival.sink), std::move(who));  // the live one wins
    return;
  }
  const storage::LoadOutcome outcome =
      arrival.fresh ? storage::LoadOutcome::kNotFound : storage::LoadOutcome::kFound;
  Enter(arrival.session, {.sink = std::move(arrival.sink), .who = std::move(who)},
        {.outcome = outcome, .record = std::move(arrival.character)});
}

// A player who walked through a portal in another runner of this process arrives here.
void CharacterKeeper::AdoptPlayer(LocalArrival& arrival) {
  const zone::World::HandedPlayer& h = *arrival.player;
  PlayerDirectory::Player p{.entity = h.id,
                            .sink = arrival.sink,
                            .name = h.name,
                            .account = arrival.account,
                            .resync = true,  // its first frame here starts the client's picture
                            .saved = h.state};
  if (const Status added = world_->Adopt(h); !added.ok()) {  // cannot happen: ids are shared
    spdlog::error("'{}' could not enter zone {} ({}): saved where the portal put it", h.name,
                  h.state.zone, added.message());
    if (storage_ != nullptr) storage_->Save({RecordOf(p, h.state)});
    if (const auto s = arrival.sink.lock()) {
      s->CloseWith(wire::ErrorFrame(wire::ErrorCode::kServerFull, added.message()),
                   CloseReason::kWorldFull);
    }
    return;
  }
  (void)world_->SnapshotPlayer(h.id, &p.saved);
  if (storage_ != nullptr) storage_->Save({RecordOf(p, p.saved)});  // a zone change: at once
  players_->Add(arrival.session, std::move(p));
  counters_.players.online.Add(1);
  if (arrival.sink.expired()) Logout(arrival.session);  // its client left on the way
}

void CharacterKeeper::OnHandoffAnswer(HandoffKey key, const HandoffAnswer& answer) {
  if (key.login) {
    FinishRoute(SessionKey::Local(key.id), answer);  // a login: a connection here
    return;
  }
  const auto it = departing_.find(key.id);
  if (it == departing_.end()) return;
  const Departing d = it->second;
  departing_.erase(it);
  const auto entity = static_cast<EntityId>(static_cast<uint32_t>(key.id));
  if (answer.outcome == HandoffAnswer::Outcome::kAccepted) {
    Depart(d.gone ? std::nullopt : d.session, entity, answer);
  } else {
    ComeBack(d, entity, answer);
  }
}

// Accepted: the other server owns the character now (it saves it); the client follows.
void CharacterKeeper::Depart(std::optional<SessionKey> session, EntityId entity,
                             const HandoffAnswer& answer) {
  zone::PlayerSnapshot state;
  (void)world_->SnapshotPlayer(entity, &state);
  (void)world_->SendOff(entity);
  counters_.handoffs.accepted.Add(1);
  PlayerDirectory::Player* p = session ? players_->BySession(*session) : nullptr;
  if (p == nullptr) return;  // the client left meanwhile: its ticket will expire over there
  if (const auto s = p->sink.lock()) {
    const zone::ZoneConfig* zone = world_->FindZone(state.zone);
    if (zone != nullptr) {
      s->DeliverFrame(wire::ZoneChangedFrame(*zone, state.position, OtherServer(answer)),
                      FrameKind::kControl);
    }
    s->CloseWith(wire::KickFrame(CloseReasonName(CloseReason::kZoneHandoff)),
                 CloseReason::kZoneHandoff);
  }
  Unlist(*session);
}

// Refused or unreachable: the player stands beside the portal again, told why.
void CharacterKeeper::ComeBack(const Departing& d, EntityId entity, const HandoffAnswer& answer) {
  const std::optional<SessionKey> session = d.gone ? std::nullopt : d.session;
  zone::PlayerSnapshot wanted;
  (void)world_->SnapshotPlayer(entity, &wanted);
  const zone::ZoneConfig* target = world_->FindZone(wanted.zone);
  counters_.handoffs.failed.Add(1);
  spdlog::warn("hand-off to zone {} failed ({}): the player stays",
               target != nullptr ? target->name : "?", answer.reason);
  if (!world_->TakeBack(entity).ok()) return;
  PlayerDirectory::Player* p = session ? players_->BySession(*session) : nullptr;
  if (p == nullptr) {  // the client left meanwhile: an ordinary logout now
    zone::PlayerSnapshot state;
    if (storage_ != nullptr && world_->SnapshotPlayer(entity, &state).ok()) {
      storage::CharacterRecord r{.name = world_->NameOf(entity),
                                 .account = d.account,  // else token mode would lose the owner
                                 .state = state,
                                 .saved_at_ms = static_cast<int64_t>(WallClockMs())};
      storage_->Save({std::move(r)});
    }
    (void)world_->RemovePlayer(entity);
    return;
  }
  p->resync = true;  // it re-entered its zone: the client starts its picture again
  if (const auto s = p->sink.lock()) {
    s->DeliverFrame(wire::NoticeFrame(wire::NoticeCode::kZoneUnavailable, UnavailableText(target)),
                    FrameKind::kControl);
  }
}

void CharacterKeeper::RouteLogin(SessionKey session, PendingLogin login,
                                 storage::CharacterRecord character) {
  const uint32_t zone = character.state.zone;
  routing_[session] = {.login = std::move(login), .zone = zone};
  options_.handoff->Offer(
      {.character = std::move(character)},
      [answered = options_.answered, key = HandoffKey{.login = true, .id = session.session()}](
          HandoffAnswer a) { answered(key, std::move(a)); });
}

void CharacterKeeper::FinishRoute(SessionKey session, const HandoffAnswer& answer) {
  const auto it = routing_.find(session);
  if (it == routing_.end()) return;  // the client left meanwhile
  Routing r = std::move(it->second);
  routing_.erase(it);
  const std::shared_ptr<SessionSink> s = r.login.sink.lock();
  if (!s) return;
  const zone::ZoneConfig* zone = world_->FindZone(r.zone);
  if (answer.outcome != HandoffAnswer::Outcome::kAccepted || zone == nullptr) {
    counters_.login_refusals.Add(CloseReason::kZoneUnavailable);
    s->CloseWith(wire::ErrorFrame(wire::ErrorCode::kZoneUnavailable, UnavailableText(zone)),
                 CloseReason::kZoneUnavailable);
    return;
  }
  // The answer to this Hello is where to go: the server of the character's zone.
  s->DeliverFrame(wire::ZoneChangedFrame(*zone, {}, OtherServer(answer)), FrameKind::kControl);
  s->CloseWith(wire::KickFrame(CloseReasonName(CloseReason::kZoneHandoff)),
               CloseReason::kZoneHandoff);
}

void CharacterKeeper::Arrive(SessionKey session, std::weak_ptr<SessionSink> sink,
                             storage::CharacterRecord character) {
  LoginIdentity who{.account = character.account, .name = character.name};
  if (players_->ByName(who.name) != nullptr || players_->ByAccount(who.account) != nullptr) {
    Login(session, std::move(sink), std::move(who));  // online here already: the live one wins
    return;
  }
  if (options_.local != nullptr &&
      options_.local->PassOnLogin(options_.runner, session, sink, who)) {
    return;  // online in another runner of this process: the live one wins there
  }
  counters_.handoffs.arrived.Add(1);
  Enter(session, {.sink = std::move(sink), .who = std::move(who)},
        {.outcome = storage::LoadOutcome::kFound, .record = std::move(character)});
}

// A client that never came: its character is saved, so its next login finds it here.
void CharacterKeeper::SaveExpiredTickets() {
  if (options_.tickets == nullptr) return;
  std::vector<storage::CharacterRecord> expired = options_.tickets->Expire(MonotonicSeconds());
  if (expired.empty()) return;
  spdlog::info("{} hand-off tickets expired unused: their characters are saved", expired.size());
  if (storage_ != nullptr) storage_->Save(std::move(expired));
}

}  // namespace zs::host
