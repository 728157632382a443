#include "client_sim/world_model.h"

#include <algorithm>
#include <array>

#include "zone.pb.h"

namespace zs::sim {

namespace pb = ::zs::zone::v1;

namespace {

constexpr size_t kMaxIntervalSamples = 100000;

Vec2 FromCm(int32_t x, int32_t y) {
  return {static_cast<float>(x) / 100.0f, static_cast<float>(y) / 100.0f};
}

}  // namespace

void WorldModel::AnomalyCount::OnAnomaly(client::Anomaly anomaly, uint32_t /*id*/) {
  static constexpr std::array kNames = {
      "unknown_leave",       "entered_twice",       "self_entered",         "unknown_update",
      "bad_moved_deltas",    "moved_not_ascending", "unknown_move",         "moved_and_updated",
      "moved_out_of_zone",   "bad_turned_lists",    "turned_not_ascending", "unknown_turn",
      "turned_listed_twice", "turned_out_of_zone"};
  static_assert(kNames.size() == static_cast<size_t>(client::Anomaly::kTurnedOutOfZone) + 1);
  stats_->Violation(kNames[static_cast<size_t>(anomaly)]);
}

void WorldModel::FlushChat() {
  if (chat_ != nullptr) chat_->AddListener(std::move(listener_));
  listener_ = {};
}

void WorldModel::Reset() {
  FlushChat();
  store_ = client::EntityStore();
  store_.set_anomaly_listener(&anomalies_);
  last_tick_ = 0;
  last_ack_ = 0;
}

void WorldModel::Welcome(const pb::Welcome& w) {
  store_.ApplyWelcome(w);
  self_ = w.entity_id();
  listener_.radius = w.you().radius();
  chat_radius_ = w.chat_radius();
  self_position_ = CmPoint{.x = w.x(), .y = w.y()};
}

void WorldModel::ZoneChanged(const pb::ZoneChanged& z) {
  if (!store_.entities().empty()) stats_->Violation("zone_change_without_leave");
  store_.ApplyZoneChanged(z);
  self_position_ = CmPoint{.x = z.x(), .y = z.y()};
  chat_radius_ = z.chat_radius();
}

Vec2 WorldModel::zone_min() const {
  const std::optional<client::ZoneInfo>& z = store_.zone();
  return z ? FromCm(z->min_x, z->min_y) : Vec2{};
}

Vec2 WorldModel::zone_max() const {
  const std::optional<client::ZoneInfo>& z = store_.zone();
  return z ? FromCm(z->max_x, z->max_y) : Vec2{};
}

Vec2 WorldModel::position() const { return FromCm(self_position_.x, self_position_.y); }

std::optional<Vec2> WorldModel::NearestMonster() const {
  const Vec2 from = position();
  std::optional<Vec2> best;
  float best_d = 0;
  for (const auto& [id, e] : store_.entities()) {
    if (e.kind != client::EntityKind::kMonster || !e.alive) continue;
    const Vec2 p = FromCm(e.x, e.y);
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
  store_.ApplyTick(t);
  if (t.has_crowd()) CheckCrowd(t.crowd());
  ApplyChat(t);
}

void WorldModel::ApplyChat(const pb::TickUpdate& t) {
  stats_->chat_heard.fetch_add(static_cast<uint64_t>(t.chat_size()));
  if (chat_ == nullptr) return;
  listener_.places.push_back(
      {.tick = t.tick(), .zone = zone_id(), .x = self_position_.x, .y = self_position_.y});
  for (const pb::ChatLine& line : t.chat()) {
    if (line.channel() != pb::CHAT_CHANNEL_SAY) continue;
    listener_.heard.emplace(line.text(), t.tick());
    if (line.from_id() != self_) continue;
    chat_->Said({.token = line.text(),
                 .tick = t.tick(),
                 .zone = zone_id(),
                 .x = self_position_.x,
                 .y = self_position_.y,
                 .chat_radius = chat_radius_});
  }
}

void WorldModel::Header(const TickSummary& h, Clock::time_point now) {
  stats_->ticks.fetch_add(1);
  if (!store_.self()) stats_->Violation("tick_before_welcome");
  if (!h.resync && last_tick_ != 0 && h.tick != last_tick_ + 1) stats_->Violation("tick_gap");
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

void WorldModel::CheckCrowd(const pb::CrowdSummary& c) {
  const uint64_t cells = static_cast<uint64_t>(c.grid()) * c.grid();
  uint64_t sum = 0;
  for (uint32_t count : c.counts()) sum += count;
  if (static_cast<uint64_t>(c.counts_size()) != cells || sum != c.total()) {
    stats_->Violation("bad_crowd");
  }
}

}  // namespace zs::sim
