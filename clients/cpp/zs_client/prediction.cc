#include "zs_client/prediction.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "zs_client/protocol.h"

namespace zs::client {
namespace {
constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();
}  // namespace

Prediction::Prediction(PredictionOptions options)
    : options_(options),
      server_tick_(kNoValue),
      timeline_offset_(kNoValue),
      fallback_offset_(kNoValue),
      corrected_at_(kNoValue) {}

void Prediction::Configure(uint32_t speed_cm_per_s, uint32_t tick_rate,
                           std::optional<ZoneInfo> bounds) {
  speed_ = speed_cm_per_s;
  tick_ms_ = 1000.0 / std::max<uint32_t>(1, tick_rate);
  bounds_ = std::move(bounds);
}

void Prediction::Reset(double x, double y, bool alive, uint32_t seq_base) {
  pending_.clear();
  refused_.clear();
  acked_dx_ = 0;
  acked_dy_ = 0;
  server_x_ = x;
  server_y_ = y;
  server_tick_ = kNoValue;
  correction_x_ = 0;
  correction_y_ = 0;
  alive_ = alive;
  seq_base_ = seq_base;
  newest_seq_ = seq_base;
}

void Prediction::AddMove(uint32_t seq, double dir_x, double dir_y, double sent_ms) {
  const double len = std::hypot(dir_x, dir_y);
  const bool moving = len > 0 && std::isfinite(len);
  pending_.push_back(PendingMove{.seq = seq,
                                 .dx = moving ? dir_x / len : 0,
                                 .dy = moving ? dir_y / len : 0,
                                 .sent_ms = sent_ms});
  newest_seq_ = seq;
}

void Prediction::AddOtherInput(uint32_t seq) { newest_seq_ = seq; }

void Prediction::MoveRefused(uint32_t seq) { refused_.push_back(seq); }

bool Prediction::IsRefused(uint32_t seq) const {
  return std::find(refused_.begin(), refused_.end(), seq) != refused_.end();
}

void Prediction::OnFrame(uint64_t tick, uint32_t last_input_seq, double x, double y, bool alive,
                         double now_ms, double expected_arrival_ms, double rtt_ms) {
  const Position before = RawAt(now_ms);
  const auto t = static_cast<double>(tick);
  // Acknowledged moves leave the pending list; the newest accepted one is the server's direction.
  const auto acked = [&](const PendingMove& m) {
    return SeqAcked(m.seq, last_input_seq, seq_base_, newest_seq_);
  };
  size_t n = 0;
  while (n < pending_.size() && acked(pending_[n])) {
    const PendingMove& m = pending_[n];
    if (!IsRefused(m.seq)) {
      acked_dx_ = m.dx;
      acked_dy_ = m.dy;
    }
    std::erase(refused_, m.seq);
    if (n + 1 == pending_.size() || !acked(pending_[n + 1])) {
      // Only the newest move acked in this frame was (most likely) applied in this tick.
      const double sample = m.sent_ms + tick_ms_ - t * tick_ms_;
      timeline_offset_ = std::isnan(timeline_offset_)
                             ? sample
                             : timeline_offset_ + (sample - timeline_offset_) * 0.2;
    }
    ++n;
  }
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(n));
  if (refused_.size() > 64) refused_.clear();
  if (!alive) {
    acked_dx_ = 0;
    acked_dy_ = 0;
  }
  alive_ = alive;
  server_x_ = x;
  server_y_ = y;
  server_tick_ = t;
  if (std::isnan(timeline_offset_) && !std::isnan(expected_arrival_ms)) {
    fallback_offset_ = expected_arrival_ms - (std::isnan(rtt_ms) ? 100 : rtt_ms) - t * tick_ms_;
  }
  const Position after = RawAt(now_ms);
  AddCorrection(before.x - after.x, before.y - after.y, now_ms);
}

void Prediction::Decay(double now_ms) {
  if (!std::isnan(corrected_at_) && now_ms > corrected_at_) {
    const double k = std::exp(-(now_ms - corrected_at_) / options_.correction_ms);
    correction_x_ *= k;
    correction_y_ *= k;
  }
  corrected_at_ = now_ms;
}

void Prediction::AddCorrection(double dx, double dy, double now_ms) {
  Decay(now_ms);
  const double cx = correction_x_ + dx;
  const double cy = correction_y_ + dy;
  const double size = std::hypot(cx, cy);
  if (size > options_.snap_cm) {
    ++snaps_;
    correction_x_ = 0;
    correction_y_ = 0;
  } else {
    largest_correction_ = std::max(largest_correction_, size);
    correction_x_ = cx;
    correction_y_ = cy;
  }
}

Position Prediction::RawAt(double now_ms) const {
  double x = server_x_;
  double y = server_y_;
  if (!alive_) return Position{.x = x, .y = y};
  const double per_ms = speed_ / 1000;
  const double offset = std::isnan(timeline_offset_) ? fallback_offset_ : timeline_offset_;
  constexpr double kNever = -std::numeric_limits<double>::infinity();
  double t =
      std::isnan(server_tick_) || std::isnan(offset) ? kNever : server_tick_ * tick_ms_ + offset;
  double dx = acked_dx_;
  double dy = acked_dy_;
  for (const PendingMove& m : pending_) {
    if (t == kNever) t = m.sent_ms;  // nothing known of the timeline: from the first send
    if (m.sent_ms > t) {
      const Position p =
          Clamp(x + dx * per_ms * (m.sent_ms - t), y + dy * per_ms * (m.sent_ms - t));
      x = p.x;
      y = p.y;
      t = m.sent_ms;
    }
    if (!IsRefused(m.seq)) {
      dx = m.dx;
      dy = m.dy;
    }
  }
  if (t != kNever && now_ms > t) {
    x += dx * per_ms * (now_ms - t);
    y += dy * per_ms * (now_ms - t);
  }
  return Clamp(x, y);
}

Position Prediction::PositionAt(double now_ms) {
  Decay(now_ms);
  const Position raw = RawAt(now_ms);
  return Clamp(raw.x + correction_x_, raw.y + correction_y_);
}

Position Prediction::direction() const {
  if (!pending_.empty()) return Position{.x = pending_.back().dx, .y = pending_.back().dy};
  return Position{.x = acked_dx_, .y = acked_dy_};
}

double Prediction::correction() const { return std::hypot(correction_x_, correction_y_); }

Position Prediction::Clamp(double x, double y) const {
  if (!bounds_) return Position{.x = x, .y = y};
  // min, then max (not std::clamp): a zone whose bounds are inverted cannot cause UB.
  return Position{.x = std::min<double>(std::max<double>(x, bounds_->min_x), bounds_->max_x),
                  .y = std::min<double>(std::max<double>(y, bounds_->min_y), bounds_->max_y)};
}

}  // namespace zs::client
