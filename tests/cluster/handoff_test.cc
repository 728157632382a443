// Hand-off request and reply through a real nats-server: accepted, and every way a request can
// be bad (garbage bytes, another version, a decider that throws) answered, never a crash.
#include "cluster/handoff.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

#include "cluster.pb.h"
#include "cluster/cluster_protocol.h"
#include "cluster/nats_test_env.h"
#include "support/nats_server.h"

namespace zs::cluster {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kTimeout{2000};
constexpr uint32_t kTargetZone = 2;

HandoffRequest Request() {
  HandoffRequest request{.version = 0,
                         .from_node = "town-a",
                         .target_zone = kTargetZone,
                         .character = {.name = "Aria", .account = 42, .state = {}},
                         .arrival = {10.5f, 20.25f}};
  request.character.state.zone = 1;
  request.character.state.hp = 77;
  request.character.state.cooldowns[0] = {.skill = 2, .remaining_ms = 500};
  request.character.state.num_cooldowns = 1;
  return request;
}

HandoffReply Decode(const BusReply& answer) {
  EXPECT_EQ(answer.status, BusStatus::kOk) << answer.error;
  HandoffReply reply;
  std::string error;
  EXPECT_TRUE(DecodeHandoffReply(answer.bytes, &reply, &error)) << error;
  return reply;
}

class HandoffTest : public ::testing::Test {
 protected:
  test::NatsServer server_;
  NatsBus target_{test::FastBusOptions(server_, "field-a")};
  NatsBus source_{test::FastBusOptions(server_, "town-a")};
};

TEST_F(HandoffTest, AcceptedCarriesTheCharacterAndTheTicket) {
  HandoffRequest seen;
  target_.Serve(HandoffSubject(kTargetZone), MakeHandoffHandler([&](const HandoffRequest& r) {
                  seen = r;
                  return HandoffReply{.outcome = HandoffOutcome::kAccepted,
                                      .ticket = "t-123",
                                      .address = "10.0.0.5:7777",
                                      .websocket_url = "wss://game.example.com/zone-5",
                                      .reason = {}};
                }));
  const HandoffResult result = RequestHandoff(source_, Request(), zone::kWholeZone, kTimeout);
  ASSERT_EQ(result.status, BusStatus::kOk) << result.error;
  EXPECT_EQ(result.reply.outcome, HandoffOutcome::kAccepted);
  EXPECT_EQ(result.reply.ticket, "t-123");
  EXPECT_EQ(result.reply.address, "10.0.0.5:7777");
  EXPECT_EQ(result.reply.websocket_url, "wss://game.example.com/zone-5");
  HandoffRequest expected = Request();
  expected.version = kClusterProtocolVersion;
  EXPECT_EQ(seen.version, expected.version);
  EXPECT_EQ(seen.from_node, "town-a");
  EXPECT_EQ(seen.character, expected.character);
  EXPECT_EQ(seen.arrival.x, expected.arrival.x);
  EXPECT_EQ(seen.arrival.y, expected.arrival.y);
}

TEST_F(HandoffTest, GarbageBytesAreABadRequest) {
  std::atomic<int> decided{0};
  target_.Serve(HandoffSubject(kTargetZone), MakeHandoffHandler([&](const HandoffRequest&) {
                  ++decided;
                  return HandoffReply{};
                }));
  const std::string garbage = "\xff\xff\xff\xff\x0f garbage";
  const HandoffReply reply =
      Decode(source_.Request(HandoffSubject(kTargetZone), garbage, kTimeout));
  EXPECT_EQ(reply.outcome, HandoffOutcome::kBadRequest);
  EXPECT_FALSE(reply.reason.empty());
  EXPECT_EQ(decided.load(), 0);

  // An invalid character (NaN position) never reaches the decider either.
  v1::HandoffRequest nan;
  nan.set_version(kClusterProtocolVersion);
  nan.mutable_character()->set_name("Aria");
  nan.mutable_character()->set_x(std::numeric_limits<float>::quiet_NaN());
  const HandoffReply refused =
      Decode(source_.Request(HandoffSubject(kTargetZone), nan.SerializeAsString(), kTimeout));
  EXPECT_EQ(refused.outcome, HandoffOutcome::kBadRequest);
  EXPECT_NE(refused.reason.find("not finite"), std::string::npos) << refused.reason;
  EXPECT_EQ(decided.load(), 0);
}

// A reply's websocket_url is handed to a client as it is (protocol 10): from another node it is
// untrusted input, and a reply whose URL is not a ws:// or wss:// URL is refused as malformed.
TEST(HandoffReplyTest, AWebSocketUrlThatIsNoWebSocketUrlMakesTheReplyMalformed) {
  for (const std::string& bad :
       {std::string("javascript:alert(1)"), std::string("ws://a b/"), std::string(300, 'w')}) {
    v1::HandoffReply msg;
    msg.set_version(kClusterProtocolVersion);
    msg.set_outcome(v1::HANDOFF_OUTCOME_ACCEPTED);
    msg.set_ticket("t");
    msg.set_address("10.0.0.5:7777");
    msg.set_websocket_url(bad);
    HandoffReply reply;
    std::string error;
    EXPECT_FALSE(DecodeHandoffReply(msg.SerializeAsString(), &reply, &error)) << bad;
    EXPECT_NE(error.find("websocket_url"), std::string::npos) << error;
  }
  v1::HandoffReply none;  // a node of before protocol 10: no URL, still a good reply
  none.set_version(kClusterProtocolVersion);
  none.set_outcome(v1::HANDOFF_OUTCOME_ACCEPTED);
  HandoffReply reply;
  std::string error;
  EXPECT_TRUE(DecodeHandoffReply(none.SerializeAsString(), &reply, &error)) << error;
  EXPECT_EQ(reply.websocket_url, "");
}

TEST_F(HandoffTest, AnotherVersionIsRefusedWithVersion) {
  target_.Serve(HandoffSubject(kTargetZone),
                MakeHandoffHandler([](const HandoffRequest&) { return HandoffReply{}; }));
  v1::HandoffRequest future;
  future.set_version(kClusterProtocolVersion + 1);
  const HandoffReply reply =
      Decode(source_.Request(HandoffSubject(kTargetZone), future.SerializeAsString(), kTimeout));
  EXPECT_EQ(reply.outcome, HandoffOutcome::kVersion);
}

TEST_F(HandoffTest, ADeciderThatThrowsAnswersBadRequest) {
  target_.Serve(HandoffSubject(kTargetZone),
                MakeHandoffHandler([](const HandoffRequest&) -> HandoffReply {
                  throw std::runtime_error("ticket store unavailable");
                }));
  const HandoffResult result = RequestHandoff(source_, Request(), zone::kWholeZone, kTimeout);
  ASSERT_EQ(result.status, BusStatus::kOk) << result.error;
  EXPECT_EQ(result.reply.outcome, HandoffOutcome::kBadRequest);
  EXPECT_EQ(result.reply.reason, "ticket store unavailable");
  // Still serving.
  EXPECT_EQ(RequestHandoff(source_, Request(), zone::kWholeZone, kTimeout).status, BusStatus::kOk);
}

TEST_F(HandoffTest, NobodyHostingTheZoneIsNoResponders) {
  const HandoffResult result = RequestHandoff(source_, Request(), zone::kWholeZone, kTimeout);
  EXPECT_EQ(result.status, BusStatus::kNoResponders) << result.error;
}

}  // namespace
}  // namespace zs::cluster
