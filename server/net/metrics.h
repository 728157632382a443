// Metrics: counters and the tick-duration histogram behind /metrics. Lock-free: any thread
// may add; the admin HTTP handler reads. Render() writes the Prometheus text format through
// prometheus-cpp's TextSerializer, which escapes label values (zone names, reasons).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace prometheus {
struct MetricFamily;
}  // namespace prometheus

namespace zs::net {

class Metrics {
 public:
  // Tick duration histogram buckets, in seconds.
  static constexpr std::array<double, 18> kTickBuckets = {
      0.00025, 0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015,
      0.02,    0.025,  0.035, 0.05,  0.075, 0.1,   0.25,   0.5,  1.0};

  void ObserveTick(double seconds);
  void Kick(const std::string& reason);
  void RejectInput(const std::string& reason, uint64_t n = 1);
  void SetZoneEntities(const std::string& zone, uint64_t n);

  std::atomic<uint64_t> connections{0};        // currently open
  std::atomic<uint64_t> connections_total{0};  // accepted since start
  std::atomic<uint64_t> connections_refused{0};
  std::atomic<uint64_t> players{0};  // in the world
  std::atomic<uint64_t> bytes_in{0};
  std::atomic<uint64_t> bytes_out{0};
  std::atomic<uint64_t> messages_in{0};
  std::atomic<uint64_t> messages_out{0};
  std::atomic<uint64_t> send_queue_overflows{0};
  // Of those, the backlogs that began because all queues together passed the global cap.
  std::atomic<uint64_t> send_queue_global_overflows{0};
  // Admin HTTP: connections open, and those closed to make room at the connection cap.
  std::atomic<int64_t> admin_connections{0};
  std::atomic<uint64_t> admin_evictions{0};
  // Memory held by all send queues (frames and their bookkeeping), bytes.
  std::atomic<int64_t> send_queue_bytes{0};
  std::atomic<uint64_t> tick_overruns{0};
  // Inputs dropped by the per-connection rate limits: counted per message on the I/O threads,
  // so an atomic rather than the labelled map (rendered as reason="rate_limited").
  std::atomic<uint64_t> rate_limited_inputs{0};
  std::atomic<uint64_t> ticks{0};
  // Where tick time goes: inputs + simulation + views, and encoding + handing out frames.
  std::atomic<uint64_t> tick_world_us{0};
  std::atomic<uint64_t> tick_encode_us{0};
  std::atomic<uint64_t> tick_deliver_us{0};
  // Overload control (interest::OverloadGovernor): the current level (0 = full budgets) and
  // the scale it stands for (1.0 = full), stored in thousandths.
  std::atomic<uint64_t> interest_level{0};
  std::atomic<uint64_t> interest_scale_milli{1000};
  std::atomic<uint64_t> interest_level_changes{0};
  // The last tick's duration (the zone viewer's panel), microseconds.
  std::atomic<uint64_t> last_tick_us{0};
  // Zone viewer (/viewer): WebSocket viewers connected, frames sent and skipped (a slow viewer
  // skips frames rather than queueing them), viewers refused at admin.max_viewers, and the tick
  // thread's time spent taking snapshots for them (what a viewer costs the tick).
  std::atomic<int64_t> viewers{0};
  std::atomic<uint64_t> viewer_frames{0};
  std::atomic<uint64_t> viewer_frames_skipped{0};
  std::atomic<uint64_t> viewers_refused{0};
  std::atomic<uint64_t> viewer_snapshot_us{0};

  // Prometheus text exposition.
  [[nodiscard]] std::string Render() const;
  // Tick duration quantile from the histogram (upper bucket bound), for the periodic log.
  [[nodiscard]] double TickQuantile(double q) const;

 private:
  // The parts of Render: plain counters and gauges; tick phases, overruns and the histogram;
  // the labelled families (kicks, rejected inputs, zone entities).
  void RenderScalars(std::vector<prometheus::MetricFamily>* out) const;
  void RenderTickTimes(std::vector<prometheus::MetricFamily>* out) const;
  void RenderLabelled(std::vector<prometheus::MetricFamily>* out) const;

  std::array<std::atomic<uint64_t>, kTickBuckets.size() + 1> tick_buckets_{};
  std::atomic<uint64_t> tick_count_{0};
  std::atomic<uint64_t> tick_sum_us_{0};
  mutable std::mutex mu_;  // guards the labelled maps below (rare updates)
  std::map<std::string, uint64_t> kicks_;
  std::map<std::string, uint64_t> rejected_;
  std::map<std::string, uint64_t> zone_entities_;
};

}  // namespace zs::net
