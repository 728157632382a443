#include "client_sim/report.h"

#include <nlohmann/json.hpp>

#include <map>

namespace zs::sim {

namespace {

// ordered_json keeps the keys in insertion order, so the report reads top to bottom as before.
using Json = nlohmann::ordered_json;

Json Counts(const std::map<std::string, uint64_t>& m) {
  Json out = Json::object();
  for (const auto& [k, v] : m) out[k] = v;
  return out;
}

}  // namespace

std::string ReportJson(const RunInfo& run, const Stats& stats, const Results& r) {
  const std::vector<double>& rtt = stats.rtt_ms;
  const auto per_bot_s = [&r](const std::atomic<uint64_t>& v) {
    return static_cast<double>(v.load()) / r.bot_seconds;
  };
  Json j;
  j["scenario"] = run.scenario;
  j["transport"] = run.transport;
  j["bots"] = run.bots;
  j["verify_every"] = run.verify_every;
  j["verifying_bots"] = run.verifying_bots;
  j["duration_s"] = r.run_s;
  j["stopped_by"] = r.stopped_by.empty() ? Json(nullptr) : Json(r.stopped_by);
  j["logins_ok"] = stats.logins_ok.load();
  j["logins_failed"] = stats.logins_failed.load();
  j["rtt_ms"] = {{"samples", rtt.size()},        {"p50", Quantile(rtt, 0.5)},
                 {"p90", Quantile(rtt, 0.9)},    {"p99", Quantile(rtt, 0.99)},
                 {"p999", Quantile(rtt, 0.999)}, {"max", r.rtt_max}};
  j["tick_interval_ms"] = {{"mean", r.mean_interval},
                           {"jitter_p50", Quantile(r.jitter, 0.5)},
                           {"jitter_p99", Quantile(r.jitter, 0.99)}};
  const std::vector<double>& a = stats.answer_ms;
  j["answer_ms"] = {{"samples", a.size()}, {"p50", Quantile(a, 0.5)}, {"p99", Quantile(a, 0.99)}};
  const std::vector<double>& h = stats.handoff_ms;
  j["handoffs"] = {
      {"followed", stats.handoffs.load()},
      {"failed", stats.handoffs_failed.load()},
      {"latency_ms",
       {{"samples", h.size()}, {"p50", Quantile(h, 0.5)}, {"p99", Quantile(h, 0.99)}}}};
  j["ticks_received"] = stats.ticks.load();
  j["crowd_summaries"] = stats.crowd_summaries.load();
  j["crowd_total"] = stats.crowd_total.load();
  j["bytes_in_per_bot_s"] = per_bot_s(stats.bytes_in);
  j["bytes_out_per_bot_s"] = per_bot_s(stats.bytes_out);
  j["messages_in_per_bot_s"] = per_bot_s(stats.messages_in);
  j["messages_out_per_bot_s"] = per_bot_s(stats.messages_out);
  j["cpu_s"] = {{"user", r.cpu.user_s}, {"system", r.cpu.system_s}, {"total", r.cpu.total()}};
  j["cpu_percent"] = r.cpu_percent();
  j["errors"] = Counts(stats.errors);
  j["disconnects"] = Counts(stats.disconnects);
  j["results"] = Counts(stats.results);
  j["says"] = stats.says.load();
  j["says_checked"] = stats.says_checked;
  j["chat_heard"] = stats.chat_heard.load();
  j["violations"] = Counts(stats.violations);
  j["violations_total"] = r.violations;
  // NaN and infinities come out as null (nlohmann's rule; JSON has no such numbers); bytes
  // that are not UTF-8 (a reason sent by a broken server) become U+FFFD instead of throwing.
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace zs::sim
