#include "zs_client/entity_store.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "zone.pb.h"

namespace zs::client {
namespace pb = zone::v1;
namespace {

constexpr uint64_t kMaxId = UINT32_MAX;

// A delta added to a coordinate: the wire's sint32 sums wrap rather than overflow (C++20
// conversions are modular), so a hostile stream cannot cause undefined behaviour.
int32_t Add(int32_t value, int32_t delta) {
  return static_cast<int32_t>(static_cast<int64_t>(value) + delta);
}

ZoneInfo ZoneOf(uint32_t id, const std::string& name, int32_t min_x, int32_t min_y, int32_t max_x,
                int32_t max_y) {
  return ZoneInfo{
      .id = id, .name = name, .min_x = min_x, .min_y = min_y, .max_x = max_x, .max_y = max_y};
}

}  // namespace

void EntityStore::Apply(const pb::ServerMessage& message) {
  switch (message.kind_case()) {
    case pb::ServerMessage::kWelcome:
      ApplyWelcome(message.welcome());
      break;
    case pb::ServerMessage::kTick:
      ApplyTick(message.tick());
      break;
    case pb::ServerMessage::kZoneChanged:
      ApplyZoneChanged(message.zone_changed());
      break;
    default:
      break;  // Pong, Error, Kick, Notice: nothing the store keeps
  }
}

void EntityStore::ApplyWelcome(const pb::Welcome& w) {
  ForgetAll();
  zone_ = ZoneOf(w.zone_id(), w.zone_name(), w.zone_min_x(), w.zone_min_y(), w.zone_max_x(),
                 w.zone_max_y());
  self_ = Self{.id = w.entity_id(),
               .x = w.x(),
               .y = w.y(),
               .facing = w.facing(),
               .hp = w.you().hp(),
               .alive = !w.you().dead()};
  tick_.reset();
  last_input_seq_ = 0;
  crowd_total_.reset();
}

void EntityStore::ApplyTick(const pb::TickUpdate& t) {
  ++ticks_applied_;
  if (t.resync()) ForgetAll();
  for (const uint32_t id : t.left()) {
    if (!Remove(id)) Report(Anomaly::kUnknownLeave, id);
  }
  for (const pb::EntityEnter& e : t.entered()) {
    // Entered again without a leave: replaced, heard as a leave and an enter.
    if (Remove(e.id())) Report(Anomaly::kEnteredTwice, e.id());
    if (self_ && e.id() == self_->id) Report(Anomaly::kSelfEntered, e.id());
    const auto [it, inserted] = entities_.insert_or_assign(
        e.id(), Entity{.id = e.id(),
                       .kind = e.kind() == pb::ENTITY_KIND_MONSTER ? EntityKind::kMonster
                                                                   : EntityKind::kPlayer,
                       .template_id = e.template_id(),
                       .name = e.name(),
                       .x = e.x(),
                       .y = e.y(),
                       .facing = e.facing(),
                       .radius = e.radius(),
                       .hp = e.hp(),
                       .max_hp = e.max_hp(),
                       .alive = e.alive(),
                       .listed_in = 0});
    if (listener_ != nullptr) listener_->OnEnter(it->second);
  }
  for (const pb::EntityUpdate& u : t.updated()) ApplyUpdate(u);
  ApplyMoves(t);
  ApplyTurns(t);
  if (t.has_self()) ApplySelf(t.self());
  tick_ = t.tick();
  last_input_seq_ = t.last_input_seq();
  if (t.has_crowd()) crowd_total_ = t.crowd().total();
}

void EntityStore::ApplyZoneChanged(const pb::ZoneChanged& z) {
  ForgetAll();
  zone_ = ZoneOf(z.zone_id(), z.zone_name(), z.zone_min_x(), z.zone_min_y(), z.zone_max_x(),
                 z.zone_max_y());
  if (self_) {
    self_->x = z.x();
    self_->y = z.y();
  }
  crowd_total_.reset();
}

void EntityStore::ApplyUpdate(const pb::EntityUpdate& u) {
  const auto it = entities_.find(u.id());
  if (it == entities_.end()) {  // the server never sends it: ignored
    Report(Anomaly::kUnknownUpdate, u.id());
    return;
  }
  Entity& e = it->second;
  e.listed_in = ticks_applied_;
  if (u.has_x()) e.x = u.x();
  if (u.has_y()) e.y = u.y();
  if (u.has_facing()) e.facing = u.facing();
  if (u.has_hp()) e.hp = u.hp();
  if (u.has_alive()) e.alive = u.alive();
  Changed(e);
}

inline void EntityStore::ApplyDelta(uint64_t id, int32_t dx, int32_t dy,
                                    std::optional<uint32_t> facing, const DeltaList& list) {
  const auto it = id > kMaxId ? entities_.end() : entities_.find(static_cast<uint32_t>(id));
  if (it == entities_.end()) {
    Report(list.unknown, id > kMaxId ? 0 : static_cast<uint32_t>(id));
    return;
  }
  Entity& e = it->second;
  if (e.listed_in == ticks_applied_) Report(list.listed_twice, e.id);
  e.listed_in = ticks_applied_;
  e.x = Add(e.x, dx);
  e.y = Add(e.y, dy);
  if (facing) e.facing = *facing;
  if (anomalies_ != nullptr && !InZone(e.x, e.y)) Report(list.out_of_zone, e.id);
  Changed(e);
}

void EntityStore::ApplyMoves(const pb::TickUpdate& t) {
  constexpr DeltaList kMoved{.bad_lists = Anomaly::kBadMovedLists,
                             .not_ascending = Anomaly::kMovedNotAscending,
                             .unknown = Anomaly::kUnknownMove,
                             .listed_twice = Anomaly::kMovedAndUpdated,
                             .out_of_zone = Anomaly::kMovedOutOfZone};
  if (t.moved_deltas_size() != 2 * t.moved_ids_size()) Report(kMoved.bad_lists, 0);
  const int count = std::min(t.moved_ids_size(), t.moved_deltas_size() / 2);
  const uint32_t* gaps = t.moved_ids().data();
  const int32_t* deltas = t.moved_deltas().data();
  uint64_t id = 0;  // wider than an id: a running sum past 2^32 - 1 names no entity
  for (int i = 0; i < count; ++i) {
    if (i > 0 && gaps[i] == 0) {  // the same id again: skipped
      Report(kMoved.not_ascending, static_cast<uint32_t>(id));
      continue;
    }
    id += gaps[i];  // running sum of the gaps
    ApplyDelta(id, deltas[2 * i], deltas[2 * i + 1], std::nullopt, kMoved);
  }
}

void EntityStore::ApplyTurns(const pb::TickUpdate& t) {
  constexpr DeltaList kTurned{.bad_lists = Anomaly::kBadTurnedLists,
                              .not_ascending = Anomaly::kTurnedNotAscending,
                              .unknown = Anomaly::kUnknownTurn,
                              .listed_twice = Anomaly::kTurnedListedTwice,
                              .out_of_zone = Anomaly::kTurnedOutOfZone};
  if (t.turned_deltas_size() != 2 * t.turned_ids_size() ||
      t.turned_facings_size() != t.turned_ids_size()) {
    Report(kTurned.bad_lists, 0);
  }
  const int count =
      std::min({t.turned_ids_size(), t.turned_deltas_size() / 2, t.turned_facings_size()});
  const uint32_t* gaps = t.turned_ids().data();
  const int32_t* deltas = t.turned_deltas().data();
  const uint32_t* facings = t.turned_facings().data();
  uint64_t id = 0;
  for (int i = 0; i < count; ++i) {
    if (i > 0 && gaps[i] == 0) {
      Report(kTurned.not_ascending, static_cast<uint32_t>(id));
      continue;
    }
    id += gaps[i];
    ApplyDelta(id, deltas[2 * i], deltas[2 * i + 1], facings[i], kTurned);
  }
}

bool EntityStore::InZone(int32_t x, int32_t y) const {
  if (!zone_) return true;
  // One centimetre of slack either side for the rounding of positions and bounds to centimetres.
  const auto within = [](int32_t v, int32_t lo, int32_t hi) {
    return static_cast<int64_t>(v) >= static_cast<int64_t>(lo) - 1 &&
           static_cast<int64_t>(v) <= static_cast<int64_t>(hi) + 1;
  };
  return within(x, zone_->min_x, zone_->max_x) && within(y, zone_->min_y, zone_->max_y);
}

void EntityStore::ApplySelf(const pb::EntityUpdate& u) {
  if (!self_) return;  // a tick before the Welcome: nothing to update
  if (u.has_x()) self_->x = u.x();
  if (u.has_y()) self_->y = u.y();
  if (u.has_facing()) self_->facing = u.facing();
  if (u.has_hp()) self_->hp = u.hp();
  if (u.has_alive()) self_->alive = u.alive();
}

bool EntityStore::Remove(uint32_t id) {
  const auto it = entities_.find(id);
  if (it == entities_.end()) return false;
  if (listener_ == nullptr) {
    entities_.erase(it);
    return true;
  }
  const Entity gone = std::move(it->second);
  entities_.erase(it);
  listener_->OnLeave(gone);
  return true;
}

void EntityStore::ForgetAll() {
  if (listener_ == nullptr) {
    entities_.clear();
    return;
  }
  std::vector<Entity> gone;
  gone.reserve(entities_.size());
  for (auto& [id, e] : entities_) gone.push_back(std::move(e));
  entities_.clear();
  std::sort(gone.begin(), gone.end(), [](const Entity& a, const Entity& b) { return a.id < b.id; });
  for (const Entity& e : gone) listener_->OnLeave(e);
}

void EntityStore::Changed(const Entity& entity) const {
  if (listener_ != nullptr) listener_->OnChange(entity);
}

}  // namespace zs::client
