// InputLedger: one result per skill and chat, results only for inputs sent, none left behind.
#include "client_sim/input_ledger.h"

#include <gtest/gtest.h>

#include "zone.pb.h"

namespace zs::sim {
namespace {

namespace pb = ::zs::zone::v1;
using Clock = InputLedger::Clock;

pb::TickUpdate WithResult(pb::InputKind kind, uint32_t seq, pb::Outcome outcome) {
  pb::TickUpdate t;
  pb::InputResult* r = t.add_results();
  r->set_kind(kind);
  r->set_seq(seq);
  r->set_outcome(outcome);
  return t;
}

TEST(InputLedger, EachSkillAndChatIsAnsweredOnce) {
  Stats stats;
  InputLedger ledger(&stats);
  const auto now = Clock::now();
  ledger.Sent(InputLedger::Kind::kSkill, 7, now);
  ledger.Sent(InputLedger::Kind::kChat, 7, now);  // chat has its own sequence
  ledger.Sent(InputLedger::Kind::kMove, 8, now);
  ledger.Apply(WithResult(pb::INPUT_KIND_SKILL, 7, pb::OUTCOME_COOLDOWN), now);
  ledger.Apply(WithResult(pb::INPUT_KIND_CHAT, 7, pb::OUTCOME_ACCEPTED), now);
  ledger.Apply(WithResult(pb::INPUT_KIND_MOVE, 8, pb::OUTCOME_DEAD), now);
  EXPECT_EQ(stats.TotalViolations(), 0u);
  EXPECT_EQ(ledger.pending(), 0u);
  EXPECT_EQ(stats.results["OUTCOME_COOLDOWN"], 1u);
  ledger.Apply(WithResult(pb::INPUT_KIND_SKILL, 7, pb::OUTCOME_ACCEPTED), now);  // a second one
  ledger.Apply(WithResult(pb::INPUT_KIND_MOVE, 99, pb::OUTCOME_DEAD), now);      // never sent
  EXPECT_EQ(stats.violations["result_unknown_input"], 2u);
}

TEST(InputLedger, HowLongEachAnswerTookIsRecorded) {
  Stats stats;
  InputLedger ledger(&stats);
  const auto t0 = Clock::now();
  ledger.Sent(InputLedger::Kind::kSkill, 1, t0);
  ledger.Sent(InputLedger::Kind::kChat, 2, t0);
  ledger.Apply(WithResult(pb::INPUT_KIND_SKILL, 1, pb::OUTCOME_ACCEPTED),
               t0 + std::chrono::milliseconds(40));
  ledger.Apply(WithResult(pb::INPUT_KIND_CHAT, 2, pb::OUTCOME_ACCEPTED),
               t0 + std::chrono::milliseconds(75));
  ASSERT_EQ(stats.answer_ms.size(), 2u);
  EXPECT_NEAR(stats.answer_ms[0], 40, 1e-6);
  EXPECT_NEAR(stats.answer_ms[1], 75, 1e-6);
}

TEST(InputLedger, AnUnansweredSkillIsMissingAfterThreeSeconds) {
  Stats stats;
  InputLedger ledger(&stats);
  const auto t0 = Clock::now();
  ledger.Sent(InputLedger::Kind::kSkill, 1, t0);
  ledger.Apply(pb::TickUpdate(), t0 + std::chrono::seconds(2));
  EXPECT_EQ(stats.TotalViolations(), 0u);
  ledger.Apply(pb::TickUpdate(), t0 + std::chrono::seconds(4));
  EXPECT_EQ(stats.violations["result_missing"], 1u);
}

TEST(InputLedger, AResyncExcusesWhatWasPending) {
  Stats stats;
  InputLedger ledger(&stats);
  const auto t0 = Clock::now();
  ledger.Sent(InputLedger::Kind::kSkill, 1, t0);  // its result went with the dropped ticks
  ledger.Sent(InputLedger::Kind::kSkill, 2, t0);  // answered in the resync frame itself
  ledger.Sent(InputLedger::Kind::kChat, 3, t0);   // still on its way in: answered later
  pb::TickUpdate resync = WithResult(pb::INPUT_KIND_SKILL, 2, pb::OUTCOME_ACCEPTED);
  resync.set_resync(true);
  ledger.Apply(resync, t0);
  ledger.Apply(WithResult(pb::INPUT_KIND_CHAT, 3, pb::OUTCOME_ACCEPTED), t0);
  ledger.Apply(pb::TickUpdate(), t0 + std::chrono::seconds(10));
  EXPECT_EQ(stats.TotalViolations(), 0u);
  EXPECT_EQ(ledger.pending(), 0u) << "forgotten after the answer window";
  ledger.Sent(InputLedger::Kind::kSkill, 4, t0 + std::chrono::seconds(10));  // after it
  ledger.Apply(pb::TickUpdate(), t0 + std::chrono::seconds(14));
  EXPECT_EQ(stats.violations["result_missing"], 1u) << "an input sent after a resync is owed";
}

}  // namespace
}  // namespace zs::sim
