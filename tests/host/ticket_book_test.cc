// TicketBook: a ticket is unguessable, bound to one character, valid for its time and once.
#include "host/ticket_book.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace zs::host {
namespace {

storage::CharacterRecord Character(const std::string& name) {
  return {.name = name, .account = 7, .state = {.zone = 2, .position = {10, 10}, .hp = 55}};
}

TEST(TicketBook, ATicketRedeemsItsCharacterOnce) {
  TicketBook book({.ttl_seconds = 30, .capacity = 10});
  const std::string t = book.Issue(Character("Aria"), 100);
  ASSERT_FALSE(t.empty());
  EXPECT_GE(t.size(), 32u) << "24 random bytes";
  const auto c = book.Redeem(t, 101);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->name, "Aria");
  EXPECT_EQ(c->state.hp, 55);
  EXPECT_FALSE(book.Redeem(t, 102)) << "replayed";
  EXPECT_FALSE(book.Redeem("forged-ticket-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", 102));
  EXPECT_FALSE(book.Redeem("", 102));
}

TEST(TicketBook, AnExpiredTicketIsRefusedAndItsCharacterHandedBackToSave) {
  TicketBook book({.ttl_seconds = 30, .capacity = 10});
  const std::string a = book.Issue(Character("Aria"), 100);
  const std::string b = book.Issue(Character("Bran"), 120);
  EXPECT_FALSE(book.Redeem(a, 130)) << "expired at 130";
  const auto expired = book.Expire(131);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].name, "Aria");
  EXPECT_EQ(book.open(), 1u);
  EXPECT_TRUE(book.Redeem(b, 131));
}

TEST(TicketBook, TicketsAreDistinctAndTheBookIsBounded) {
  TicketBook book({.ttl_seconds = 30, .capacity = 100});
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    // Not "P" + std::to_string(i): GCC 12 at -O3 warns about that (-Wrestrict, a false positive,
    // GCC bug 105651), which -DZS_WERROR=ON makes an error.
    std::string name = "P";
    name += std::to_string(i);
    seen.insert(book.Issue(Character(name), 1));
  }
  EXPECT_EQ(seen.size(), 100u);
  EXPECT_EQ(book.Issue(Character("One more"), 1), "") << "full: the hand-off is refused";
}

}  // namespace
}  // namespace zs::host
