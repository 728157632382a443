#include "bench/table_reporter.h"

#include <algorithm>
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

void TableReporter::PrintSpatialTables(std::FILE* out) const {
  // Group "tick/<dist>/n:<N>/r:<R>/<index>" by workload, keeping first-seen order.
  std::vector<std::string> workloads;
  std::map<std::string, std::map<std::string, const Result*>> by_workload;
  for (const std::string& name : order_) {
    if (name.rfind("tick/", 0) != 0) continue;
    const std::string w = Prefix(name);
    if (!by_workload.count(w)) workloads.push_back(w);
    by_workload[w][Variant(name)] = &results_.at(name);
  }
  struct Summary {
    std::string workload, grid;
    double ours = 0, grid_ns = 0, others_min = 0, cand = 0;
  };
  std::vector<Summary> summaries;
  for (const std::string& w : workloads) {
    const auto& rows = by_workload[w];
    std::string best_grid;
    for (const auto& [variant, r] : rows) {
      if (variant.rfind("grid_", 0) == 0 &&
          (best_grid.empty() ||
           r->counters.at("ns_per_ent") < rows.at(best_grid)->counters.at("ns_per_ent"))) {
        best_grid = variant;
      }
    }
    const Result* ours = rows.count("ours") ? rows.at("ours") : nullptr;
    const double ours_ns = ours ? ours->counters.at("ns_per_ent") : 0;
    std::fprintf(out, "\n### %s  (%.1f hits per query)\n\n", w.c_str(),
                 rows.begin()->second->counters.at("hits_per_q"));
    std::fprintf(out,
                 "| index | update ns/entity | query ns/entity | total ns/entity | vs ours | "
                 "candidates/hit |\n|---|---:|---:|---:|---:|---:|\n");
    std::vector<std::pair<double, std::string>> sorted;
    for (const auto& [variant, r] : rows)
      sorted.emplace_back(r->counters.at("ns_per_ent"), variant);
    std::sort(sorted.begin(), sorted.end());
    Summary s{w, best_grid, ours_ns, 0, std::numeric_limits<double>::infinity(), 0};
    for (const auto& [ns, variant] : sorted) {
      const Result& r = *rows.at(variant);
      std::string label = variant;
      if (variant == best_grid) label += " (best grid)";
      std::fprintf(out, "| %s | %.1f | %.1f | %.1f | %.2fx | %.2f |\n", label.c_str(),
                   r.counters.at("upd_ns"), r.counters.at("qry_ns"), ns,
                   ours_ns > 0 ? ns / ours_ns : 0.0, r.counters.at("cand_per_hit"));
      if (variant == best_grid) s.grid_ns = ns;
      if (variant == "ours") s.cand = r.counters.at("cand_per_hit");
      if (variant == "rtree_incr" || variant == "rtree_bulk" || variant == "naive_qt") {
        s.others_min = std::min(s.others_min, ns);
      }
    }
    summaries.push_back(s);
  }
  if (!summaries.empty()) {
    std::fprintf(out, "\n### Summary (total ns per entity per tick)\n\n");
    std::fprintf(out,
                 "| workload | ours | best grid | ours / grid | fastest of rtree, naive_qt / "
                 "ours | ours candidates/hit |\n"
                 "|---|---:|---:|---:|---:|---:|\n");
    for (const Summary& s : summaries) {
      std::fprintf(out, "| %s | %.1f | %.1f (%s) | %.2f | %.1fx | %.2f |\n", s.workload.c_str(),
                   s.ours, s.grid_ns, s.grid.c_str(), s.grid_ns > 0 ? s.ours / s.grid_ns : 0.0,
                   s.ours > 0 ? s.others_min / s.ours : 0.0, s.cand);
    }
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
