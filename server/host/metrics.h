// Metrics: counters and the tick-duration histogram behind /metrics. Lock-free: any thread
// may add; the admin HTTP handler reads. The counters come in small groups (ConnectionCounters,
// TrafficCounters, ...), each handed by reference to the part that writes it, so a part sees
// only its own figures. Render() writes the Prometheus text format through
// prometheus-cpp's TextSerializer, which escapes label values (zone names, reasons).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "host/border_port.h"
#include "host/close_reason.h"
#include "host/input_refusal.h"
#include "zone/zone_types.h"

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

// A counter: only goes up. Written from any thread, relaxed (a figure, not a synchronisation).
class Counter {
 public:
  void Add(uint64_t n = 1) noexcept { v_.fetch_add(n, std::memory_order_relaxed); }
  [[nodiscard]] uint64_t value() const noexcept { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> v_{0};
};

// A gauge: goes up and down, or is set. Any thread, relaxed.
class Gauge {
 public:
  void Add(int64_t d = 1) noexcept { v_.fetch_add(d, std::memory_order_relaxed); }
  void Sub(int64_t d = 1) noexcept { v_.fetch_sub(d, std::memory_order_relaxed); }
  void Set(int64_t v) noexcept { v_.store(v, std::memory_order_relaxed); }
  [[nodiscard]] int64_t value() const noexcept { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> v_{0};
};

// The groups: each is written by one part of the server (named), read by Render.
// net::Server: client connections open, accepted since start, refused by the caps.
struct ConnectionCounters {
  Gauge open;
  Counter accepted;
  Counter refused;
};
// net::Session: bytes and frames each way; inputs dropped by the per-connection rate limits
// (counted per message on the I/O threads, so not in the labelled map; rendered as
// reason="rate_limited").
struct TrafficCounters {
  Counter bytes_in;
  Counter bytes_out;
  Counter messages_in;
  Counter messages_out;
  Counter sends_out;  // socket sends: a send carries one frame, or held ticks and the next frame
  Counter rate_limited_inputs;
};
// net::RunIoLoop: the socket threads' passes (a wake-up, or a handler ready at once), and of
// those the ones busy enough to gather a batch (io_batch_microseconds) before handling what was
// ready. Not counted when the batch is 0.
struct IoLoopCounters {
  Counter wakeups;  // passes
  Counter batches;
};
// net::SendQueue: memory held by all send queues (frames and their bookkeeping), tick frames
// dropped by a full queue, and of those the backlogs begun because all queues together passed
// the global cap.
struct SendQueueCounters {
  Gauge bytes;
  Counter overflows;
  Counter global_overflows;
};
// ZoneRunner: ticks, those longer than the interval, and where tick time goes (inputs +
// simulation + views; encoding; handing out frames), in microseconds.
struct TickCounters {
  Counter count;
  Counter overruns;
  Counter world_us;
  Counter encode_us;
  Counter deliver_us;
};
// ZoneRunner's overload governor: the last level set (0 = full budgets), the scale it stands
// for in thousandths (1000 = full), and the changes. Each zone also reports its own
// (ObserveZone); zs_interest_level shows the highest of them.
struct InterestCounters {
  Gauge level;
  Gauge scale_milli;
  Counter level_changes;
};
// CharacterKeeper: players in the world; logins admitted (loaded, new or taken over), of those
// taken over from another connection; checkpoints handed to storage.
struct PlayerCounters {
  Gauge online;
  Counter logins;
  Counter takeovers;
  Counter checkpoints;
};
// CharacterKeeper: hand-offs to other servers (offered, accepted, failed: the player stayed)
// and characters that arrived here with a ticket.
struct HandoffCounters {
  Counter offered;
  Counter accepted;
  Counter failed;
  Counter arrived;
};
// admin::AdminHttp: connections open, and those closed to make room at the connection cap.
struct AdminCounters {
  Gauge connections;
  Counter evictions;
};
// admin::ViewerHub: WebSocket viewers connected, frames sent and skipped (a slow viewer skips
// frames rather than queueing them), viewers refused at admin.max_viewers, and the tick
// thread's time spent taking snapshots for them (what a viewer costs the tick).
struct ViewerCounters {
  Gauge open;
  Counter frames;
  Counter skipped;
  Counter refused;
  Counter snapshot_us;
};

// A split zone's border (docs/seamless.md): ghosts held and sent by the runners, batches taken
// and refused (by the zone: zone::GhostVerdict; before it: BorderRefusal), and the bytes the
// cluster link moved.
struct BorderCounters {
  Gauge ghosts_held;
  Gauge players_real;   // players simulated here (one that crossed counts at its owner only)
  Counter ghosts_sent;  // entities listed in the batches sent
  Counter batches_sent;
  Counter bytes_sent;
  Counter bytes_received;
  Counter silent_neighbours;  // times a neighbour's ghosts were dropped for its silence
  Counter emigrants;          // monsters and players handed to a neighbouring cell
  Counter immigrants;         // ... taken from one (in the batches taken)
  std::array<Counter, static_cast<size_t>(zone::GhostVerdict::kCount)> verdicts;
  std::array<Counter, static_cast<size_t>(BorderRefusal::kCount)> refusals;
  // From a batch's sending to the tick that makes its migrants real here, per migrant (the
  // nodes' wall clocks; a batch whose stamp is ahead of ours or a minute old is not counted).
  TickHistogram migration_latency;
};

// The relay of migrated players' clients (docs/seamless.md "Relay"): written by the cluster's
// RelayLink and the runners' ClientRelay.
struct RelayCounters {
  Counter out;           // messages sent: inputs and leavings to owners, frames to homes
  Counter in;            // messages taken
  Counter orphaned;      // frames for a client no longer here (the owner is told it left)
  Counter stale;         // tick frames not newer than the last its client got: dropped
  Counter homes_silent;  // players relayed for let go: their home told nothing for 2 s
  std::array<Counter, static_cast<size_t>(BorderRefusal::kCount)> refusals;
};

// A split zone's `zone` chat between its cells: lines sent (once per receiving cell) and taken,
// what the runner's world made of each message, and refusals before it.
struct CellChatCounters {
  Counter lines_out;
  Counter lines_in;
  std::array<Counter, static_cast<size_t>(zone::GhostVerdict::kCount)> verdicts;
  std::array<Counter, static_cast<size_t>(BorderRefusal::kCount)> refusals;
};

// What the cells of a split zone count, one group per part that writes it.
struct CellCounters {
  BorderCounters& border;
  RelayCounters& relay;
  CellChatCounters& chat;
};

// Counts by CloseReason (kicks, login refusals): rare events, under a mutex. Any thread.
class ReasonCounts {
 public:
  void Add(CloseReason reason);
  [[nodiscard]] std::map<CloseReason, uint64_t> Snapshot() const;

