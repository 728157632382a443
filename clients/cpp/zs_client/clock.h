// Time: the server's clock from Ping/Pong, and the server's ticks on the local clock. The same
// algorithms as the TypeScript SDK's clock.ts.
//
// ClockSync: each Pong (and the Welcome, timed from the Hello) gives a sample
// offset = server_time_ms - (sent + received) / 2 with its round trip; the offset used is that of
// the sample with the smallest round trip among the last 8 (the least queued, so the least
// skewed). RTT: last, smoothed (1/8 EWMA, as TCP does), min; a Welcome's round trip includes the
// login, so it gives an offset but no RTT.
//
// TickClock: where each tick falls on the local clock, from when frames arrive. A frame of tick
// T arriving at local time a gives a candidate origin a - T * tick_ms; the earliest of the last
// 64 is the origin (frames are only ever late: batched by ticks_per_send, queued, delayed), and
// how much later than it frames typically come (the 90th percentile) is the jitter. RenderTick
// is where to draw remote entities: one tick (positions are where entities stand at the end of a
// tick) plus the jitter plus a margin behind the newest tick. A tick count that jumps (a zone
// change, a reconnect) starts afresh. Server tick <-> server time: from Welcome and each Pong.
//
// Units: milliseconds as double. "Unknown" is NaN (as in the TS SDK), before the first sample.
// Pure: times are passed in (any origin for TickClock; ClockSync's local clock must be the one
// Ping.client_time came from, in epoch ms for ServerNow to mean wall-clock time). Fixed-size
// storage, no allocation. Not thread-safe: one owner.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace zs::client {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

class ClockSync {
 public:
  static constexpr size_t kWindow = 8;

  // A request sent at `sent_ms`, answered at `received_ms`, the server's clock saying
  // `server_ms`. `is_ping`: false for the Welcome (timed from the Hello: no RTT sample).
  void AddSample(double sent_ms, double received_ms, double server_ms, bool is_ping = true);
  // The server's wall clock at local time `local_ms` (local_ms itself before any sample).
  [[nodiscard]] double ServerNow(double local_ms) const;
  // Forgets every sample (another server's clock after a hand-off).
  void Reset();

  [[nodiscard]] double offset() const { return offset_; }  // server minus local, ms
  [[nodiscard]] double rtt_last() const { return rtt_last_; }
  [[nodiscard]] double rtt_smoothed() const { return rtt_smoothed_; }
  [[nodiscard]] double rtt_min() const { return rtt_min_; }
  [[nodiscard]] uint64_t pongs() const { return pongs_; }

 private:
  struct Sample {
    double rtt = 0;
    double offset = 0;
  };
  std::array<Sample, kWindow> samples_{};
  size_t count_ = 0;
  size_t next_ = 0;
  double offset_ = kNaN;
  double rtt_last_ = kNaN;
  double rtt_smoothed_ = kNaN;
  double rtt_min_ = kNaN;
  uint64_t pongs_ = 0;
};

class TickClock {
 public:
  static constexpr size_t kWindowFrames = 64;

  void SetTickRate(uint32_t tick_rate);
  // Forgets the tick origin (a new zone or connection counts its ticks afresh).
  void Reset();
  // Forgets the server tick <-> server time anchor (another zone counts its own ticks).
  void ClearAnchor();
  // A frame of `tick` arrived at local time `arrival_ms`.
  void Observe(uint64_t tick, double arrival_ms);
  // Ties a server tick to the server's clock (Welcome, Pong).
  void Anchor(uint64_t server_tick, double server_ms);

  [[nodiscard]] bool known() const { return count_ > 0; }
  [[nodiscard]] double tick_ms() const { return tick_ms_; }
  [[nodiscard]] double jitter_ms() const { return jitter_ms_; }
  // The newest tick seen (NaN before one).
  [[nodiscard]] double newest_tick() const { return last_tick_; }
  // The local time the frame of `tick` is expected (at the earliest).
  [[nodiscard]] double LocalTimeOfTick(double tick) const { return origin_ + tick * tick_ms_; }
  // The (fractional) tick whose frame is due at local time `local_ms`.
  [[nodiscard]] double TickAt(double local_ms) const { return (local_ms - origin_) / tick_ms_; }
  // How many ticks behind the newest to draw remote entities: 1 + jitter + margin.
  [[nodiscard]] double RenderDelayTicks(double margin_ticks = 0.25) const;
  // The tick to draw remote entities at, at local time `local_ms`.
  [[nodiscard]] double RenderTick(double local_ms, double margin_ticks = 0.25) const;
  // The server's wall-clock time of `tick` (NaN before an anchor).
  [[nodiscard]] double ServerTimeOfTick(double tick) const;
  // The server's (fractional) tick at server wall-clock time `server_ms` (NaN before an anchor).
  [[nodiscard]] double TickAtServerTime(double server_ms) const;

 private:
  void UpdateJitter();

  double tick_ms_ = 50;
  std::array<double, kWindowFrames> candidates_{};
  size_t count_ = 0;
  size_t next_ = 0;
  double origin_ = kNaN;
  double last_tick_ = kNaN;
  double jitter_ms_ = 0;
  size_t since_jitter_ = 0;
  double anchor_tick_ = kNaN;
  double anchor_server_ms_ = kNaN;
};

}  // namespace zs::client
