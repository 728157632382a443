// Metrics: counters and the tick-duration histogram behind /metrics. Lock-free: any thread
// may add; the admin HTTP handler reads. The counters come in small groups (ConnectionCounters,
// TrafficCounters, ...: host/metric_groups.h), each handed by reference to the part that writes
// it, so a part sees only its own figures. A figure with a family of its own is declared once,
// with its name and help, in its group (host/metric.h); Render() shows all of those in one
// loop, then the labelled families, and writes the Prometheus text format through
// prometheus-cpp's TextSerializer, which escapes label values (zone names, reasons).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "host/close_reason.h"
#include "host/input_refusal.h"
#include "host/metric.h"
#include "host/metric_groups.h"

namespace prometheus {
struct MetricFamily;
}  // namespace prometheus

namespace zs::host {

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
