// TableReporter: Google Benchmark's console output, plus markdown tables at the end that put
// every index beside ours for each workload (the tables bench/README.md quotes).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace zs::bench {

class TableReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override;
  // Prints the spatial workload tables and the classic demo; nothing for benchmarks not run.
  void PrintSpatialTables(std::FILE* out) const;
  [[nodiscard]] bool had_errors() const { return had_errors_; }

  struct Result {
    std::map<std::string, double> counters;
    double real_time = 0;  // in the benchmark's time unit
    std::string time_unit;
  };
  [[nodiscard]] const std::map<std::string, Result>& results() const { return results_; }

 private:
  std::map<std::string, Result> results_;
  std::vector<std::string> order_;
  bool had_errors_ = false;
};

}  // namespace zs::bench
