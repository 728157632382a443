// LoginGate: a Hello's protocol version, hand-off ticket and identity (auth modes none and
// token), without a socket; refusals carry the error, the close reason and the count.
#include "net/login_gate.h"

#include <gtest/gtest.h>

#include <string>

#include "auth/token.h"

namespace zs::net {
namespace {

using host::CloseReason;

constexpr int64_t kNow = 1'800'000'000;
const std::string kSecret(32, 's');

wire::ClientIntent Hello(std::string name = "Aria") {
  wire::ClientIntent in;
  in.kind = wire::ClientKind::kHello;
  in.protocol_version = wire::kProtocolVersion;
  in.player_name = std::move(name);
  return in;
}

uint64_t Count(const host::ReasonCounts& counts, CloseReason reason) {
  const auto all = counts.Snapshot();
  const auto it = all.find(reason);
  return it == all.end() ? 0 : it->second;
}

TEST(LoginGate, ModeNoneJoinsByTheNameItGives) {
  auth::Authenticator auth({});
  host::ReasonCounts refusals;
  LoginGate gate(auth, nullptr, refusals);
  const LoginGate::Decision d = gate.Admit(Hello("Aria"), 0, kNow);
  const auto* join = std::get_if<LoginGate::Join>(&d);
  ASSERT_NE(join, nullptr);
  EXPECT_EQ(join->who.name, "Aria");
  EXPECT_EQ(join->who.account, 0u);
  EXPECT_FALSE(gate.OversizedHello()) << "mode none: a big frame is just a bad frame";
}

TEST(LoginGate, AVersionOutsideTheSupportedRangeIsRefusedWithoutCountingALogin) {
  auth::Authenticator auth({});
  host::ReasonCounts refusals;
  LoginGate gate(auth, nullptr, refusals);
  for (const uint32_t version : {wire::kMinProtocolVersion - 1, wire::kProtocolVersion + 1}) {
    wire::ClientIntent in = Hello();
    in.protocol_version = version;
    const LoginGate::Decision d = gate.Admit(in, 0, kNow);
    const auto* r = std::get_if<LoginGate::Refusal>(&d);
    ASSERT_NE(r, nullptr) << version;
    EXPECT_EQ(r->code, wire::ErrorCode::kProtocolVersion);
    EXPECT_EQ(r->reason, CloseReason::kProtocolVersion);
    EXPECT_NE(r->text.find(std::to_string(wire::kProtocolVersion)), std::string::npos) << r->text;
  }
  EXPECT_TRUE(refusals.Snapshot().empty());
}

TEST(LoginGate, ModeNoneRefusesABadNameItWasSentWithAToken) {
  auth::Authenticator auth({});
  host::ReasonCounts refusals;
  LoginGate gate(auth, nullptr, refusals);
  wire::ClientIntent in = Hello("");
  in.name_problem = names::NameProblem::kLength;
  const LoginGate::Decision d = gate.Admit(in, 0, kNow);
  const auto* r = std::get_if<LoginGate::Refusal>(&d);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->code, wire::ErrorCode::kBadName);
  EXPECT_EQ(r->reason, CloseReason::kBadName);
}

TEST(LoginGate, TokenModeJoinsOnceAndRefusesEachBadTokenByItsReason) {
  auth::Authenticator auth({.mode = auth::AuthMode::kToken, .secret = kSecret});
  host::ReasonCounts refusals;
  LoginGate gate(auth, nullptr, refusals);
  wire::ClientIntent in = Hello("ignored");
  in.auth_token =
      auth::TokenCodec(kSecret).Sign({.account = 42, .name = "Aria", .expiry = kNow + 60});
  const LoginGate::Decision first = gate.Admit(in, 0, kNow);
  const auto* join = std::get_if<LoginGate::Join>(&first);
  ASSERT_NE(join, nullptr);
  EXPECT_EQ(join->who.account, 42u);
  EXPECT_EQ(join->who.name, "Aria");

  const LoginGate::Decision again = gate.Admit(in, 0, kNow);
  const auto* replayed = std::get_if<LoginGate::Refusal>(&again);
  ASSERT_NE(replayed, nullptr);
  EXPECT_EQ(replayed->code, wire::ErrorCode::kAuthFailed);
  EXPECT_EQ(replayed->text, "authentication failed") << "the client is not told why";
  EXPECT_EQ(replayed->reason, CloseReason::kAuthReplayed);

  in.auth_token = auth::TokenCodec(std::string(32, 'x'))
                      .Sign({.account = 1, .name = "Eve", .expiry = kNow + 60});
  const LoginGate::Decision forged = gate.Admit(in, 0, kNow);
  ASSERT_TRUE(std::holds_alternative<LoginGate::Refusal>(forged));
  EXPECT_EQ(std::get<LoginGate::Refusal>(forged).reason, CloseReason::kAuthBadSignature);

  const std::optional<LoginGate::Refusal> big = gate.OversizedHello();
  ASSERT_TRUE(big.has_value());
  EXPECT_EQ(big->code, wire::ErrorCode::kAuthFailed);
  EXPECT_EQ(big->reason, CloseReason::kAuthOversized);

  EXPECT_EQ(Count(refusals, CloseReason::kAuthReplayed), 1u);
  EXPECT_EQ(Count(refusals, CloseReason::kAuthBadSignature), 1u);
  EXPECT_EQ(Count(refusals, CloseReason::kAuthOversized), 1u);
}

TEST(LoginGate, ATicketArrivesOnceWithItsCharacter) {
  auth::Authenticator auth({});
  host::ReasonCounts refusals;
  host::TicketBook tickets({.ttl_seconds = 30, .capacity = 10});
  LoginGate gate(auth, &tickets, refusals);
  const std::string ticket =
      tickets.Issue({.name = "Aria", .account = 0, .state = {}, .saved_at_ms = 0}, 100);
  ASSERT_FALSE(ticket.empty());
  wire::ClientIntent in = Hello("");
  in.ticket = ticket;
  const LoginGate::Decision d = gate.Admit(in, 101, kNow);
  const auto* arrive = std::get_if<LoginGate::Arrive>(&d);
  ASSERT_NE(arrive, nullptr);
  EXPECT_EQ(arrive->character.name, "Aria");

  const LoginGate::Decision used = gate.Admit(in, 102, kNow);
  const auto* r = std::get_if<LoginGate::Refusal>(&used);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->code, wire::ErrorCode::kBadTicket);
  EXPECT_EQ(r->reason, CloseReason::kBadTicket);
  EXPECT_EQ(Count(refusals, CloseReason::kBadTicket), 1u);
}

TEST(LoginGate, ATicketIsRefusedWhereNoServerHandsCharactersHere) {
  auth::Authenticator auth({});
  host::ReasonCounts refusals;
  LoginGate gate(auth, nullptr, refusals);
  wire::ClientIntent in = Hello();
  in.ticket = "anything";
  const LoginGate::Decision d = gate.Admit(in, 0, kNow);
  ASSERT_TRUE(std::holds_alternative<LoginGate::Refusal>(d));
  EXPECT_EQ(std::get<LoginGate::Refusal>(d).reason, CloseReason::kBadTicket);
}

}  // namespace
}  // namespace zs::net
