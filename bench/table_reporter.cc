#include "bench/table_reporter.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace zs::bench {

void TableReporter::ReportRuns(const std::vector<Run>& runs) {
  ConsoleReporter::ReportRuns(runs);
  for (const Run& run : runs) {
    if (run.error_occurred) {
      had_errors_ = true;
      continue;
    }
    if (run.run_type != Run::RT_Iteration) continue;
    Result r;
    for (const auto& [name, counter] : run.counters) r.counters[name] = counter.value;
    r.real_time = run.GetAdjustedRealTime();
    r.time_unit = benchmark::GetTimeUnitString(run.time_unit);
    const std::string name = run.run_name.function_name;
    if (!results_.count(name)) order_.push_back(name);
    results_[name] = r;
  }
}

namespace {

std::string Prefix(const std::string& name) { return name.substr(0, name.rfind('/')); }
std::string Variant(const std::string& name) { return name.substr(name.rfind('/') + 1); }

}  // namespace

namespace {

using Rows = std::map<std::string, const TableReporter::Result*>;

double Ns(const Rows& rows, const std::string& variant) {
  const auto it = rows.find(variant);
  return it != rows.end() ? it->second->counters.at("ns_per_ent") : 0.0;
}

std::string BestGrid(const Rows& rows) {
  std::string best;
  for (const auto& [variant, r] : rows) {
    if (variant.rfind("grid_", 0) == 0 && (best.empty() || Ns(rows, variant) < Ns(rows, best))) {
      best = variant;
    }
  }
  return best;
}

// The one cell size a game would pick up front: the lowest geometric mean over the workloads.
std::string FixedGrid(const std::map<std::string, Rows>& by_workload) {
  std::map<std::string, std::pair<double, int>> log_sum;
  for (const auto& [w, rows] : by_workload) {
    for (const auto& [variant, r] : rows) {
      if (variant.rfind("grid_", 0) != 0) continue;
      log_sum[variant].first += std::log(Ns(rows, variant));
      ++log_sum[variant].second;
    }
  }
  std::string best;
  double best_mean = 0;
  for (const auto& [variant, s] : log_sum) {
    const double mean = s.first / s.second;
    if (s.second == static_cast<int>(by_workload.size()) && (best.empty() || mean < best_mean)) {
      best = variant;
      best_mean = mean;
    }
  }
  return best;
}

void PrintWorkload(std::FILE* out, const std::string& w, const Rows& rows,
                   const std::string& best_grid) {
  const double ours_ns = Ns(rows, "ours");
  std::fprintf(out, "\n### %s  (%.1f hits per query)\n\n", w.c_str(),
               rows.begin()->second->counters.at("hits_per_q"));
  std::fprintf(out,
               "| index | update ns/entity | query ns/entity | total ns/entity | vs ours | "
               "candidates/hit |\n|---|---:|---:|---:|---:|---:|\n");
  std::vector<std::pair<double, std::string>> sorted;
  for (const auto& [variant, r] : rows) sorted.emplace_back(Ns(rows, variant), variant);
  std::sort(sorted.begin(), sorted.end());
  for (const auto& [ns, variant] : sorted) {
    const TableReporter::Result& r = *rows.at(variant);
    std::string label = variant;
    if (variant == best_grid) label += " (best grid)";
    std::fprintf(out, "| %s | %.1f | %.1f | %.1f | %.2fx | %.2f |\n", label.c_str(),
                 r.counters.at("upd_ns"), r.counters.at("qry_ns"), ns,
                 ours_ns > 0 ? ns / ours_ns : 0.0, r.counters.at("cand_per_hit"));
  }
}

double Ratio(double a, double b) { return a > 0 && b > 0 ? a / b : 0.0; }

}  // namespace

void TableReporter::PrintSpatialTables(std::FILE* out) const {
  // Group "tick/<dist>/n:<N>/r:<R>/<index>" by workload, keeping first-seen order.
  std::vector<std::string> workloads;
  std::map<std::string, Rows> by_workload;
  for (const std::string& name : order_) {
    if (name.rfind("tick/", 0) != 0) continue;
    const std::string w = Prefix(name);
    if (!by_workload.count(w)) workloads.push_back(w);
    by_workload[w][Variant(name)] = &results_.at(name);
  }
  for (const std::string& w : workloads)
    PrintWorkload(out, w, by_workload[w], BestGrid(by_workload[w]));
  if (workloads.empty()) return;
  const std::string fixed = FixedGrid(by_workload);
  std::fprintf(out,
               "\n### Summary (total ns per entity per tick; fixed grid: %s, the one cell size "
               "with the lowest geometric mean over these workloads)\n\n",
               fixed.c_str());
  std::fprintf(out,
               "| workload | ours | ours keys | linear | linear blind | linear keys | best grid | "
               "fixed grid | ours / best | linear / best | linear / fixed | linear blind / fixed | "
               "linear keys / ours keys |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const std::string& w : workloads) {
    const Rows& rows = by_workload[w];
    const std::string best = BestGrid(rows);
    const double ours = Ns(rows, "ours"), linear = Ns(rows, "linear");
    const double linear_blind = Ns(rows, "linear_blind");
    const double best_ns = Ns(rows, best), fixed_ns = Ns(rows, fixed);
    std::fprintf(out,
                 "| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f (%s) | %.1f | %.2f | %.2f | %.2f "
                 "| %.2f | %.2f |\n",
                 w.c_str(), ours, Ns(rows, "ours_keys"), linear, linear_blind,
                 Ns(rows, "linear_keys"), best_ns, best.c_str(), fixed_ns, Ratio(ours, best_ns),
                 Ratio(linear, best_ns), Ratio(linear, fixed_ns), Ratio(linear_blind, fixed_ns),
                 Ratio(Ns(rows, "linear_keys"), Ns(rows, "ours_keys")));
  }
  const auto brute = results_.find("classic/300_boxes/brute");
  const auto ours = results_.find("classic/300_boxes/ours");
  if (brute != results_.end() && ours != results_.end()) {
    std::fprintf(out, "\n### Classic demo: 300 moving boxes in 120 x 80, all colliding pairs\n\n");
    std::fprintf(out,
                 "| method | checks per frame | pairs per frame | time per frame |\n"
                 "|---|---:|---:|---:|\n");
    for (const auto& [label, it] : {std::pair("brute force", brute), std::pair("ours", ours)}) {
      std::fprintf(out, "| %s | %.0f | %.1f | %.1f %s |\n", label,
                   it->second.counters.at("checks_per_frame"),
                   it->second.counters.at("pairs_per_frame"), it->second.real_time,
                   it->second.time_unit.c_str());
    }
  }
}

}  // namespace zs::bench
