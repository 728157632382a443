// OverloadGovernor: keeps the tick on time by trading quality for work.
//
// Fed once per tick with the share of the tick interval the last tick's work took (measured by
// the caller: the governor itself reads no clock, so it is pure and testable). When the share
// stays above `work_share` for `trigger_ticks` ticks in a row, the overload level goes up by one
// (interest budgets shrink: mid rate first, then the mid tier, then the near tier down to its
// floor; see BudgetAt). When it stays below half of `work_share` for `recover_ticks` ticks, the
// level goes down by one. The level is what the zones use for their budgets next tick.
// Thread: one (its zone runner's).
#pragma once

#include <cstdint>

#include "interest/interest.h"

namespace zs::interest {

struct OverloadConfig {
  double work_share = 0.6;      // of the tick interval
  uint32_t trigger_ticks = 3;   // consecutive slow ticks before shrinking
  uint32_t recover_ticks = 40;  // consecutive quiet ticks before growing back
  uint32_t near_floor = 8;      // near_max never shrinks below this
};

class OverloadGovernor {
 public:
  explicit OverloadGovernor(const OverloadConfig& config) : config_(config) {}

  // Returns true when the level changed.
  bool Observe(double share) {
    if (share > config_.work_share) {
      quiet_ = 0;
      if (++slow_ >= config_.trigger_ticks && level_ < kMaxOverloadLevel) {
        ++level_;
        slow_ = 0;
        return true;
      }
    } else if (share < config_.work_share / 2) {
      slow_ = 0;
      if (++quiet_ >= config_.recover_ticks && level_ > 0) {
        --level_;
        quiet_ = 0;
        return true;
      }
    } else {
      slow_ = quiet_ = 0;
    }
    return false;
  }

  [[nodiscard]] uint32_t level() const { return level_; }
  // 1.0 at level 0, shrinking linearly to 0 at the last level: the metric's "interest scale".
  [[nodiscard]] double scale() const {
    return 1.0 - static_cast<double>(level_) / static_cast<double>(kMaxOverloadLevel);
  }
  [[nodiscard]] const OverloadConfig& config() const { return config_; }

 private:
  OverloadConfig config_;
  uint32_t level_ = 0;
  uint32_t slow_ = 0;
  uint32_t quiet_ = 0;
};

}  // namespace zs::interest
