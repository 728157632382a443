#include "host/metrics.h"

#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>
#include <prometheus/metric_type.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <utility>
#include <vector>

namespace zs::host {

namespace {

// Render() builds prometheus-cpp's data model from our atomics at scrape time and lets its
// TextSerializer write the page: it escapes label values (`\`, `"`, newline) and formats
// numbers and +Inf. Only prometheus-cpp's core library is used; Beast serves the page.
// Help texts are written as they are (prometheus-cpp 1.0 does not escape them): keep `\` and
// newlines out of them.

prometheus::MetricFamily Family(const char* name, const char* help, prometheus::MetricType type) {
  return prometheus::MetricFamily{.name = name, .help = help, .type = type, .metric = {}};
}

prometheus::ClientMetric CounterValue(double v, const char* label = nullptr,
                                      const std::string& value = {}) {
  prometheus::ClientMetric m;
  if (label != nullptr) m.label.push_back({.name = label, .value = value});
  m.counter.value = v;
  return m;
}

prometheus::ClientMetric GaugeValue(double v, const char* label = nullptr,
                                    const std::string& value = {}) {
  prometheus::ClientMetric m;
  if (label != nullptr) m.label.push_back({.name = label, .value = value});
  m.gauge.value = v;
  return m;
}

double Num(const std::atomic<uint64_t>& v) { return static_cast<double>(v.load()); }
double Num(const Counter& c) { return static_cast<double>(c.value()); }
double Num(const Gauge& g) { return static_cast<double>(g.value()); }

// One unlabelled counter or gauge family with its value.
void AddScalar(std::vector<prometheus::MetricFamily>* out, const char* name, const char* help,
               prometheus::MetricType type, double v) {
  out->push_back(Family(name, help, type));
  out->back().metric.push_back(type == prometheus::MetricType::Counter ? CounterValue(v)
                                                                       : GaugeValue(v));
}

// A counter family with one value per direction: {direction="out"} and {direction="in"}.
void AddByDirection(std::vector<prometheus::MetricFamily>* out, const char* name, const char* help,
                    const Counter& out_count, const Counter& in_count) {
  out->push_back(Family(name, help, prometheus::MetricType::Counter));
  for (const auto& [direction, counter] :
       {std::pair{"out", &out_count}, std::pair{"in", &in_count}}) {
    prometheus::ClientMetric m = CounterValue(Num(*counter));
    m.label.push_back({.name = "direction", .value = direction});
    out->back().metric.push_back(std::move(m));
  }
}

}  // namespace

void TickHistogram::Observe(double seconds) {
  size_t b = 0;
  while (b < kTickBuckets.size() && seconds > kTickBuckets[b]) ++b;
  buckets_[b].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  sum_us_.fetch_add(static_cast<uint64_t>(seconds * 1e6), std::memory_order_relaxed);
}

double TickHistogram::Quantile(double q) const {
  const uint64_t total = count_.load();
  if (total == 0) return 0;
  const auto want = static_cast<uint64_t>(q * static_cast<double>(total));
  uint64_t seen = 0;
  for (size_t b = 0; b < kTickBuckets.size(); ++b) {
    seen += buckets_[b].load();
    if (seen > want) return kTickBuckets[b];
  }
  return kTickBuckets.back() * 2;
}

void TickHistogram::Fill(prometheus::ClientMetric* out) const {
  uint64_t cumulative = 0;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    cumulative += buckets_[b].load();
    out->histogram.bucket.push_back({.cumulative_count = cumulative,
                                     .upper_bound = b < kTickBuckets.size()
                                                        ? kTickBuckets[b]
                                                        : std::numeric_limits<double>::infinity()});
  }
  // _count equals the +Inf bucket, as the format requires (count_ is read separately and may
  // already include a tick observed while the buckets were being read).
  out->histogram.sample_count = cumulative;
  out->histogram.sample_sum = Num(sum_us_) / 1e6;
}

void Metrics::ObserveTick(double seconds, bool flushing) {
  ticks_all_.Observe(seconds);
  if (flushing) ticks_flushing_.Observe(seconds);
}

void ReasonCounts::Add(CloseReason reason) {
  std::lock_guard lock(mu_);
  ++counts_[reason];
}

