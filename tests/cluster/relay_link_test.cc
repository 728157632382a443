// The relay of a migrated player's client (cluster/relay_link.h, docs/seamless.md "Relay"):
// every message crosses the wire unchanged, each refusal is named, and two links on a real
// nats-server carry a client's inputs to its player's owner and the owner's frames back to the
// client's connection, a leaving when the client is gone, and a close.
#include "cluster/relay_link.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <mutex>
#include <tuple>
#include <vector>

#include "cluster/border_link.h"
#include "cluster/cluster_protocol.h"
#include "cluster/nats_test_env.h"
#include "support/nats_server.h"
#include "wire/frame_codec.h"
#include "wire/protocol.h"
#include "zone.pb.h"
#include "zone/test_world.h"

namespace zs::cluster {
namespace {

using host::BorderRefusal;
using std::chrono::milliseconds;

// A whole client frame: a varint length, then that many bytes.
std::string Frame(const std::string& body) {
  return std::string(1, static_cast<char>(body.size())) + body;
}

// A TickUpdate frame of tick `tick`, as the encoder writes one (its tick first).
std::string TickFrame(uint64_t tick) {
  zone::v1::ServerMessage m;
  m.mutable_tick()->set_tick(tick);
  std::string out;
  wire::AppendFrame(m.SerializeAsString(), &out);
  return out;
}

RelayMessage InputFromWest(host::ClientInput input) {
  return {.to = {.zone = 1, .to_cell = 1, .home_cell = 0, .session = 7},
          .from_cell = 0,
          .what = RelayMessage::What::kInput,
          .input = std::move(input)};
}

std::string Encoded(const RelayMessage& m, const std::string& node) {
  v1::Relay scratch;
  std::string bytes;
  EncodeRelay(m, node, &scratch, &bytes);
  return bytes;
}

TEST(RelayCodec, EveryKindOfMessageCrossesTheWireUnchanged) {
  const zone::WorldConfig world = zone::testing::SplitInTwo();
  const auto round_trip = [&](const RelayMessage& m, const std::string& node) {
    RelayMessage got;
    EXPECT_FALSE(DecodeRelay(Encoded(m, node), world, &got).has_value());
    EXPECT_EQ(got.to.zone, m.to.zone);
    EXPECT_EQ(got.to.to_cell, m.to.to_cell);
    EXPECT_EQ(got.to.home_cell, m.to.home_cell);
    EXPECT_EQ(got.to.session, m.to.session);
    EXPECT_EQ(got.from_cell, m.from_cell);
    EXPECT_EQ(got.what, m.what);
    return got;
  };
  {
    const RelayMessage got = round_trip(
        InputFromWest(zone::PlayerInput{zone::MoveInput{.seq = 41, .direction = {0.6f, -0.8f}}}),
        "west");
    const auto& move = std::get<zone::MoveInput>(std::get<zone::PlayerInput>(got.input));
    EXPECT_EQ(move.seq, 41u);
    EXPECT_EQ(move.direction, (Vec2{0.6f, -0.8f}));
  }
  {
    const RelayMessage got =
        round_trip(InputFromWest(zone::PlayerInput{zone::SkillInput{
                       .seq = 42, .skill = 3, .facing = -1.25f, .target = {70.5f, 20.25f}}}),
                   "west");
    const auto& skill = std::get<zone::SkillInput>(std::get<zone::PlayerInput>(got.input));
    EXPECT_EQ(skill.seq, 42u);
    EXPECT_EQ(skill.skill, 3u);
    EXPECT_EQ(skill.facing, -1.25f);
    EXPECT_EQ(skill.target, (Vec2{70.5f, 20.25f}));
  }
  {
    const RelayMessage got = round_trip(
        InputFromWest(zone::PlayerInput{zone::ChatInput{
            .seq = 9, .channel = zone::ChatChannel::kWhisper, .text = "héllo", .to_name = "Eve"}}),
        "west");
    const auto& chat = std::get<zone::ChatInput>(std::get<zone::PlayerInput>(got.input));
    EXPECT_EQ(chat.seq, 9u);
    EXPECT_EQ(chat.channel, zone::ChatChannel::kWhisper);
    EXPECT_EQ(chat.text, "héllo");
    EXPECT_TRUE(chat.text_ok);
    EXPECT_EQ(chat.to_name, "Eve");
  }
  {
    const RelayMessage got = round_trip(InputFromWest(host::ResyncRequest{}), "west");
    EXPECT_TRUE(std::holds_alternative<host::ResyncRequest>(got.input));
  }
  {
    const RelayMessage got = round_trip(
        InputFromWest(host::RefusedInput{
            .kind = zone::InputKind::kSkill, .seq = 43, .outcome = zone::Outcome::kRateLimited}),
        "west");
    const auto& refused = std::get<host::RefusedInput>(got.input);
    EXPECT_EQ(refused.kind, zone::InputKind::kSkill);
    EXPECT_EQ(refused.seq, 43u);
    EXPECT_EQ(refused.outcome, zone::Outcome::kRateLimited);
  }
  {
    const RelayMessage got =
        round_trip({.to = {.zone = 1, .to_cell = 0, .home_cell = 0, .session = 7},
                    .from_cell = 1,
                    .what = RelayMessage::What::kFrame,
                    .frame = TickFrame(41),
                    .kind = host::FrameKind::kResyncTick},
                   "east");
    EXPECT_EQ(got.frame, TickFrame(41));
    EXPECT_EQ(got.tick, 41u);
    EXPECT_EQ(got.kind, host::FrameKind::kResyncTick);
    EXPECT_TRUE(got.close.empty());
  }
  {
    const RelayMessage got =
        round_trip({.to = {.zone = 1, .to_cell = 0, .home_cell = 0, .session = 7},
                    .from_cell = 1,
                    .what = RelayMessage::What::kFrame,
                    .kind = host::FrameKind::kControl,
                    .close = "logged_in_elsewhere"},
                   "east");
    EXPECT_TRUE(got.frame.empty()) << "a close without a last frame";
    EXPECT_EQ(got.close, "logged_in_elsewhere");
  }
  round_trip({.to = {.zone = 1, .to_cell = 1, .home_cell = 0, .session = 7},
              .from_cell = 0,
              .what = RelayMessage::What::kLeave},
             "west");
  {
    const RelayMessage got = round_trip({.to = {.zone = 1, .to_cell = 1, .home_cell = 0},
                                         .from_cell = 0,
                                         .what = RelayMessage::What::kHeld,
                                         .sessions = {7, 9, host::kMaxRelayedSession}},
                                        "west");
    EXPECT_EQ(got.sessions, (std::vector<uint64_t>{7, 9, host::kMaxRelayedSession}));
    EXPECT_EQ(got.to.session, 0u);
  }
}

TEST(RelayCodec, EachRefusalIsNamed) {
  const zone::WorldConfig world = zone::testing::SplitInTwo();
  const auto refusal = [&](const std::string& bytes) {
    RelayMessage got;
    return DecodeRelay(bytes, world, &got);
  };
  const RelayMessage move =
      InputFromWest(zone::PlayerInput{zone::MoveInput{.seq = 1, .direction = {1, 0}}});
  EXPECT_EQ(refusal("garbage"), BorderRefusal::kUnparsable);
  EXPECT_EQ(refusal(Encoded(move, "mallory")), BorderRefusal::kWrongSender);
  v1::Relay m;
  const auto edited = [&](const std::function<void(v1::Relay&)>& edit) {
    EXPECT_TRUE(m.ParseFromString(Encoded(move, "west")));
    edit(m);
    return refusal(m.SerializeAsString());
  };
  EXPECT_EQ(edited([](v1::Relay& r) { r.set_version(kClusterProtocolVersion + 1); }),
            BorderRefusal::kVersion);
  EXPECT_EQ(edited([](v1::Relay& r) { r.set_zone_id(2); }), BorderRefusal::kNotSplit)
      << "a zone the world does not split";
  EXPECT_EQ(edited([](v1::Relay& r) { r.set_home_cell(2); }), BorderRefusal::kNotSplit);
  EXPECT_EQ(edited([](v1::Relay& r) { r.set_to_cell(5); }), BorderRefusal::kNotSplit);
  EXPECT_EQ(edited([](v1::Relay& r) { r.set_session(0); }), BorderRefusal::kUnparsable);
  EXPECT_EQ(edited([](v1::Relay& r) { r.set_session(host::kMaxRelayedSession + 1); }),
            BorderRefusal::kUnparsable);
  EXPECT_EQ(edited([](v1::Relay& r) { r.clear_input(); }), BorderRefusal::kUnparsable)
      << "nothing in it";
  EXPECT_EQ(edited([](v1::Relay& r) {
              r.mutable_input()->mutable_move()->set_x(std::numeric_limits<float>::quiet_NaN());
            }),
            BorderRefusal::kUnparsable);
  EXPECT_EQ(edited([](v1::Relay& r) {
              r.mutable_input()->mutable_chat()->set_channel(1);
              r.mutable_input()->mutable_chat()->set_text_ok(true);
              r.mutable_input()->mutable_chat()->set_text("bell\a");
            }),
            BorderRefusal::kUnparsable)
      << "a control character";
  EXPECT_EQ(edited([](v1::Relay& r) {
              r.mutable_input()->mutable_chat()->set_channel(4);
              r.mutable_input()->mutable_chat()->set_text_ok(true);
              r.mutable_input()->mutable_chat()->set_text("hi");
            }),
            BorderRefusal::kUnparsable)
      << "no such channel";
  EXPECT_EQ(edited([](v1::Relay& r) { r.mutable_input()->mutable_refused()->set_outcome(99); }),
            BorderRefusal::kUnparsable);
  EXPECT_EQ(edited([](v1::Relay& r) {
              r.mutable_frame()->set_frame(
                  "\x05"
                  "abc");  // says 5 bytes, has 3
              r.mutable_frame()->set_kind(v1::RELAY_FRAME_KIND_TICK);
            }),
            BorderRefusal::kUnparsable)
      << "a frame whose length prefix lies";
  EXPECT_EQ(edited([](v1::Relay& r) {
              r.mutable_frame()->set_frame(Frame("ok"));
              r.mutable_frame()->set_kind(v1::RELAY_FRAME_KIND_UNSPECIFIED);
            }),
            BorderRefusal::kUnparsable)
      << "no frame kind";
  EXPECT_EQ(edited([](v1::Relay& r) {
              r.mutable_frame()->set_frame(Frame("ok"));
              r.mutable_frame()->set_kind(v1::RELAY_FRAME_KIND_TICK);
            }),
            BorderRefusal::kUnparsable)
      << "a tick frame without its tick";
  EXPECT_EQ(edited([](v1::Relay& r) { r.mutable_frame()->set_kind(v1::RELAY_FRAME_KIND_TICK); }),
            BorderRefusal::kUnparsable)
      << "an empty frame that closes nothing";

  // Held notices: from the home itself, no session of their own, 1 .. kMaxHeldSessions good
  // sessions.
  const auto held = [&](const std::function<void(v1::Relay&)>& edit) {
    return edited([&](v1::Relay& r) {
      r.set_session(0);
      r.mutable_held()->add_sessions(7);
      edit(r);
    });
  };
  EXPECT_EQ(held([](v1::Relay&) {}), std::nullopt) << "the good one";
  EXPECT_EQ(held([](v1::Relay& r) { r.set_session(7); }), BorderRefusal::kUnparsable);
  EXPECT_EQ(held([](v1::Relay& r) { r.set_home_cell(1); }), BorderRefusal::kUnparsable)
      << "a held notice for another home";
  EXPECT_EQ(held([](v1::Relay& r) { r.mutable_held()->clear_sessions(); }),
            BorderRefusal::kUnparsable)
      << "no session";
  EXPECT_EQ(held([](v1::Relay& r) { r.mutable_held()->add_sessions(0); }),
            BorderRefusal::kUnparsable);
  EXPECT_EQ(
      held([](v1::Relay& r) { r.mutable_held()->add_sessions(host::kMaxRelayedSession + 1); }),
      BorderRefusal::kUnparsable);
  EXPECT_EQ(held([](v1::Relay& r) {
              for (size_t i = 0; i < kMaxHeldSessions; ++i) r.mutable_held()->add_sessions(i + 1);
            }),
            BorderRefusal::kUnparsable)
      << "one more than kMaxHeldSessions";
}

// A client's connection, as its home's runner holds it: what it was sent.
class RecordingSink final : public host::SessionSink {
 public:
  void DeliverFrame(std::string_view frame, host::FrameKind kind) override {
    const std::lock_guard lock(mu_);
    frames_.emplace_back(frame);
    kinds_.push_back(kind);
  }
  void CloseWith(std::string last_frame, host::CloseReason reason) override {
    const std::lock_guard lock(mu_);
    frames_.push_back(std::move(last_frame));
    closed_ = reason;
  }
  [[nodiscard]] uint32_t ProtocolVersion() const override { return wire::kProtocolVersion; }
  size_t frames() {
    const std::lock_guard lock(mu_);
    return frames_.size();
  }
  std::string frame(size_t i) {
    const std::lock_guard lock(mu_);
    return frames_.at(i);
  }
  host::FrameKind kind(size_t i) {
    const std::lock_guard lock(mu_);
    return kinds_.at(i);
  }
  std::optional<host::CloseReason> closed() {
    const std::lock_guard lock(mu_);
    return closed_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> frames_;
  std::vector<host::FrameKind> kinds_;
  std::optional<host::CloseReason> closed_;
};

// What a node's runners would get from the relay: (zone, session key, input or leaving).
struct Relayed {
  std::mutex mu;
  std::vector<std::tuple<uint32_t, host::SessionKey, std::optional<host::ClientInput>>> got;
  RelayLink::Sink sink() {
    return [this](uint32_t zone, host::SessionKey session, std::optional<host::ClientInput> in) {
      const std::lock_guard lock(mu);
      got.emplace_back(zone, session, std::move(in));
    };
  }
  size_t size() {
    const std::lock_guard lock(mu);
    return got.size();
  }
};

// Two nodes of TestWorld's split zone on a real nats-server: the west (cell 0) and the east
// (cell 1), each listening to its cell with a relay link (no batches here).
class RelayLinks : public ::testing::Test {
 protected:
  RelayLinks() {
    const BorderLink::Sink no_batches = [](const host::BorderBatch&) {};
    west_.Listen(1, 0, no_batches, &west_relay_);
    east_.Listen(1, 1, no_batches, &east_relay_);
  }
  ~RelayLinks() override {
    east_bus_.Close();  // before the links their handlers use
    west_bus_.Close();
  }

