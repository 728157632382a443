// ClientRelay (client_relay.h): a runner's side of players crossing the cells of a split zone.
#include "host/client_relay.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "wire/encoder.h"
#include "wire/protocol.h"

namespace zs::host {

void ClientRelay::Attach(RelayPort* relay) {
  relay_ = relay;
  if (relay == nullptr) {  // detached (shutdown, the runner stopped): nothing of it is kept
    sinks_.clear();
    homes_.clear();
    away_since_.clear();
    departed_.clear();
  }
}

void ClientRelay::Watch(double now, bool each_second) {
  if (relay_ == nullptr) return;
  // The watches look every tick: a silence is then measured from within a tick of the last
  // notice (from the last frame's own time at the home), and acted on within a tick of its
  // bound (docs/seamless.md "Relay").
  HoldAway(now);
  WatchHomes(now);
  WatchAway(now);
  if (each_second) {
    ForgetDeparted();
    SweepGone();
  }
}

const std::string& ClientRelay::NodeOf(size_t z, uint32_t cell) const {
  return world_.zone(z).config().cells.nodes.at(cell);
}

std::optional<uint32_t> ClientRelay::CellOfNode(size_t z, const std::string& node) const {
  const std::vector<std::string>& nodes = world_.zone(z).config().cells.nodes;
  for (uint32_t c = 0; c < nodes.size(); ++c) {
    if (nodes[c] == node) return c;
  }
  return std::nullopt;
}

void ClientRelay::SendAway(const zone::GhostBatch& batch, std::vector<MigrantClient>* clients) {
  clients->clear();
  const std::optional<size_t> z = world_.ZoneIndexById(batch.zone);
  if (!z) return;
  const uint32_t here = world_.zone(*z).border().cell();
  for (const zone::Migrant& m : batch.migrants) {
    if (m.body.kind != zone::EntityKind::kPlayer) continue;
    PlayerDirectory::Player* p = players_.ByEntity(m.body.id);
    if (p == nullptr) continue;  // its client left in this tick: the receiver dismisses it
    MigrantClient& client = clients->emplace_back();
    client.entity = m.body.id;
    const SessionKey session = players_.SessionOf(*p);
    client.account = p->account;
    client.last_frame_tick = world_.tick() + p->tick_offset;
    if (const std::shared_ptr<SessionSink> sink = p->sink.lock()) {
      client.protocol_version = sink->ProtocolVersion();
    }
    if (p->home) {  // a client elsewhere: its new owner relays to its home from now on
      client.home = NodeOf(*z, p->home->cell);
      client.session = session.session();
      departed_[session] = {.owner = {.zone_id = batch.zone, .cell = batch.to_cell},
                            .home_cell = p->home->cell,
                            .tick = world_.tick()};
      sinks_.erase(session);
      players_.Remove(session);
      continue;
    }
    client.home = NodeOf(*z, here);
    client.session = session.session();
    p->owner = zone::CellRef{.zone_id = batch.zone, .cell = batch.to_cell};
    going_.push_back(session);  // relayed once the batch is sent (AfterBatchSent)
  }
}

void ClientRelay::Take(size_t z, std::span<const Arriving> arriving, double now) {
  const uint32_t zone_id = world_.zone(z).config().id;
  const uint32_t here = world_.zone(z).border().cell();
  // Its first frame here is of the coming tick; the client's last was last_frame_tick.
  const auto offset = [this](const MigrantClient& c) { return c.last_frame_tick - world_.tick(); };
  for (const Arriving& a : arriving) {
    const EntityId entity = a.client.entity;
    const MigrantClient& client = a.client;
    const std::optional<uint32_t> home = CellOfNode(z, client.home);
    if (home == here) {  // ours again
      PlayerDirectory::Player* p = players_.BySession(SessionKey::Local(client.session));
      if (p == nullptr || p->entity != entity || !p->owner) {
        keeper_.Dismiss(entity, client.account, a.name);
        continue;
      }
      p->owner.reset();
      p->tick_offset = offset(client);
      p->newest_seq = a.last_input_seq;  // its inputs went straight to the owner meanwhile
      relay_->Back(client.session);
      away_since_.erase(SessionKey::Local(client.session));
      continue;
    }
    // Named by its migrant: a player placed in this cell at its login elsewhere had no ghost
    // here, which World::NameOf would name until the coming tick makes it real.
    const std::string& name = a.name;
    const SessionKey key = home ? SessionKey::Relayed(*home, client.session) : SessionKey();
    if (!home || client.session == 0 || client.session > kMaxRelayedSession ||
        players_.BySession(key) != nullptr || players_.ByName(name) != nullptr ||
        players_.ByAccount(client.account) != nullptr) {
      spdlog::warn("zone {}: player {} crossed in without a client to relay to (home '{}')",
                   zone_id, ToRaw(entity), client.home);
      keeper_.Dismiss(entity, client.account, name);
      continue;
    }
    std::shared_ptr<SessionSink> sink = relay_->SinkAtHome(
        {.zone = zone_id, .to_cell = *home, .home_cell = *home, .session = client.session},
        std::clamp(client.protocol_version, wire::kMinProtocolVersion, wire::kProtocolVersion));
    departed_.erase(key);
    homes_[key] = {.notices = relay_->HomeNotices(zone_id, key), .since_s = now};
    players_.Add(key, {.entity = entity,
                       .sink = sink,
                       .name = name,
                       .account = client.account,
                       .home = zone::CellRef{.zone_id = zone_id, .cell = *home},
                       .tick_offset = offset(client),
                       .newest_seq = a.last_input_seq});
    sinks_[key] = std::move(sink);
  }
}

bool ClientRelay::ToOwner(SessionKey session, const PlayerDirectory::Player* player,
                          const ClientInput* input) {
  if (relay_ == nullptr) return false;
  if (player != nullptr) {
    if (!player->owner) return false;
    relay_->FromHome(session.session(), input);
    if (input == nullptr) {
      relay_->Back(session.session());
      away_since_.erase(session);
    }
    return true;
  }
  const auto d = departed_.find(session);
  if (d == departed_.end()) return false;
  relay_->SendOn({.zone = d->second.owner.zone_id,
                  .to_cell = d->second.owner.cell,
                  .home_cell = d->second.home_cell,
                  .session = session.session()},
                 input);
  if (input == nullptr) departed_.erase(d);
  return true;
}

void ClientRelay::WatchAway(double now) {
  std::vector<SessionKey> silent;
  for (const auto& [session, away_since_s] : away_since_) {
    const double last = std::max(away_since_s, relay_->LastFrameRelayedAt(session.session()));
    if (now - last > kSilentOwnerSeconds) silent.push_back(session);
  }
  for (const SessionKey session : silent) {
    PlayerDirectory::Player* p = players_.BySession(session);
    if (p == nullptr) {
      away_since_.erase(session);
      continue;
    }
    spdlog::warn("player {} ({}): the node owning it relayed nothing for {} s: closed",
                 ToRaw(p->entity), p->name, kSilentOwnerSeconds);
    if (const auto sink = p->sink.lock()) {
      sink->CloseWith(wire::KickFrame(CloseReasonName(CloseReason::kZoneUnavailable)),
                      CloseReason::kZoneUnavailable);
    }
    ToOwner(session, p, nullptr);  // should it come back, it lets the player go
    keeper_.Logout(session);
  }
}

bool ClientRelay::RefuseJoinOfAway(SessionKey session, const LoginIdentity& who,
                                   const std::weak_ptr<SessionSink>& sink) {
  if (relay_ == nullptr) return false;
  PlayerDirectory::Player* p = players_.ByName(who.name);
  if (p == nullptr || !p->owner) p = players_.ByAccount(who.account);
  if (p == nullptr || !p->owner) return false;
  const SessionKey away = players_.SessionOf(*p);
  if (const auto old = p->sink.lock()) {
    old->CloseWith(wire::KickFrame(CloseReasonName(CloseReason::kLoggedInElsewhere)),
                   CloseReason::kLoggedInElsewhere);
  }
  ToOwner(away, p, nullptr);  // its owner saves it and lets it go
  keeper_.Logout(away);
  if (const auto s = sink.lock()) {
    s->CloseWith(wire::ErrorFrame(wire::ErrorCode::kStorageUnavailable,
                                  "your character is being saved by another node: log in again"),
                 CloseReason::kZoneUnavailable);
  }
  spdlog::info("session {}: login as {} refused while its player, away, is saved",
               session.session(), who.name);
  return true;
}

void ClientRelay::AfterBatchSent(double now) {
  for (const SessionKey session : going_) {
    const PlayerDirectory::Player* p = players_.BySession(session);
    if (p == nullptr || !p->owner) continue;
    relay_->Away(session.session(), p->sink, *p->owner);
    away_since_[session] = now;
  }
  going_.clear();
}

void ClientRelay::HoldAway(double now) {
  if (now < next_hold_s_ || away_since_.empty()) return;
  next_hold_s_ = now + kHoldPeriodSeconds;
  held_.clear();
  for (const auto& [session, since] : away_since_) held_.push_back(session.session());
  relay_->Hold(held_);
}

void ClientRelay::WatchHomes(double now) {
  std::vector<SessionKey> silent;
  for (auto it = homes_.begin(); it != homes_.end();) {
    const PlayerDirectory::Player* p = players_.BySession(it->first);
    if (p == nullptr || !p->home) {  // gone (or home: a key is never a local session)
      it = homes_.erase(it);
      continue;
    }
    HomeWatch& watch = it->second;
    const uint64_t notices = relay_->HomeNotices(p->home->zone_id, it->first);
    if (notices != watch.notices) {
      watch = {.notices = notices, .since_s = now};
    } else if (now - watch.since_s > kSilentHomeSeconds) {
      silent.push_back(it->first);
    }
    ++it;
  }
  for (const SessionKey key : silent) {
    const PlayerDirectory::Player* p = players_.BySession(key);
    spdlog::warn(
        "player {} ({}): its home (cell {}) told nothing of its client for {} s: "
        "saved and let go",
        ToRaw(p->entity), p->name, p->home->cell, kSilentHomeSeconds);
    counters_.homes_silent.Add(1);
    if (const auto sink = p->sink.lock()) {  // should the home hear it, it closes the client
      sink->CloseWith(wire::KickFrame(CloseReasonName(CloseReason::kZoneUnavailable)),
                      CloseReason::kZoneUnavailable);
    }
    homes_.erase(key);
    keeper_.Logout(key);
  }
}

void ClientRelay::SweepGone() {
  std::erase_if(sinks_, [this](const auto& s) { return players_.BySession(s.first) == nullptr; });
  std::erase_if(away_since_, [this](const auto& w) {
    const PlayerDirectory::Player* p = players_.BySession(w.first);
    if (p != nullptr && p->owner) return false;
    relay_->Back(w.first.session());  // the owner's next frame is answered with a leaving
    return true;
  });
}

void ClientRelay::ForgetDeparted() {
  std::erase_if(departed_,
                [this](const auto& d) { return world_.tick() - d.second.tick > kDepartedTicks; });
}

}  // namespace zs::host