std::map<CloseReason, uint64_t> ReasonCounts::Snapshot() const {
  std::lock_guard lock(mu_);
  return counts_;
}

void Metrics::PublishStorage(const StorageFigures& figures) {
  std::lock_guard lock(mu_);
  storage_ = figures;
  has_storage_ = true;
}

void Metrics::RejectInput(InputRefusal reason, uint64_t n) {
  if (n != 0) rejected_[static_cast<size_t>(reason)].Add(n);
}

void Metrics::ObserveZone(const std::string& zone, const ZoneFigures& figures) {
  std::lock_guard lock(mu_);
  ZoneStats& z = zones_[zone];
  z.last = figures;
  ++z.ticks;
  z.tick_seconds_total += figures.tick_seconds;
  z.durations.Observe(figures.tick_seconds);
}

std::string Metrics::Render() const {
  std::vector<prometheus::MetricFamily> families;
  RenderScalars(&families);
  RenderTickTimes(&families);
  RenderLabelled(&families);
  RenderStorage(&families);
  RenderBorder(&families);
  return prometheus::TextSerializer().Serialize(families);
}

void Metrics::RenderBorder(std::vector<prometheus::MetricFamily>* out) const {
  using prometheus::MetricType;
  AddByDirection(out, "zs_migrations_total",
                 "Entities whose authority moved across a cell border, by direction.",
                 border_.emigrants, border_.immigrants);
  out->push_back(Family("zs_border_batches_total",
                        "Border batches received, by what became of them (taken, or why not).",
                        MetricType::Counter));
  const auto labelled = [out](const char* reason, double v) {
    prometheus::ClientMetric m = CounterValue(v);
    m.label.push_back({.name = "outcome", .value = reason});
    out->back().metric.push_back(std::move(m));
  };
  for (size_t i = 0; i < border_.verdicts.size(); ++i) {
    labelled(zone::GhostVerdictName(static_cast<zone::GhostVerdict>(i)), Num(border_.verdicts[i]));
  }
  for (size_t i = 0; i < border_.refusals.size(); ++i) {
    labelled(BorderRefusalName(static_cast<BorderRefusal>(i)), Num(border_.refusals[i]));
  }
  RenderRelay(out);
  AddByDirection(out, "zs_zone_chat_lines_total",
                 "Zone chat lines of split zones between their cells (out: once per receiving "
                 "cell), by direction.",
                 cell_chat_.lines_out, cell_chat_.lines_in);
  out->push_back(Family("zs_zone_chat_total",
                        "Zone chat messages from other cells, by what became of them (taken, or "
                        "why not).",
                        MetricType::Counter));
  for (size_t i = 0; i < cell_chat_.verdicts.size(); ++i) {
    labelled(zone::GhostVerdictName(static_cast<zone::GhostVerdict>(i)),
             Num(cell_chat_.verdicts[i]));
  }
  for (size_t i = 0; i < cell_chat_.refusals.size(); ++i) {
    labelled(BorderRefusalName(static_cast<BorderRefusal>(i)), Num(cell_chat_.refusals[i]));
  }
  out->push_back(Family("zs_migration_latency_seconds",
                        "From a neighbour's sending of a batch to the tick that makes its "
                        "migrants real here, per migrant (the nodes' wall clocks).",
                        prometheus::MetricType::Histogram));
  prometheus::ClientMetric latency;
  border_.migration_latency.Fill(&latency);
  out->back().metric.push_back(std::move(latency));
}

void Metrics::RenderRelay(std::vector<prometheus::MetricFamily>* out) const {
  using prometheus::MetricType;
  AddByDirection(out, "zs_relay_messages_total",
                 "Relay messages of migrated players' clients (inputs, leavings, frames), by "
                 "direction.",
                 relay_.out, relay_.in);
  out->push_back(Family("zs_relay_refused_total", "Relay messages refused before use, by reason.",
                        MetricType::Counter));
  for (size_t i = 0; i < relay_.refusals.size(); ++i) {
    if (static_cast<BorderRefusal>(i) == BorderRefusal::kQueueFull) continue;
    prometheus::ClientMetric m = CounterValue(Num(relay_.refusals[i]));
    m.label.push_back(
        {.name = "reason", .value = BorderRefusalName(static_cast<BorderRefusal>(i))});
    out->back().metric.push_back(std::move(m));
  }
  prometheus::ClientMetric stale = CounterValue(Num(relay_.stale));
  stale.label.push_back({.name = "reason", .value = "stale"});
  out->back().metric.push_back(std::move(stale));
}

