#include "net/metrics.h"

#include <algorithm>
#include <sstream>

namespace zs::net {

void Metrics::ObserveTick(double seconds) {
  size_t b = 0;
  while (b < kTickBuckets.size() && seconds > kTickBuckets[b]) ++b;
  tick_buckets_[b].fetch_add(1, std::memory_order_relaxed);
  tick_count_.fetch_add(1, std::memory_order_relaxed);
  tick_sum_us_.fetch_add(static_cast<uint64_t>(seconds * 1e6), std::memory_order_relaxed);
}

void Metrics::Kick(const std::string& reason) {
  std::lock_guard lock(mu_);
  ++kicks_[reason];
}

void Metrics::RejectInput(const std::string& reason, uint64_t n) {
  if (n == 0) return;
  std::lock_guard lock(mu_);
  rejected_[reason] += n;
}

void Metrics::SetZoneEntities(const std::string& zone, uint64_t n) {
  std::lock_guard lock(mu_);
  zone_entities_[zone] = n;
}

double Metrics::TickQuantile(double q) const {
  const uint64_t total = tick_count_.load();
  if (total == 0) return 0;
  const auto want = static_cast<uint64_t>(q * static_cast<double>(total));
  uint64_t seen = 0;
  for (size_t b = 0; b < kTickBuckets.size(); ++b) {
    seen += tick_buckets_[b].load();
    if (seen > want) return kTickBuckets[b];
  }
  return kTickBuckets.back() * 2;
}

std::string Metrics::Render() const {
  std::ostringstream o;
  const auto counter = [&o](const char* name, const char* help, uint64_t v, const char* type) {
    o << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n'
      << name << ' ' << v << '\n';
  };
  counter("zs_connections", "Open client connections.", connections.load(), "gauge");
  counter("zs_connections_total", "Client connections accepted.", connections_total.load(),
          "counter");
  counter("zs_connections_refused_total", "Connections refused by the connection caps.",
          connections_refused.load(), "counter");
  counter("zs_players", "Players in the world.", players.load(), "gauge");
  counter("zs_bytes_in_total", "Bytes received from clients.", bytes_in.load(), "counter");
  counter("zs_bytes_out_total", "Bytes sent to clients.", bytes_out.load(), "counter");
  counter("zs_messages_in_total", "Frames received from clients.", messages_in.load(), "counter");
  counter("zs_messages_out_total", "Frames sent to clients.", messages_out.load(), "counter");
  counter("zs_send_queue_overflows_total", "Frames dropped because a send queue was full.",
          send_queue_overflows.load(), "counter");
  counter("zs_send_queue_global_overflows_total",
          "Backlogs begun because all send queues together passed total_send_queue_bytes.",
          send_queue_global_overflows.load(), "counter");
  counter("zs_admin_connections", "Open admin HTTP connections.",
          static_cast<uint64_t>(std::max<int64_t>(admin_connections.load(), 0)), "gauge");
  counter("zs_admin_evictions_total",
          "Admin connections closed unanswered to make room at admin.max_connections.",
          admin_evictions.load(), "counter");
  counter("zs_interest_level", "Overload level: 0 = full interest budgets, 8 = the floor.",
          interest_level.load(), "gauge");
  o << "# HELP zs_interest_scale Interest budget scale under overload control (1 = full).\n"
       "# TYPE zs_interest_scale gauge\nzs_interest_scale "
    << static_cast<double>(interest_scale_milli.load()) / 1000.0 << '\n';
  counter("zs_interest_level_changes_total", "Overload level changes.",
          interest_level_changes.load(), "counter");
  o << "# HELP zs_send_queue_bytes Memory held by all client send queues.\n"
       "# TYPE zs_send_queue_bytes gauge\nzs_send_queue_bytes "
    << send_queue_bytes.load() << '\n';
  o << "# HELP zs_tick_phase_seconds_total Tick time by phase (world: inputs, simulation and "
       "views; encode: every player's frame; deliver: handing frames to the sessions).\n"
       "# TYPE zs_tick_phase_seconds_total counter\n";
  for (const auto& [phase, us] : {std::pair{"world", &tick_world_us},
                                  {"encode", &tick_encode_us},
                                  {"deliver", &tick_deliver_us}}) {
    o << "zs_tick_phase_seconds_total{phase=\"" << phase << "\"} "
      << static_cast<double>(us->load()) / 1e6 << '\n';
  }
  counter("zs_tick_overruns_total", "Ticks that took longer than the tick interval.",
          tick_overruns.load(), "counter");
  o << "# HELP zs_tick_duration_seconds Time to run one world tick and encode its frames.\n"
       "# TYPE zs_tick_duration_seconds histogram\n";
  uint64_t cumulative = 0;
  for (size_t b = 0; b < kTickBuckets.size(); ++b) {
    cumulative += tick_buckets_[b].load();
    o << "zs_tick_duration_seconds_bucket{le=\"" << kTickBuckets[b] << "\"} " << cumulative << '\n';
  }
  cumulative += tick_buckets_.back().load();
  o << "zs_tick_duration_seconds_bucket{le=\"+Inf\"} " << cumulative << '\n'
    << "zs_tick_duration_seconds_sum " << static_cast<double>(tick_sum_us_.load()) / 1e6 << '\n'
    << "zs_tick_duration_seconds_count " << tick_count_.load() << '\n';
  std::lock_guard lock(mu_);
  o << "# HELP zs_kicks_total Connections closed by the server, by reason.\n"
       "# TYPE zs_kicks_total counter\n";
  for (const auto& [reason, n] : kicks_)
    o << "zs_kicks_total{reason=\"" << reason << "\"} " << n << '\n';
  o << "# HELP zs_rejected_inputs_total Client inputs not applied, by reason.\n"
       "# TYPE zs_rejected_inputs_total counter\n";
  for (const auto& [reason, n] : rejected_) {
    o << "zs_rejected_inputs_total{reason=\"" << reason << "\"} " << n << '\n';
  }
  o << "zs_rejected_inputs_total{reason=\"rate_limited\"} " << rate_limited_inputs.load() << '\n';
  o << "# HELP zs_zone_entities Entities in each zone.\n# TYPE zs_zone_entities gauge\n";
  for (const auto& [zone, n] : zone_entities_) {
    o << "zs_zone_entities{zone=\"" << zone << "\"} " << n << '\n';
  }
  return o.str();
}

}  // namespace zs::net
