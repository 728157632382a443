#include "zs_client/clock.h"

#include <algorithm>
#include <cmath>

namespace zs::client {

void ClockSync::AddSample(double sent_ms, double received_ms, double server_ms, bool is_ping) {
  const double rtt = std::max(0.0, received_ms - sent_ms);
  samples_[next_] = Sample{.rtt = rtt, .offset = server_ms - (sent_ms + received_ms) / 2};
  next_ = (next_ + 1) % kWindow;
  count_ = std::min(count_ + 1, kWindow);
  const Sample* best = samples_.data();
  for (size_t i = 1; i < count_; ++i) {
    if (samples_[i].rtt < best->rtt) best = &samples_[i];
  }
  offset_ = best->offset;
  if (!is_ping) return;
  ++pongs_;
  rtt_last_ = rtt;
  rtt_smoothed_ = std::isnan(rtt_smoothed_) ? rtt : rtt_smoothed_ + (rtt - rtt_smoothed_) / 8;
  rtt_min_ = std::isnan(rtt_min_) ? rtt : std::min(rtt_min_, rtt);
}

double ClockSync::ServerNow(double local_ms) const {
  return local_ms + (std::isnan(offset_) ? 0 : offset_);
}

void ClockSync::Reset() { *this = ClockSync(); }

void TickClock::SetTickRate(uint32_t tick_rate) {
  tick_ms_ = 1000.0 / std::max<uint32_t>(1, tick_rate);
}

void TickClock::Reset() {
  count_ = 0;
  next_ = 0;
  origin_ = kNaN;
  last_tick_ = kNaN;
  jitter_ms_ = 0;
}

void TickClock::ClearAnchor() {
  anchor_tick_ = kNaN;
  anchor_server_ms_ = kNaN;
}

void TickClock::Observe(uint64_t tick, double arrival_ms) {
  const auto t = static_cast<double>(tick);
  if (!std::isnan(last_tick_) && (t < last_tick_ || t > last_tick_ + 200)) Reset();
  last_tick_ = t;
  candidates_[next_] = arrival_ms - t * tick_ms_;
  next_ = (next_ + 1) % kWindowFrames;
  count_ = std::min(count_ + 1, kWindowFrames);
  origin_ = *std::min_element(candidates_.begin(),
                              candidates_.begin() + static_cast<std::ptrdiff_t>(count_));
  if (++since_jitter_ >= 8 || count_ < 8) {
    since_jitter_ = 0;
    UpdateJitter();
  }
}

void TickClock::UpdateJitter() {
  std::array<double, kWindowFrames> late{};
  for (size_t i = 0; i < count_; ++i) late[i] = candidates_[i] - origin_;
  const size_t k = std::min(count_ - 1, static_cast<size_t>(static_cast<double>(count_) * 0.9));
  const auto begin = late.begin();
  std::nth_element(begin, begin + static_cast<std::ptrdiff_t>(k),
                   begin + static_cast<std::ptrdiff_t>(count_));
  jitter_ms_ = late[k];
}

void TickClock::Anchor(uint64_t server_tick, double server_ms) {
  anchor_tick_ = static_cast<double>(server_tick);
  anchor_server_ms_ = server_ms;
}

double TickClock::RenderDelayTicks(double margin_ticks) const {
  return 1 + jitter_ms_ / tick_ms_ + margin_ticks;
}

double TickClock::RenderTick(double local_ms, double margin_ticks) const {
  return TickAt(local_ms) - RenderDelayTicks(margin_ticks);
}

double TickClock::ServerTimeOfTick(double tick) const {
  return anchor_server_ms_ + (tick - anchor_tick_) * tick_ms_;
}

double TickClock::TickAtServerTime(double server_ms) const {
  return anchor_tick_ + (server_ms - anchor_server_ms_) / tick_ms_;
}

}  // namespace zs::client
