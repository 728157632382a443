#include "host/churn_log.h"

#include <cstdio>

namespace zs::host {

const char* ChurnKindName(ChurnLog::Kind kind) {
  switch (kind) {
    case ChurnLog::Kind::kConnected:
      return "connected";
    case ChurnLog::Kind::kJoined:
      return "joined";
    case ChurnLog::Kind::kDisconnected:
      return "disconnected";
    case ChurnLog::Kind::kRefused:
      return "refused";
    case ChurnLog::Kind::kAcceptFailed:
      return "accept failures";
  }
  return "?";
}

bool ChurnLog::Admit(Kind kind, const std::string& reason, double now_s) {
  std::lock_guard lock(mu_);
  if (window_start_s_ < 0) window_start_s_ = now_s;
  Counts& c = counts_[static_cast<size_t>(kind)];
  ++c.total;
  if (!reason.empty()) ++c.by_reason[reason];
  if (c.total <= verbatim_) return true;
  ++suppressed_;
  return false;
}

std::optional<std::string> ChurnLog::TakeSummary(double now_s, bool flush) {
  std::lock_guard lock(mu_);
  if (window_start_s_ < 0 || (!flush && now_s - window_start_s_ < window_s_)) {
    return std::nullopt;
  }
  std::optional<std::string> line;
  if (suppressed_ > 0) {
    char head[64];
    std::snprintf(head, sizeof head, "churn in the last %.1f s: ", now_s - window_start_s_);
    std::string s = head;
    bool first = true;
    for (size_t k = 0; k < kKinds; ++k) {
      const Counts& c = counts_[k];
      if (c.total == 0) continue;
      s +=
          (first ? "" : ", ") + std::to_string(c.total) + " " + ChurnKindName(static_cast<Kind>(k));
      first = false;
      if (c.by_reason.empty()) continue;
      s += " (";
      bool first_reason = true;
      for (const auto& [reason, n] : c.by_reason) {
        s += (first_reason ? "" : ", ") + reason + " " + std::to_string(n);
        first_reason = false;
      }
      s += ")";
    }
    s += "; " + std::to_string(suppressed_) + " lines not shown";
    line = std::move(s);
  }
  counts_ = {};
  suppressed_ = 0;
  window_start_s_ = -1;  // the next window starts with the next event
  return line;
}

}  // namespace zs::host
