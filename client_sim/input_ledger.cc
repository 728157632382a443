#include "client_sim/input_ledger.h"

#include <algorithm>

#include "zone.pb.h"

namespace zs::sim {

namespace pb = ::zs::zone::v1;

void InputLedger::Reset() {
  pending_.clear();
  recent_moves_.clear();
}

void InputLedger::Sent(Kind kind, uint32_t seq, Clock::time_point now) {
  if (kind == Kind::kMove) {
    recent_moves_.push_back(seq);
    if (recent_moves_.size() > kRecentMoves) recent_moves_.pop_front();
    return;
  }
  pending_[Key(kind, seq)] = Pending{.sent = now};
}

void InputLedger::Apply(const pb::TickUpdate& t, Clock::time_point now) {
  if (t.resync()) {  // the dropped ticks may have taken results with them
    for (auto& [key, p] : pending_) p.excused = true;
  }
  for (const pb::InputResult& r : t.results()) {
    stats_->Result(pb::Outcome_Name(r.outcome()));
    const auto kind = static_cast<Kind>(r.kind());
    if (kind == Kind::kMove) {
      if (std::find(recent_moves_.begin(), recent_moves_.end(), r.seq()) == recent_moves_.end()) {
        stats_->Violation("result_unknown_input");
      }
      continue;
    }
    const auto it = pending_.find(Key(kind, r.seq()));
    if (it == pending_.end()) {
      stats_->Violation("result_unknown_input");
      continue;
    }
    if (!it->second.excused) {
      const std::lock_guard lock(stats_->mu);
      stats_->answer_ms.push_back(
          std::chrono::duration<double, std::milli>(now - it->second.sent).count());
    }
    pending_.erase(it);
  }
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (now - it->second.sent > kAnswerWithin) {
      if (!it->second.excused) stats_->Violation("result_missing");
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace zs::sim
