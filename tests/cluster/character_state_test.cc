// CharacterRecord <-> CharacterState: lossless round trip; what another process may not send.
#include "cluster/character_state.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace zs::cluster {
namespace {

storage::CharacterRecord HurtDeadCharacter() {
  storage::CharacterRecord record{.name = "Aria",
                                  .account = 42,
                                  .state = {.zone = 2,
                                            .position = {123.25f, -7.5f},
                                            .facing = 1.75f,
                                            .hp = 0,
                                            .alive = false,
                                            .respawn_ms = 4200},
                                  .saved_at_ms = 1'790'000'000'123};
  record.state.cooldowns[0] = {.skill = 1, .remaining_ms = 250};
  record.state.cooldowns[1] = {.skill = 3, .remaining_ms = 9000};
  record.state.num_cooldowns = 2;
  return record;
}

TEST(CharacterState, RoundTripThroughBytesIsLossless) {
  const storage::CharacterRecord record = HurtDeadCharacter();
  v1::CharacterState msg;
  ToProto(record, &msg);
  v1::CharacterState parsed;
  ASSERT_TRUE(parsed.ParseFromString(msg.SerializeAsString()));
  storage::CharacterRecord back;
  std::string error;
  ASSERT_TRUE(FromProto(parsed, &back, &error)) << error;
  EXPECT_EQ(back, record);
}

TEST(CharacterState, RoundTripOfAFreshCharacter) {
  storage::CharacterRecord record;
  record.name = "Bo";
  record.state.hp = 100;
  v1::CharacterState msg;
  ToProto(record, &msg);
  storage::CharacterRecord back;
  std::string error;
  ASSERT_TRUE(FromProto(msg, &back, &error)) << error;
  EXPECT_EQ(back, record);
}

TEST(CharacterState, RefusesWhatTheSimulationMustNotReceive) {
  v1::CharacterState msg;
  ToProto(HurtDeadCharacter(), &msg);
  storage::CharacterRecord out;
  std::string error;

  v1::CharacterState nameless = msg;
  nameless.clear_name();
  EXPECT_FALSE(FromProto(nameless, &out, &error));
  EXPECT_NE(error.find("name"), std::string::npos) << error;

  v1::CharacterState nan = msg;
  nan.set_x(std::numeric_limits<float>::quiet_NaN());
  EXPECT_FALSE(FromProto(nan, &out, &error));
  EXPECT_NE(error.find("not finite"), std::string::npos) << error;

  v1::CharacterState too_many = msg;
  for (int i = 0; i < 3; ++i) too_many.add_cooldowns()->set_skill(9);
  EXPECT_FALSE(FromProto(too_many, &out, &error));
  EXPECT_NE(error.find("cooldowns"), std::string::npos) << error;
}

}  // namespace
}  // namespace zs::cluster