 private:
  mutable std::mutex mu_;
  std::map<CloseReason, uint64_t> counts_;  // guarded by mu_
};

// What a CharacterKeeper writes: players online, logins, checkpoints, hand-offs; logins it
// refused.
struct KeeperCounters {
  PlayerCounters& players;
  HandoffCounters& handoffs;
  ReasonCounts& login_refusals;
};

// One zone's figures after one of its ticks (each zone ticks on its own runner).
struct ZoneFigures {
  uint64_t entities = 0;
  double tick_seconds = 0;  // the work of the runner's tick
  uint32_t interest_level = 0;
  double interest_scale = 1;
};

// What a ZoneRunner writes, and all it sees of the metrics: its ticks and their durations, its
// overload governor, inputs the zones rejected, each zone's figures, the storage worker's, and
// the counters of the CharacterKeeper it owns. Metrics implements it.
class RunnerMetrics {
 public:
  // `flushing`: the tick handed a checkpoint to storage or the storage worker was writing a
  // batch meanwhile (its own histogram too, so a checkpoint's effect on the tick shows;
  // scripts/loadtest.sh reports both p99s).
  virtual void ObserveTick(double seconds, bool flushing) = 0;
  virtual void RejectInput(InputRefusal reason, uint64_t n) = 0;
  virtual void ObserveZone(const std::string& zone, const ZoneFigures& figures) = 0;
  virtual void PublishStorage(const StorageFigures& figures) = 0;
  [[nodiscard]] virtual TickCounters& ticks() = 0;
  [[nodiscard]] virtual InterestCounters& interest() = 0;
  [[nodiscard]] virtual KeeperCounters keeper() = 0;
  [[nodiscard]] virtual CellCounters cells() = 0;