  test::NatsServer server_;
  const zone::WorldConfig world_ = zone::testing::SplitInTwo();
  NatsBus west_bus_{test::FastBusOptions(server_, "west")};
  NatsBus east_bus_{test::FastBusOptions(server_, "east")};
  host::RelayCounters west_counters_, east_counters_;
  host::BorderCounters west_border_, east_border_;
  host::CellChatCounters west_chat_, east_chat_;
  Relayed at_west_, at_east_;
  RelayLink west_relay_{west_bus_, world_, "west", west_counters_, at_west_.sink()};
  RelayLink east_relay_{east_bus_, world_, "east", east_counters_, at_east_.sink()};
  BorderLink west_{west_bus_, world_, {.node = "west", .epoch = 10}, west_border_, west_chat_};
  BorderLink east_{east_bus_, world_, {.node = "east", .epoch = 20}, east_border_, east_chat_};
};

TEST_F(RelayLinks, CarriesAClientsInputsToItsPlayersOwnerAndTheFramesBack) {
  // Wes, session 7 at the west, walked into the east's cell.
  const auto wes = std::make_shared<RecordingSink>();
  west_relay_.Away(7, wes, {.zone_id = 1, .cell = 1});
  const host::ClientInput move = zone::PlayerInput{zone::MoveInput{.seq = 5, .direction = {1, 0}}};
  west_relay_.FromHome(7, &move);
  ASSERT_TRUE(test::WaitFor([&] { return at_east_.size() == 1; }, milliseconds(5000)));
  {
    const std::lock_guard lock(at_east_.mu);
    const auto& [zone, session, input] = at_east_.got[0];
    EXPECT_EQ(zone, 1u);
    EXPECT_EQ(session, host::SessionKey::Relayed(0, 7)) << "filed under the west's session 7";
    ASSERT_TRUE(input.has_value());
    EXPECT_EQ(std::get<zone::MoveInput>(std::get<zone::PlayerInput>(*input)).seq, 5u);
  }

  // The east's frames for him reach his connection unchanged, in order.
  const std::shared_ptr<host::SessionSink> to_wes = east_relay_.SinkAtHome(
      {.zone = 1, .to_cell = 0, .home_cell = 0, .session = 7}, wire::kProtocolVersion);
  to_wes->DeliverFrame(TickFrame(1), host::FrameKind::kTick);
  to_wes->DeliverFrame(TickFrame(2), host::FrameKind::kResyncTick);
  to_wes->DeliverFrame(TickFrame(2), host::FrameKind::kTick);  // a replay: not newer
  ASSERT_TRUE(test::WaitFor([&] { return wes->frames() == 2; }, milliseconds(5000)));
  EXPECT_EQ(wes->frame(0), TickFrame(1));
  EXPECT_EQ(wes->frame(1), TickFrame(2));
  EXPECT_EQ(wes->kind(1), host::FrameKind::kResyncTick);

  // A close from the owner closes his connection with the owner's reason.
  to_wes->CloseWith(Frame("kick"), host::CloseReason::kLoggedInElsewhere);
  ASSERT_TRUE(test::WaitFor([&] { return wes->closed().has_value(); }, milliseconds(5000)));
  EXPECT_EQ(*wes->closed(), host::CloseReason::kLoggedInElsewhere);
  EXPECT_EQ(west_counters_.stale.value(), 1u) << "the replayed tick 2 was dropped";

  // He is gone from the west: a frame for him is answered with his leaving, so the east lets
  // his player go.
  west_relay_.Back(7);
  to_wes->DeliverFrame(TickFrame(3), host::FrameKind::kTick);
  ASSERT_TRUE(test::WaitFor([&] { return at_east_.size() == 2; }, milliseconds(5000)));
  {
    const std::lock_guard lock(at_east_.mu);
    EXPECT_EQ(std::get<1>(at_east_.got[1]), host::SessionKey::Relayed(0, 7));
    EXPECT_FALSE(std::get<2>(at_east_.got[1]).has_value()) << "a leaving";
  }
  EXPECT_EQ(west_counters_.orphaned.value(), 1u);
  EXPECT_EQ(wes->frames(), 3u) << "the frame went nowhere";

  // Bytes from a node that does not own the cell it claims, and garbage.
  NatsBus mallory(test::FastBusOptions(server_, "mallory"));
  ASSERT_EQ(mallory.Publish(RelaySubject(1, 1), Encoded(InputFromWest(move), "mallory")),
            BusStatus::kOk);
  ASSERT_EQ(mallory.Publish(RelaySubject(1, 1), "garbage"), BusStatus::kOk);
  const auto refused = [&](BorderRefusal r) {
    return east_counters_.refusals[static_cast<size_t>(r)].value();
  };
  ASSERT_TRUE(test::WaitFor(
      [&] {
        return refused(BorderRefusal::kWrongSender) == 1 &&
               refused(BorderRefusal::kUnparsable) == 1;
      },
      milliseconds(5000)));
  EXPECT_EQ(at_east_.size(), 2u) << "neither reached the runners";
  EXPECT_GT(east_counters_.in.value(), 0u);
  EXPECT_GT(west_counters_.out.value(), 0u);
}

TEST_F(RelayLinks, AnOwnerCountsTheHomesNoticesOfThePlayersItRelaysFor) {
  // Sessions 7 and 8 at the west walked into the east's cell; the east relays for 7 only (8's
  // player is let go there, its sink dropped). Session 9 is not away.
  const auto c7 = std::make_shared<RecordingSink>();
  const auto c8 = std::make_shared<RecordingSink>();
  west_relay_.Away(7, c7, {.zone_id = 1, .cell = 1});
  west_relay_.Away(8, c8, {.zone_id = 1, .cell = 1});
  const host::SessionKey key7 = host::SessionKey::Relayed(0, 7);
  const host::SessionKey key8 = host::SessionKey::Relayed(0, 8);
  std::shared_ptr<host::SessionSink> to7 = east_relay_.SinkAtHome(
      {.zone = 1, .to_cell = 0, .home_cell = 0, .session = 7}, wire::kProtocolVersion);
  EXPECT_EQ(east_relay_.HomeNotices(1, key7), 0u);
  const std::vector<uint64_t> held = {7, 8, 9};
  west_relay_.Hold(held);
  west_relay_.Hold(held);
  ASSERT_TRUE(
      test::WaitFor([&] { return east_relay_.HomeNotices(1, key7) == 2; }, milliseconds(5000)));
  EXPECT_EQ(east_relay_.HomeNotices(1, key8), 0u) << "no sink for it: not counted, not kept";
  EXPECT_EQ(west_counters_.out.value(), 2u) << "one notice per owner, not per session";

  // Notices from a node that is not the west are refused before they count.
  NatsBus mallory(test::FastBusOptions(server_, "mallory"));
  ASSERT_EQ(
      mallory.Publish(RelaySubject(1, 1), Encoded({.to = {.zone = 1, .to_cell = 1, .home_cell = 0},
                                                   .from_cell = 0,
                                                   .what = RelayMessage::What::kHeld,
                                                   .sessions = {7}},
                                                  "mallory")),
      BusStatus::kOk);
  ASSERT_TRUE(test::WaitFor(
      [&] {
        return east_counters_.refusals[static_cast<size_t>(BorderRefusal::kWrongSender)].value() ==
               1;
      },
      milliseconds(5000)));
  EXPECT_EQ(east_relay_.HomeNotices(1, key7), 2u) << "the forger's notice did not count";
  // A second sink for the same player (it came back to the east) before the first is dropped:
  // the count goes on; once both are gone, nothing is kept.
  std::shared_ptr<host::SessionSink> again = east_relay_.SinkAtHome(
      {.zone = 1, .to_cell = 0, .home_cell = 0, .session = 7}, wire::kProtocolVersion);
  EXPECT_EQ(east_relay_.HomeNotices(1, key7), 2u);
  to7.reset();
  EXPECT_EQ(east_relay_.HomeNotices(1, key7), 2u) << "the second sink lives";
  again.reset();
  EXPECT_EQ(east_relay_.HomeNotices(1, key7), 0u) << "both gone: forgotten";

  EXPECT_EQ(at_east_.size(), 0u) << "a notice is no input";
}

}  // namespace
}  // namespace zs::cluster