void Metrics::RenderScalars(std::vector<prometheus::MetricFamily>* out) const {
  // Every figure declared with a name (host/metric_groups.h), in one loop.
  for (const MetricGroup* group : std::initializer_list<const MetricGroup*>{
           &connections_, &players_, &traffic_, &io_loops_, &send_queues_, &admin_, &interest_,
           &ticks_, &viewers_, &handoffs_, &border_, &relay_, &cell_chat_}) {
    for (const MetricGroup::Named& n : group->named()) {
      const bool counter = n.counter != nullptr;
      double v = counter ? Num(*n.counter) : Num(*n.gauge);
      if (n.info.at_least_zero) v = std::max(v, 0.0);
      AddScalar(out, n.info.name, n.info.help,
                counter ? prometheus::MetricType::Counter : prometheus::MetricType::Gauge,
                v * n.info.scale);
    }
  }
  // The busiest zone's overload level and budget scale (each zone reports its own).
  double level = Num(interest_.level);
  double scale = Num(interest_.scale_milli) / 1000.0;
  {
    std::lock_guard lock(mu_);
    if (!zones_.empty()) level = 0, scale = 1;
    for (const auto& [name, z] : zones_) {  // the busiest: a higher level, a smaller scale
      level = std::max(level, static_cast<double>(z.last.interest_level));
      scale = std::min(scale, z.last.interest_scale);
    }
  }
  AddScalar(out, "zs_interest_level",
            "Overload level of the busiest zone: 0 = full interest budgets, 8 = the floor.",
            prometheus::MetricType::Gauge, level);
  AddScalar(out, "zs_interest_scale", "Interest budget scale of the busiest zone (1 = full).",
            prometheus::MetricType::Gauge, scale);
}

void Metrics::RenderTickTimes(std::vector<prometheus::MetricFamily>* out) const {
  std::vector<prometheus::MetricFamily>& families = *out;

  families.push_back(Family("zs_tick_phase_seconds_total",
                            "Tick time by phase (world: inputs, simulation and views; encode: "
                            "every player's frame; deliver: handing frames to the sessions).",
                            prometheus::MetricType::Counter));
  for (const auto& [phase, us] : {std::pair{"world", &ticks_.world_us},
                                  {"encode", &ticks_.encode_us},
                                  {"deliver", &ticks_.deliver_us}}) {
    families.back().metric.push_back(CounterValue(Num(*us) / 1e6, "phase", phase));
  }
  // The histograms: buckets are stored per interval, exposed cumulative, ending with +Inf.
  families.push_back(Family("zs_tick_duration_seconds",
                            "Time to run one zone's tick and encode its frames (every zone's "
                            "ticks: each zone ticks on its own thread).",
                            prometheus::MetricType::Histogram));
  prometheus::ClientMetric tick;
  ticks_all_.Fill(&tick);
  families.back().metric.push_back(std::move(tick));
  families.push_back(Family("zs_tick_during_flush_seconds",
                            "The same, for the ticks that handed a checkpoint to storage or "
                            "during which the storage worker was writing a batch.",
                            prometheus::MetricType::Histogram));
  prometheus::ClientMetric flushing;
  ticks_flushing_.Fill(&flushing);
  families.back().metric.push_back(std::move(flushing));
}

void Metrics::RenderLabelled(std::vector<prometheus::MetricFamily>* out) const {
  std::vector<prometheus::MetricFamily>& families = *out;
  {
    std::lock_guard lock(mu_);
    families.push_back(Family("zs_kicks_total", "Connections closed by the server, by reason.",
                              prometheus::MetricType::Counter));
    for (const auto& [reason, n] : kicks_.Snapshot()) {
      families.back().metric.push_back(
          CounterValue(static_cast<double>(n), "reason", CloseReasonName(reason)));
    }
    families.push_back(Family("zs_rejected_inputs_total", "Client inputs not applied, by reason.",
                              prometheus::MetricType::Counter));
    for (size_t r = 0; r < rejected_.size(); ++r) {
      const auto reason = static_cast<InputRefusal>(r);
      const uint64_t n = reason == InputRefusal::kRateLimited
                             ? traffic_.rate_limited_inputs.value()  // the session's (metrics.h)
                             : rejected_[r].value();
      families.back().metric.push_back(
          CounterValue(static_cast<double>(n), "reason", std::string(InputRefusalName(reason))));
    }
    RenderZones(&families);
  }
}

