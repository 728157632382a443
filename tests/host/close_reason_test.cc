// CloseReason: one name per reason, unique, in the snake_case clients and dashboards read; each
// token refusal has its own auth_* reason named after auth::RefusalName.
#include "host/close_reason.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace zs::host {
namespace {

TEST(CloseReason, EveryReasonHasItsOwnSnakeCaseName) {
  std::set<std::string> names;
  for (int i = 0; i < static_cast<int>(CloseReason::kCount); ++i) {
    const std::string name = CloseReasonName(static_cast<CloseReason>(i));
    EXPECT_NE(name, "unknown") << i;
    EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_"), std::string::npos) << name;
    EXPECT_TRUE(names.insert(name).second) << "named twice: " << name;
  }
  // Names clients and dashboards already read (DO NOT RENAME).
  EXPECT_STREQ(CloseReasonName(CloseReason::kSlowReader), "slow_reader");
  EXPECT_STREQ(CloseReasonName(CloseReason::kLoggedInElsewhere), "logged_in_elsewhere");
  EXPECT_STREQ(CloseReasonName(CloseReason::kZoneHandoff), "zone_handoff");
  EXPECT_STREQ(CloseReasonName(CloseReason::kShutdown), "shutdown");
}

TEST(CloseReason, OnlyAClientsOwnCloseOrLogoutIsItsChoice) {
  for (int i = 0; i < static_cast<int>(CloseReason::kCount); ++i) {
    const auto r = static_cast<CloseReason>(i);
    EXPECT_EQ(ClientChose(r), r == CloseReason::kClientClosed || r == CloseReason::kLogout)
        << CloseReasonName(r);
  }
}

TEST(CloseReason, EachTokenRefusalIsAuthAndItsName) {
  for (const auth::Refusal r :
       {auth::Refusal::kTooLong, auth::Refusal::kMalformed, auth::Refusal::kBadSignature,
        auth::Refusal::kBadPayload, auth::Refusal::kBadName, auth::Refusal::kExpired,
        auth::Refusal::kTooFarAhead, auth::Refusal::kReplayed, auth::Refusal::kCacheFull}) {
    EXPECT_EQ(CloseReasonName(AuthRefusal(r)), std::string("auth_") + auth::RefusalName(r));
  }
}

}  // namespace
}  // namespace zs::host
