#include "host/session_key.h"

#include <gtest/gtest.h>

#include <unordered_set>

namespace zs::host {
namespace {

TEST(SessionKey, ALocalSessionIsNeverTheKeyOfARelayedOne) {
  const SessionKey local = SessionKey::Local(7);
  const SessionKey relayed = SessionKey::Relayed(0, 7);
  EXPECT_FALSE(local.relayed());
  EXPECT_EQ(local.home_cell(), std::nullopt);
  EXPECT_TRUE(relayed.relayed());
  EXPECT_EQ(relayed.home_cell(), 0u);
  EXPECT_EQ(local.session(), relayed.session()) << "the session id at its home, either way";
  EXPECT_NE(local, relayed);
  EXPECT_NE(SessionKey::Relayed(0, 7), SessionKey::Relayed(1, 7)) << "homes are told apart";
  EXPECT_EQ(SessionKey::Relayed(3, kMaxRelayedSession).session(), kMaxRelayedSession);
}

TEST(SessionKey, KeysOfEveryKindAreDistinctInAHashSet) {
  std::unordered_set<SessionKey> keys;
  for (uint64_t s = 1; s <= 100; ++s) {
    keys.insert(SessionKey::Local(s));
    for (uint32_t cell = 0; cell < 16; ++cell) keys.insert(SessionKey::Relayed(cell, s));
  }
  EXPECT_EQ(keys.size(), 100u * 17u);
  EXPECT_TRUE(keys.contains(SessionKey::Relayed(15, 100)));
  EXPECT_FALSE(keys.contains(SessionKey::Local(101)));
}

}  // namespace
}  // namespace zs::host