// Per zone (each ticks on its own runner). REQUIRES: mu_ held.
void Metrics::RenderZones(std::vector<prometheus::MetricFamily>* out) const {
  const auto family = [&](const char* name, const char* help, prometheus::MetricType type,
                          auto value) {
    out->push_back(Family(name, help, type));
    for (const auto& [zone, z] : zones_) {
      const double v = value(z);
      out->back().metric.push_back(type == prometheus::MetricType::Counter
                                       ? CounterValue(v, "zone", zone)
                                       : GaugeValue(v, "zone", zone));
    }
  };
  family("zs_zone_entities", "Entities in each zone.", prometheus::MetricType::Gauge,
         [](const ZoneStats& z) { return static_cast<double>(z.last.entities); });
  family("zs_zone_ticks_total", "Ticks each zone has run (each zone ticks on its own thread).",
         prometheus::MetricType::Counter,
         [](const ZoneStats& z) { return static_cast<double>(z.ticks); });
  family("zs_zone_tick_seconds_total", "Time each zone's ticks took (work, not sleep).",
         prometheus::MetricType::Counter, [](const ZoneStats& z) { return z.tick_seconds_total; });
  family("zs_zone_interest_level", "Each zone's overload level (0 = full interest budgets).",
         prometheus::MetricType::Gauge,
         [](const ZoneStats& z) { return static_cast<double>(z.last.interest_level); });
  out->push_back(Family("zs_zone_tick_duration_seconds",
                        "Each zone's tick durations (its runner's work per tick).",
                        prometheus::MetricType::Histogram));
  for (const auto& [zone, z] : zones_) {
    prometheus::ClientMetric m;
    m.label.push_back({.name = "zone", .value = zone});
    z.durations.Fill(&m);
    out->back().metric.push_back(std::move(m));
  }
}

void Metrics::RenderStorage(std::vector<prometheus::MetricFamily>* out) const {
  std::vector<prometheus::MetricFamily>& families = *out;
  const auto add = [&families](const char* name, const char* help, prometheus::MetricType type,
                               double v) { AddScalar(&families, name, help, type, v); };
  using prometheus::MetricType;
  std::lock_guard lock(mu_);
  families.push_back(
      Family("zs_login_refusals_total", "Logins refused, by reason.", MetricType::Counter));
  for (const auto& [reason, n] : login_refusals_.Snapshot()) {
    families.back().metric.push_back(
        CounterValue(static_cast<double>(n), "reason", CloseReasonName(reason)));
  }
  if (!has_storage_) return;
  const StorageFigures& st = storage_;
  const auto d = [](auto v) { return static_cast<double>(v); };
  add("zs_storage_errors_total", "Failed storage operations (each is retried).",
      MetricType::Counter, d(st.errors));
  add("zs_storage_flushes_total", "Batches written to storage.", MetricType::Counter,
      d(st.flushes));
  add("zs_storage_rows_saved_total", "Characters written to storage.", MetricType::Counter,
      d(st.rows_saved));
  add("zs_storage_unsaved", "Characters waiting in memory to be saved.", MetricType::Gauge,
      d(st.unsaved));
  add("zs_storage_pending_loads", "Character loads queued.", MetricType::Gauge,
      d(st.pending_loads));
  add("zs_storage_last_flush_seconds", "Time the last batch took on the storage thread.",
      MetricType::Gauge, st.last_flush_seconds);
  add("zs_storage_last_flush_rows", "Characters in the last batch.", MetricType::Gauge,
      d(st.last_flush_rows));
  add("zs_storage_load_failures_total", "Character loads that failed (login refused).",
      MetricType::Counter, d(st.load_failures));
}

}  // namespace zs::host
