#include "client_sim/world_model.h"

#include <algorithm>
#include <limits>
#include <span>

#include "zone.pb.h"

namespace zs::sim {

namespace pb = ::zs::zone::v1;

namespace {

constexpr size_t kMaxIntervalSamples = 100000;

Vec2 FromCm(int32_t x, int32_t y) {
  return {static_cast<float>(x) / 100.0f, static_cast<float>(y) / 100.0f};
}

// A packed repeated field's values.
template <typename T>
std::span<const T> Span(const google::protobuf::RepeatedField<T>& r) {
  return {r.data(), static_cast<size_t>(r.size())};
}

// A coordinate plus a delta, wrapping like the server's int32 would (garbage must not be UB).
int32_t AddCm(int32_t v, int32_t delta) {
  return static_cast<int32_t>(static_cast<uint32_t>(v) + static_cast<uint32_t>(delta));
}

}  // namespace

void WorldModel::FlushChat() {
  if (chat_ != nullptr) chat_->AddListener(std::move(listener_));
  listener_ = {};
}

void WorldModel::Reset() {
  FlushChat();
  welcomed_ = false;
  known_.clear();
  last_tick_ = 0;
  last_ack_ = 0;
  frame_ = 0;
}

void WorldModel::Welcome(const pb::Welcome& w) {
  welcomed_ = true;
  self_ = w.entity_id();
  listener_.radius = w.you().radius();
  chat_radius_ = w.chat_radius();
  SetZone(w.zone_id(), {.x = w.zone_min_x(), .y = w.zone_min_y()},
          {.x = w.zone_max_x(), .y = w.zone_max_y()});
  self_position_ = CmPoint{.x = w.x(), .y = w.y()};
}

void WorldModel::ZoneChanged(const pb::ZoneChanged& z) {
  if (!known_.empty()) stats_->Violation("zone_change_without_leave");
  known_.clear();
  SetZone(z.zone_id(), {.x = z.zone_min_x(), .y = z.zone_min_y()},
          {.x = z.zone_max_x(), .y = z.zone_max_y()});
  self_position_ = CmPoint{.x = z.x(), .y = z.y()};
  chat_radius_ = z.chat_radius();
}

void WorldModel::SetZone(uint32_t id, CmPoint min, CmPoint max) {
  zone_id_ = id;
  zone_min_cm_ = min;
  zone_max_cm_ = max;
  zone_min_ = FromCm(min.x, min.y);
  zone_max_ = FromCm(max.x, max.y);
}

bool WorldModel::InZone(CmPoint p) const {
  // One centimetre of slack either side for the rounding of positions and bounds to centimetres.
  const auto within = [](int32_t v, int32_t lo, int32_t hi) {
    return static_cast<int64_t>(v) >= static_cast<int64_t>(lo) - 1 &&
           static_cast<int64_t>(v) <= static_cast<int64_t>(hi) + 1;
  };
  return within(p.x, zone_min_cm_.x, zone_max_cm_.x) && within(p.y, zone_min_cm_.y, zone_max_cm_.y);
}

Vec2 WorldModel::position() const { return FromCm(self_position_.x, self_position_.y); }

std::optional<Vec2> WorldModel::NearestMonster() const {
  const Vec2 from = position();
  std::optional<Vec2> best;
  float best_d = 0;
  for (const auto& [id, k] : known_) {
    if (!k.monster || !k.alive) continue;
    const Vec2 p = FromCm(k.position.x, k.position.y);
    const float d = DistanceSq(p, from);
    if (!best || d < best_d) best = p, best_d = d;
  }
  return best;
}

void WorldModel::ApplyTickSummary(const TickSummary& t, Clock::time_point now) { Header(t, now); }

void WorldModel::ApplyTick(const pb::TickUpdate& t, Clock::time_point now) {
  const pb::EntityUpdate& self = t.self();
  Header(TickSummary{.tick = t.tick(),
                     .last_input_seq = t.last_input_seq(),
                     .self_id = self.id(),
                     .has_self_x = self.has_x(),
                     .has_self_y = self.has_y(),
                     .self_x = self.x(),
                     .self_y = self.y(),
                     .resync = t.resync(),
                     .has_crowd = t.has_crowd(),
                     .crowd_total = t.has_crowd() ? t.crowd().total() : 0},
         now);
  ApplyLeft(t);
  ApplyEntered(t);
  ApplyUpdated(t);
  ApplyDeltas(Span(t.moved_ids()), Span(t.moved_deltas()), -1,
              {.bad_lists = "bad_moved_deltas",
               .not_ascending = "moved_not_ascending",
               .unknown = "unknown_move",
               .listed_twice = "moved_and_updated",
               .out_of_zone = "moved_out_of_zone"});
  ApplyDeltas(Span(t.turned_ids()), Span(t.turned_deltas()), t.turned_facings_size(),
              {.bad_lists = "bad_turned_lists",
               .not_ascending = "turned_not_ascending",
               .unknown = "unknown_turn",
               .listed_twice = "turned_listed_twice",
               .out_of_zone = "turned_out_of_zone"});
  if (t.has_crowd()) CheckCrowd(t.crowd());
  ApplyChat(t);
}

void WorldModel::ApplyChat(const pb::TickUpdate& t) {
  stats_->chat_heard.fetch_add(static_cast<uint64_t>(t.chat_size()));
  if (chat_ == nullptr) return;
  listener_.places.push_back(
      {.tick = t.tick(), .zone = zone_id_, .x = self_position_.x, .y = self_position_.y});
  for (const pb::ChatLine& line : t.chat()) {
    if (line.channel() != pb::CHAT_CHANNEL_SAY) continue;
    listener_.heard.emplace(line.text(), t.tick());
    if (line.from_id() != self_) continue;
    chat_->Said({.token = line.text(),
                 .tick = t.tick(),
                 .zone = zone_id_,
                 .x = self_position_.x,
                 .y = self_position_.y,
                 .chat_radius = chat_radius_});
  }
}

void WorldModel::Header(const TickSummary& h, Clock::time_point now) {
  stats_->ticks.fetch_add(1);
  ++frame_;
  if (!welcomed_) stats_->Violation("tick_before_welcome");
  if (h.resync) {
    known_.clear();
  } else if (last_tick_ != 0 && h.tick != last_tick_ + 1) {
    stats_->Violation("tick_gap");
  }
  if (last_tick_ != 0 && h.tick == last_tick_ + 1 && intervals_.size() < kMaxIntervalSamples) {
    intervals_.push_back(std::chrono::duration<double, std::milli>(now - last_tick_at_).count());
  }
  last_tick_ = h.tick;
  last_tick_at_ = now;
  if (h.self_id != self_) stats_->Violation("missing_self");
  if (h.has_self_x) self_position_.x = h.self_x;
  if (h.has_self_y) self_position_.y = h.self_y;
  // Serial-number order (the sequence wraps at 2^32): behind by less than 2^31 is "back".
  if (static_cast<int32_t>(h.last_input_seq - last_ack_) < 0) stats_->Violation("ack_went_back");
  if (static_cast<int32_t>(h.last_input_seq - last_ack_) > 0) last_ack_ = h.last_input_seq;
  if (h.has_crowd) {
    stats_->crowd_summaries.fetch_add(1);
    stats_->crowd_total.fetch_add(h.crowd_total);
  }
}

void WorldModel::ApplyLeft(const pb::TickUpdate& t) {
  for (uint32_t id : t.left()) {
    if (known_.erase(id) == 0) stats_->Violation("unknown_leave");
  }
}

void WorldModel::ApplyEntered(const pb::TickUpdate& t) {
  for (const pb::EntityEnter& e : t.entered()) {
    const Known k{.position = {.x = e.x(), .y = e.y()},
                  .monster = e.kind() == pb::ENTITY_KIND_MONSTER,
                  .alive = e.alive()};
    if (!known_.emplace(e.id(), k).second) stats_->Violation("entered_twice");
    if (e.id() == self_) stats_->Violation("self_entered");
  }
}

void WorldModel::ApplyUpdated(const pb::TickUpdate& t) {
  for (const pb::EntityUpdate& u : t.updated()) {
    auto it = known_.find(u.id());
    if (it == known_.end()) {
      stats_->Violation("unknown_update");
      continue;
    }
    Known& k = it->second;
    k.updated_in = frame_;
    if (u.has_x()) k.position.x = u.x();
    if (u.has_y()) k.position.y = u.y();
    if (u.has_alive()) k.alive = u.alive();
  }
}

void WorldModel::ApplyDeltas(std::span<const uint32_t> ids, std::span<const int32_t> deltas,
                             int facings, const DeltaChecks& checks) {
  const size_t n = ids.size();
  if (deltas.size() != 2 * n || (facings >= 0 && static_cast<size_t>(facings) != n)) {
    stats_->Violation(checks.bad_lists);
    return;
  }
  uint64_t id = 0;  // running sum; wider than an id, so a huge step cannot wrap to a known one
  for (size_t i = 0; i < n; ++i) {
    const uint32_t step = ids[i];
    id += step;
    if (i > 0 && step == 0) {
      stats_->Violation(checks.not_ascending);
      continue;
    }
    auto it = id <= std::numeric_limits<uint32_t>::max() ? known_.find(static_cast<uint32_t>(id))
                                                         : known_.end();
    if (it == known_.end()) {
      stats_->Violation(checks.unknown);
      continue;
    }
    Known& k = it->second;
    if (k.updated_in == frame_ || k.moved_in == frame_) stats_->Violation(checks.listed_twice);
    k.moved_in = frame_;
    k.position.x = AddCm(k.position.x, deltas[2 * i]);
    k.position.y = AddCm(k.position.y, deltas[2 * i + 1]);
    if (!InZone(k.position)) stats_->Violation(checks.out_of_zone);
  }
}

void WorldModel::CheckCrowd(const pb::CrowdSummary& c) {
  const uint64_t cells = static_cast<uint64_t>(c.grid()) * c.grid();
  uint64_t sum = 0;
  for (uint32_t count : c.counts()) sum += count;
  if (static_cast<uint64_t>(c.counts_size()) != cells || sum != c.total()) {
    stats_->Violation("bad_crowd");
  }
}

}  // namespace zs::sim
