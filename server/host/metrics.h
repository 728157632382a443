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
struct ClientMetric;
}  // namespace prometheus

namespace zs::host {

// Tick duration histogram buckets, in seconds.
inline constexpr std::array<double, 18> kTickBuckets = {0.00025, 0.0005, 0.001, 0.002, 0.003, 0.005,
                                                        0.0075,  0.01,   0.015, 0.02,  0.025, 0.035,
                                                        0.05,    0.075,  0.1,   0.25,  0.5,   1.0};

// A lock-free histogram of tick durations (kTickBuckets).
class TickHistogram {
 public:
  void Observe(double seconds);
  // The upper bound of the bucket holding quantile q (0 when empty).
  [[nodiscard]] double Quantile(double q) const;
  [[nodiscard]] uint64_t count() const { return count_.load(); }
  // Cumulative buckets ending with +Inf, count and sum, for the text exposition.
  void Fill(prometheus::ClientMetric* out) const;

 private:
  std::array<std::atomic<uint64_t>, kTickBuckets.size() + 1> buckets_{};
  std::atomic<uint64_t> count_{0};
  std::atomic<uint64_t> sum_us_{0};
};

// The storage worker's figures, copied in by the zone runner about once a second.
struct StorageFigures {
  uint64_t errors = 0;
  uint64_t flushes = 0;
  uint64_t rows_saved = 0;
  size_t unsaved = 0;
  size_t pending_loads = 0;
  double last_flush_seconds = 0;
  size_t last_flush_rows = 0;
  uint64_t load_failures = 0;
};

class Metrics {
 public:
  static constexpr const std::array<double, 18>& kTickBuckets = host::kTickBuckets;

  // `flushing`: the tick handed a checkpoint to storage or the storage worker was writing a
  // batch meanwhile (its own histogram too, so a checkpoint's effect on the tick shows;
  // scripts/loadtest.sh reports both p99s).
  void ObserveTick(double seconds, bool flushing = false);
  void Kick(const std::string& reason);
  void RejectInput(const std::string& reason, uint64_t n = 1);
  // One zone's figures after one of its ticks (each zone ticks on its own runner).
  struct ZoneFigures {
    uint64_t entities = 0;
    double tick_seconds = 0;  // the work of the runner's tick
    uint32_t interest_level = 0;
    double interest_scale = 1;
  };
  void ObserveZone(const std::string& zone, const ZoneFigures& figures);

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
  // the scale it stands for (1.0 = full), stored in thousandths. Each zone has its own
  // (ObserveZone); zs_interest_level shows the highest of them, these the last change.
  std::atomic<uint64_t> interest_level{0};
  std::atomic<uint64_t> interest_scale_milli{1000};
  std::atomic<uint64_t> interest_level_changes{0};
  // Logins: admitted (loaded, new or taken over), of those taken over from another connection,
  // and checkpoints handed to storage.
  std::atomic<uint64_t> logins_total{0};
  std::atomic<uint64_t> takeovers_total{0};
  std::atomic<uint64_t> checkpoints_total{0};
  // Hand-offs to other servers (offered, accepted, failed: the player stayed) and characters
  // that arrived here with a ticket.
  std::atomic<uint64_t> handoffs_offered{0};
  std::atomic<uint64_t> handoffs_accepted{0};
  std::atomic<uint64_t> handoffs_failed{0};
  std::atomic<uint64_t> handoffs_arrived{0};
  // A login refused (auth_failed reasons, storage_unavailable), by reason.
  void LoginRefused(const std::string& reason);
  void PublishStorage(const StorageFigures& figures);
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
  [[nodiscard]] double TickQuantile(double q) const { return ticks_all_.Quantile(q); }

 private:
  // The parts of Render: plain counters and gauges; tick phases, overruns and the histogram;
  // the labelled families (kicks, rejected inputs, zone entities).
  void RenderScalars(std::vector<prometheus::MetricFamily>* out) const;
  void RenderTickTimes(std::vector<prometheus::MetricFamily>* out) const;
  void RenderLabelled(std::vector<prometheus::MetricFamily>* out) const;
  void RenderStorage(std::vector<prometheus::MetricFamily>* out) const;
  void RenderZones(std::vector<prometheus::MetricFamily>* out) const;

  TickHistogram ticks_all_;
  TickHistogram ticks_flushing_;
  mutable std::mutex mu_;  // guards the labelled maps and storage figures below (rare updates)
  std::map<std::string, uint64_t> login_refusals_;
  StorageFigures storage_;
  bool has_storage_ = false;
  std::map<std::string, uint64_t> kicks_;
  std::map<std::string, uint64_t> rejected_;
  struct ZoneStats {
    ZoneFigures last;
    uint64_t ticks = 0;
    double tick_seconds_total = 0;
    TickHistogram durations;
  };
  std::map<std::string, ZoneStats> zones_;
};

}  // namespace zs::host
