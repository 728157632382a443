// The figures behind /metrics: Counter, Gauge, TickHistogram, and MetricGroup, the group a
// named figure is declared in.
//
// A figure that is a Prometheus family of its own is declared once, with its name and help, in
// its group: `Counter accepted{this, {.name = "zs_connections_total", .help = "..."}};` lists
// it in the group (MetricGroup::named), and Metrics::Render shows every listed figure in one
// loop. A figure that is one value of a labelled family (a reason, a direction) is declared
// without a name (`Counter in;`) and its family is rendered by hand.
//
// Threads: Add/Sub/Set and the reads are lock-free, any thread (relaxed: figures, not
// synchronisation). A group lists its figures while it is constructed, on one thread; the list
// is read-only afterwards. Groups are neither copied nor moved (the list points into them).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

namespace prometheus {
struct ClientMetric;
}  // namespace prometheus

namespace zs::host {

// How a named figure is shown.
struct MetricInfo {
  const char* name = "";
  const char* help = "";  // as written (prometheus-cpp 1.0 does not escape it): no `\`, no newline
  double scale = 1;       // shown: value * scale (microseconds counted, seconds shown: 1e-6)
  bool at_least_zero = false;  // a gauge two threads move may dip below 0 for a moment
};

class Counter;
class Gauge;

// A group of figures written by one part of the server; the named ones are listed in it.
class MetricGroup {
 public:
  struct Named {
    MetricInfo info;
    const Counter* counter = nullptr;  // one of the two
    const Gauge* gauge = nullptr;
  };
  [[nodiscard]] const std::vector<Named>& named() const { return named_; }

  MetricGroup(const MetricGroup&) = delete;
  MetricGroup& operator=(const MetricGroup&) = delete;

 protected:
  MetricGroup() = default;
  ~MetricGroup() = default;

 private:
  friend class Counter;
  friend class Gauge;
  std::vector<Named> named_;  // in declaration order
};

// A counter: only goes up.
class Counter {
 public:
  Counter() = default;  // one value of a labelled family
  Counter(MetricGroup* group, const MetricInfo& info) {
    group->named_.push_back({.info = info, .counter = this, .gauge = nullptr});
  }
  Counter(const Counter&) = delete;
  Counter& operator=(const Counter&) = delete;

  void Add(uint64_t n = 1) noexcept { v_.fetch_add(n, std::memory_order_relaxed); }
  [[nodiscard]] uint64_t value() const noexcept { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> v_{0};
};

// A gauge: goes up and down, or is set.
class Gauge {
 public:
  Gauge() = default;  // one value of a labelled family, or shown by hand
  Gauge(MetricGroup* group, const MetricInfo& info) {
    group->named_.push_back({.info = info, .counter = nullptr, .gauge = this});
  }
  Gauge(const Gauge&) = delete;
  Gauge& operator=(const Gauge&) = delete;

  void Add(int64_t d = 1) noexcept { v_.fetch_add(d, std::memory_order_relaxed); }
  void Sub(int64_t d = 1) noexcept { v_.fetch_sub(d, std::memory_order_relaxed); }
  void Set(int64_t v) noexcept { v_.store(v, std::memory_order_relaxed); }
  [[nodiscard]] int64_t value() const noexcept { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> v_{0};
};

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

}  // namespace zs::host
