// InputLedger: one verifying bot's inputs and the server's answers (TickUpdate.results).
//
// The protocol's promise (proto/zone.proto, InputResult): every SkillInput and Chat gets exactly
// one result, in the TickUpdate of the tick that processed it; a MoveInput gets one only when
// refused. The ledger checks, counting each broken promise in Stats:
//   result_unknown_input  a result for a seq this bot never sent (or a second one for a skill
//                         or chat already answered);
//   result_missing        a skill or chat still unanswered 3 s after it was sent.
// A resync (ticks were dropped, with whatever results they held) excuses what was pending: an
// excused input's answer may have gone with the dropped ticks or may still come (in the resync
// frame itself, or later if it was still on its way in), so neither its absence nor its result
// is a violation; it is forgotten after the same 3 s.
// Outcomes are counted by name in Stats::results, and how long each skill or chat took to be
// answered in Stats::answer_ms (the whole way: client -> server -> the tick -> its frame; for a
// player owned by another cell's node, through the relay both ways). Threads: one Bot's event loop.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <unordered_map>

#include "client_sim/stats.h"

namespace zs::zone::v1 {
class TickUpdate;
}

namespace zs::sim {

class InputLedger {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Kind : uint8_t { kMove = 1, kSkill = 2, kChat = 3 };  // as on the wire
  static constexpr std::chrono::seconds kAnswerWithin{3};
  static constexpr size_t kRecentMoves = 256;

  explicit InputLedger(Stats* stats) : stats_(stats) {}

  void Reset();
  void Sent(Kind kind, uint32_t seq, Clock::time_point now);
  void Apply(const zone::v1::TickUpdate& t, Clock::time_point now);
  [[nodiscard]] size_t pending() const { return pending_.size(); }

 private:
  static uint64_t Key(Kind kind, uint32_t seq) { return (static_cast<uint64_t>(kind) << 32) | seq; }

  struct Pending {
    Clock::time_point sent;
    bool excused = false;  // a resync came after it was sent
  };

  Stats* stats_;
  std::unordered_map<uint64_t, Pending> pending_;  // skills and chats
  std::deque<uint32_t> recent_moves_;              // the last kRecentMoves move seqs
};

}  // namespace zs::sim