 protected:
  RunnerMetrics() = default;
  ~RunnerMetrics() = default;
  RunnerMetrics(const RunnerMetrics&) = default;
  RunnerMetrics& operator=(const RunnerMetrics&) = default;
};

class Metrics final : public RunnerMetrics {
 public:
  static constexpr const std::array<double, 18>& kTickBuckets = host::kTickBuckets;

  Metrics() = default;
  ~Metrics() = default;
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  void ObserveTick(double seconds, bool flushing) override;
  void ObserveTick(double seconds) { ObserveTick(seconds, false); }
  void RejectInput(InputRefusal reason, uint64_t n) override;
  void ObserveZone(const std::string& zone, const ZoneFigures& figures) override;
  void PublishStorage(const StorageFigures& figures) override;
  [[nodiscard]] KeeperCounters keeper() override {
    return {.players = players_, .handoffs = handoffs_, .login_refusals = login_refusals_};
  }

  // The counter groups, handed by reference to the one part that writes each.
  [[nodiscard]] ConnectionCounters& connections() { return connections_; }
  [[nodiscard]] TrafficCounters& traffic() { return traffic_; }
  [[nodiscard]] SendQueueCounters& send_queues() { return send_queues_; }
  [[nodiscard]] IoLoopCounters& io_loops() { return io_loops_; }
  [[nodiscard]] TickCounters& ticks() override { return ticks_; }
  [[nodiscard]] InterestCounters& interest() override { return interest_; }
  [[nodiscard]] PlayerCounters& players() { return players_; }
  [[nodiscard]] HandoffCounters& handoffs() { return handoffs_; }
  [[nodiscard]] AdminCounters& admin() { return admin_; }
  [[nodiscard]] ViewerCounters& viewers() { return viewers_; }
  [[nodiscard]] CellCounters cells() override {
    return {.border = border_, .relay = relay_, .chat = cell_chat_};
  }
  // Connections closed by the server (net::Server), by reason.
  [[nodiscard]] ReasonCounts& kicks() { return kicks_; }
  // Logins refused (net's LoginGate, the CharacterKeeper), by reason.
  [[nodiscard]] ReasonCounts& login_refusals() { return login_refusals_; }
  [[nodiscard]] const ConnectionCounters& connections() const { return connections_; }
  [[nodiscard]] const TrafficCounters& traffic() const { return traffic_; }
  [[nodiscard]] const TickCounters& ticks() const { return ticks_; }
  [[nodiscard]] const PlayerCounters& players() const { return players_; }

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
  void RenderBorder(std::vector<prometheus::MetricFamily>* out) const;
  void RenderRelay(std::vector<prometheus::MetricFamily>* out) const;

  ConnectionCounters connections_;
  TrafficCounters traffic_;
  SendQueueCounters send_queues_;
  IoLoopCounters io_loops_;
  TickCounters ticks_;
  InterestCounters interest_;
  PlayerCounters players_;
  HandoffCounters handoffs_;
  AdminCounters admin_;
  ViewerCounters viewers_;
  BorderCounters border_;
  RelayCounters relay_;
  CellChatCounters cell_chat_;
  ReasonCounts kicks_;
  ReasonCounts login_refusals_;
  // By reason; kRateLimited is the session's traffic_.rate_limited_inputs.
  std::array<Counter, static_cast<size_t>(InputRefusal::kCount)> rejected_;
  TickHistogram ticks_all_;
  TickHistogram ticks_flushing_;
  mutable std::mutex mu_;  // guards the labelled maps and storage figures below (rare updates)
  StorageFigures storage_;
  bool has_storage_ = false;
  struct ZoneStats {
    ZoneFigures last;
    uint64_t ticks = 0;
    double tick_seconds_total = 0;
    TickHistogram durations;
  };
  std::map<std::string, ZoneStats> zones_;
};

}  // namespace zs::host
