// The cooldowns column's text form and the fault names (metric labels).
#include "storage/character_record.h"

#include <gtest/gtest.h>

namespace zs::storage {
namespace {

TEST(CooldownsText, RoundTripsZeroToFourPairs) {
  for (uint32_t n = 0; n <= zone::kMaxSkills; ++n) {
    zone::PlayerSnapshot s;
    s.num_cooldowns = n;
    for (uint32_t i = 0; i < n; ++i) s.cooldowns[i] = {.skill = i * 7, .remaining_ms = 4294967295u};
    const std::string text = EncodeCooldowns(s);
    zone::PlayerSnapshot back;
    back.num_cooldowns = 3;  // overwritten
    ASSERT_TRUE(DecodeCooldowns(text, &back)) << text;
    EXPECT_EQ(back, s) << text;
  }
  zone::PlayerSnapshot one;
  one.num_cooldowns = 1;
  one.cooldowns[0] = {.skill = 3, .remaining_ms = 250};
  EXPECT_EQ(EncodeCooldowns(one), "3:250");
}

TEST(CooldownsText, RejectsMalformedText) {
  for (const char* bad : {"3", "3:", ":3", "3:250,", ",3:250", "a:1", "1:2:3", "1:-2",
                          "4294967296:1", "1:1,2:2,3:3,4:4,5:5", " 1:2"}) {
    zone::PlayerSnapshot s;
    EXPECT_FALSE(DecodeCooldowns(bad, &s)) << bad;
  }
}

TEST(FaultNames, AreDistinctMetricLabels) {
  EXPECT_STREQ(FaultName(Fault::kBusy), "busy");
  EXPECT_STREQ(FaultName(Fault::kReadOnly), "read_only");
  EXPECT_STREQ(FaultName(Fault::kFull), "full");
  EXPECT_STREQ(FaultName(Fault::kMissing), "missing");
  EXPECT_STREQ(FaultName(Fault::kCorrupt), "corrupt");
  EXPECT_STREQ(FaultName(Fault::kConnection), "connection");
  EXPECT_STREQ(FaultName(Fault::kOther), "other");
}

}  // namespace
}  // namespace zs::storage
