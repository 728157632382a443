// EarlyInputs: inputs held for a session whose character is still loading, in order, bounded.
#include "host/early_inputs.h"

#include <gtest/gtest.h>

namespace zs::host {
namespace {

ClientInput Move(uint32_t seq) { return zone::MoveInput{.seq = seq, .direction = {1, 0}}; }

uint32_t SeqOfInput(const ClientInput& in) { return zone::SeqOf(std::get<zone::PlayerInput>(in)); }

TEST(EarlyInputs, AreHandedOverInTheOrderTheyCame) {
  EarlyInputs early;
  EXPECT_TRUE(early.empty());
  ASSERT_TRUE(early.Hold(SessionKey::Local(7), Move(1)));
  ASSERT_TRUE(early.Hold(SessionKey::Local(8), Move(10)));
  ASSERT_TRUE(early.Hold(SessionKey::Local(7), Move(2)));
  ASSERT_TRUE(
      early.Hold(SessionKey::Local(7), RefusedInput{.kind = zone::InputKind::kSkill, .seq = 3}));
  EXPECT_EQ(early.Sessions().size(), 2u);
  const std::vector<ClientInput> seven = early.Take(SessionKey::Local(7));
  ASSERT_EQ(seven.size(), 3u);
  EXPECT_EQ(SeqOfInput(seven[0]), 1u);
  EXPECT_EQ(SeqOfInput(seven[1]), 2u);
  EXPECT_EQ(std::get<RefusedInput>(seven[2]).seq, 3u);
  EXPECT_TRUE(early.Take(SessionKey::Local(7)).empty()) << "taken once";
  early.Drop(SessionKey::Local(8));
  EXPECT_TRUE(early.empty());
}

TEST(EarlyInputs, KeepAtMostTheirLimitPerSession) {
  EarlyInputs early;
  for (uint32_t i = 0; i < EarlyInputs::kMaxPerSession; ++i)
    ASSERT_TRUE(early.Hold(SessionKey::Local(1), Move(i)));
  EXPECT_FALSE(early.Hold(SessionKey::Local(1), Move(999)))
      << "one more is not kept: the caller counts it";
  EXPECT_TRUE(early.Hold(SessionKey::Local(2), Move(1))) << "the limit is per session";
  const std::vector<ClientInput> held = early.Take(SessionKey::Local(1));
  ASSERT_EQ(held.size(), EarlyInputs::kMaxPerSession);
  EXPECT_EQ(SeqOfInput(held.back()), EarlyInputs::kMaxPerSession - 1);
}

}  // namespace
}  // namespace zs::host
