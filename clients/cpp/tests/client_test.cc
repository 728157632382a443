// The Client's state machine (zs_client/client.h, connection.h) on a scripted transport and a
// fake clock: login over TCP and WebSocket, reconnects with backoff that resume the same
// character, hand-offs over TCP and WebSocket, typed errors for every limit and for the server's
// Error and Kick, skill results (accepted, lost, timed out), silence and Resume.
#include "zs_client/client.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "zone.pb.h"
#include "zs_client/framing.h"

namespace zs::client {
namespace {

namespace pb = zone::v1;

// Carries out the client's actions in memory and records what was sent.
class FakeTransport : public ClientListener {
 public:
  explicit FakeTransport(Client* c) : client(c) { c->set_listener(this); }

  void Take() {
    for (const Action& a : client->TakeActions()) {
      if (a.kind == ActionKind::kDial) {
        dials.push_back(a.dial.url);
        link = a.link;
      } else if (a.kind == ActionKind::kClose) {
        closed_links.push_back(a.link);
      } else {
        std::span<const uint8_t> body = a.bytes;
        FrameDecoder d(1 << 20);
        if (!client->connection().websocket()) {
          d.Feed(a.bytes);
          body = *d.Next();
        }
        pb::ClientMessage m;
        EXPECT_TRUE(m.ParseFromArray(body.data(), static_cast<int>(body.size())));
        sent.push_back(m);
      }
    }
  }
  void Deliver(const pb::ServerMessage& m, double now) {
    const std::string body = m.SerializeAsString();
    const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(body.data()),
                                         body.size());
    if (client->connection().websocket()) {
      client->OnMessage(link, bytes, now);
    } else {
      std::vector<uint8_t> framed;
      AppendFrame(bytes, &framed);
      client->OnBytes(link, framed, now);
    }
    Take();
  }
  void Close(double now, const CloseInfo& info = {}) {
    client->OnClosed(link, info, now);
    Take();
  }
  void Poll(double now) {
    client->Poll(now);
    Take();
  }
  const pb::ClientMessage* Last(pb::ClientMessage::KindCase kind) const {
    for (auto it = sent.rbegin(); it != sent.rend(); ++it) {
      if (it->kind_case() == kind) return &*it;
    }
    return nullptr;
  }

  void OnState(State to, State /*from*/, CloseReason reason, const Status& error) override {
    states.push_back(to);
    last_reason = reason;
    last_error = error;
  }
  void OnEvent(const Event& e) override { events.push_back(e); }

  Client* client;
  uint64_t link = 0;
  std::vector<std::string> dials;
  std::vector<uint64_t> closed_links;
  std::vector<pb::ClientMessage> sent;
  std::vector<State> states;
  CloseReason last_reason = CloseReason::kNone;
  Status last_error;
  std::vector<Event> events;
};

pb::ServerMessage WelcomeMsg(uint64_t tick = 100) {
  pb::ServerMessage m;
  pb::Welcome* w = m.mutable_welcome();
  w->set_protocol_version(10);
  w->set_entity_id(5);
  w->set_zone_id(1);
  w->set_zone_name("plaza");
  w->set_zone_max_x(40000);
  w->set_zone_max_y(40000);
  w->set_tick_rate(20);
  w->set_server_tick(tick);
  w->set_x(1000);
  w->set_y(1000);
  w->mutable_you()->set_hp(100);
  w->mutable_you()->set_speed(400);
  pb::SkillInfo* s = w->mutable_you()->add_skills();
  s->set_id(1);
  s->set_cooldown_ms(500);
  return m;
}

pb::ServerMessage TickMsg(uint64_t tick, uint32_t last_seq) {
  pb::ServerMessage m;
  m.mutable_tick()->set_tick(tick);
  m.mutable_tick()->set_last_input_seq(last_seq);
  return m;
}

pb::ServerMessage KickMsg(const std::string& reason) {
  pb::ServerMessage m;
  m.mutable_kick()->set_reason(reason);
  return m;
}

ClientOptions Options(const std::string& url) {
  ClientOptions o;
  o.url = url;
  o.name = "Aria";
  o.random = [] { return 0.0; };  // backoff = half the nominal delay
  return o;
}

// Logs in over `url`; returns at time 0 in the world.
void LogIn(FakeTransport* t, const std::string& url, const std::string& subprotocol = "") {
  ASSERT_TRUE(t->client->Connect(Options(url), 0).ok());
  t->Take();
  ASSERT_EQ(t->client->state(), State::kConnecting);
  t->client->OnConnected(t->link, subprotocol, 0);
  t->Take();
  ASSERT_EQ(t->client->state(), State::kHandshaking);
  t->Deliver(WelcomeMsg(), 0);
  ASSERT_EQ(t->client->state(), State::kInWorld);
}

TEST(ClientStateMachine, LogsInOverTcpWithItsNameAndPings) {
  Client c;
  FakeTransport t(&c);
  LogIn(&t, "tcp://127.0.0.1:7777");
  ASSERT_EQ(t.dials, std::vector<std::string>{"tcp://127.0.0.1:7777"});
  const pb::ClientMessage* hello = t.Last(pb::ClientMessage::kHello);
  ASSERT_NE(hello, nullptr);
  EXPECT_EQ(hello->hello().player_name(), "Aria");
  EXPECT_EQ(hello->hello().protocol_version(), 10U);
  EXPECT_EQ(c.self_id(), 5U);
  t.Poll(1);
  ASSERT_NE(t.Last(pb::ClientMessage::kPing), nullptr);
  pb::ServerMessage pong;
  pong.mutable_pong()->set_client_time(1);
  pong.mutable_pong()->set_server_time_ms(100'000);
  t.Deliver(pong, 21);
  t.Poll(21);
  EXPECT_DOUBLE_EQ(c.stats().rtt_last_ms, 20);
  // The Welcome's sample (a round trip of 0 here) is the least queued: its offset stays.
  EXPECT_DOUBLE_EQ(c.clock().offset(), 0);
  EXPECT_EQ(c.clock().pongs(), 1U);
}

// ConnectionOptions::parse_block_bytes 0 (a program with thousands of clients): frames parse
// from the heap, the same as from the kept block.
TEST(ClientStateMachine, WithoutAParseBlockFramesParseAllTheSame) {
  Client c;
  FakeTransport t(&c);
  ClientOptions options = Options("tcp://127.0.0.1:7777");
  options.parse_block_bytes = 0;
  ASSERT_TRUE(c.Connect(options, 0).ok());
  t.Take();
  c.OnConnected(t.link, "", 0);
  t.Take();
  t.Deliver(WelcomeMsg(), 0);
  ASSERT_EQ(c.state(), State::kInWorld);
  EXPECT_EQ(c.self_id(), 5U);
}

TEST(ClientStateMachine, OverWebSocketItSpeaksTheAcceptedSubprotocol) {
  Client c;
  FakeTransport t(&c);
  ASSERT_TRUE(c.Connect(Options("ws://127.0.0.1:7778/"), 0).ok());
  t.Take();
  c.OnConnected(t.link, "zone.v9", 0);
  t.Take();
  EXPECT_EQ(t.Last(pb::ClientMessage::kHello)->hello().protocol_version(), 9U);

  Client old;  // a server that accepts no version we speak
  FakeTransport t2(&old);
  ASSERT_TRUE(old.Connect(Options("ws://127.0.0.1:7778/"), 0).ok());
  t2.Take();
  old.OnConnected(t2.link, "zone.v8", 0);
  t2.Take();
  t2.Close(1);
  EXPECT_EQ(old.state(), State::kClosed);
  EXPECT_EQ(old.close_reason(), CloseReason::kProtocolVersion);
  EXPECT_EQ(old.close_error().code, ErrorCode::kProtocolVersion);
}

TEST(ClientStateMachine, ReconnectsWithGrowingBackoffAsTheSameCharacter) {
  Client c;
  FakeTransport t(&c);
  LogIn(&t, "tcp://127.0.0.1:7777");
  (void)c.Move(1, 0, 0);
  t.Take();
  t.Close(100, CloseInfo{.websocket_code = 0, .reason = "reset", .http_status = 0});
  EXPECT_EQ(c.state(), State::kReconnecting);
  EXPECT_EQ(t.last_error.code, ErrorCode::kConnectionLost);
  t.Poll(149);  // backoff: 100 ms nominal, half with random() = 0
  EXPECT_EQ(t.dials.size(), 1U);
  t.Poll(150);
  ASSERT_EQ(t.dials.size(), 2U);
  t.Close(160);  // refused: the second attempt waits twice as long
  t.Poll(259);
  EXPECT_EQ(t.dials.size(), 2U);
  t.Poll(260);
  ASSERT_EQ(t.dials.size(), 3U);
  c.OnConnected(t.link, "", 270);
  t.Take();
  EXPECT_EQ(t.Last(pb::ClientMessage::kHello)->hello().player_name(), "Aria");
  const size_t moves_before = t.sent.size();
  t.Deliver(WelcomeMsg(), 280);
  EXPECT_EQ(c.state(), State::kInWorld);
  EXPECT_EQ(c.stats().reconnects, 1U);
  ASSERT_GT(t.sent.size(), moves_before);  // the direction asked for is sent again
  EXPECT_FLOAT_EQ(t.Last(pb::ClientMessage::kMove)->move().direction_x(), 1);
  EXPECT_EQ(t.states, (std::vector<State>{State::kConnecting, State::kHandshaking, State::kInWorld,
                                          State::kReconnecting, State::kInWorld}));
}

TEST(ClientStateMachine, FollowsAHandOffOverTcpByItself) {
  Client c;
  FakeTransport t(&c);
  LogIn(&t, "tcp://127.0.0.1:7777");
  const uint64_t first = t.link;
  pb::ServerMessage z;
  z.mutable_zone_changed()->set_zone_id(2);
  z.mutable_zone_changed()->set_server_address("127.0.0.1:7800");
  z.mutable_zone_changed()->set_ticket("T1");
  z.mutable_zone_changed()->set_websocket_url("ws://127.0.0.1:7801/");
  t.Deliver(z, 10);
  EXPECT_EQ(c.state(), State::kHandingOff);
  EXPECT_EQ(t.closed_links, std::vector<uint64_t>{first});
  ASSERT_EQ(t.dials.back(), "tcp://127.0.0.1:7800");
  c.OnConnected(t.link, "", 20);
  t.Take();
  EXPECT_EQ(t.Last(pb::ClientMessage::kHello)->hello().ticket(), "T1");
  EXPECT_EQ(t.Last(pb::ClientMessage::kHello)->hello().player_name(), "");
  t.Deliver(WelcomeMsg(7), 30);
  EXPECT_EQ(c.state(), State::kInWorld);
  EXPECT_EQ(c.stats().handoffs, 1U);
  EXPECT_EQ(c.connection().current_url(), "tcp://127.0.0.1:7800");
}

TEST(ClientStateMachine, FollowsAHandOffOverWebSocketToItsUrlOrFailsTypedWithoutOne) {
  Client c;
  FakeTransport t(&c);
  LogIn(&t, "ws://127.0.0.1:7778/", "zone.v10");
  pb::ServerMessage z;
  z.mutable_zone_changed()->set_server_address("127.0.0.1:7800");
  z.mutable_zone_changed()->set_ticket("T2");
  z.mutable_zone_changed()->set_websocket_url("ws://127.0.0.1:7801/door");
  t.Deliver(z, 10);
  ASSERT_EQ(t.dials.back(), "ws://127.0.0.1:7801/door");
  c.OnConnected(t.link, "zone.v10", 20);
  t.Take();
  EXPECT_EQ(t.Last(pb::ClientMessage::kHello)->hello().ticket(), "T2");
  t.Deliver(WelcomeMsg(), 30);
  EXPECT_EQ(c.stats().handoffs, 1U);

  z.mutable_zone_changed()->clear_websocket_url();  // a node without a WebSocket door
  t.Deliver(z, 40);
  t.Deliver(KickMsg("zone_handoff"), 41);
  t.Close(42);
  EXPECT_EQ(c.state(), State::kClosed);
  EXPECT_EQ(c.close_reason(), CloseReason::kHandoffFailed);
  EXPECT_EQ(c.close_error().code, ErrorCode::kNoWebsocketAddress);
}

TEST(ClientStateMachine, EveryLimitIsATypedErrorBeforeSending) {
  Client c;
  FakeTransport t(&c);
  EXPECT_EQ(c.Chat("hi", pb::CHAT_CHANNEL_SAY, "", 0).status.code, ErrorCode::kNotInWorld);
  ClientOptions long_name = Options("tcp://h:1");
  long_name.name = std::string(33, 'a');
  EXPECT_EQ(c.Connect(long_name, 0).code, ErrorCode::kBadName);
  EXPECT_EQ(c.Connect(Options("http://h:1"), 0).code, ErrorCode::kTransportUnsupported);
  LogIn(&t, "tcp://127.0.0.1:7777");
  const Status too_long = c.Chat(std::string(257, 'a'), pb::CHAT_CHANNEL_SAY, "", 0).status;
  EXPECT_EQ(too_long.code, ErrorCode::kChatTooLong);
  EXPECT_EQ(too_long.limit, 256U);
  EXPECT_EQ(c.Chat("", pb::CHAT_CHANNEL_SAY, "", 0).status.code, ErrorCode::kBadText);
  EXPECT_EQ(c.Chat("a\nb", pb::CHAT_CHANNEL_SAY, "", 0).status.code, ErrorCode::kBadText);
  EXPECT_EQ(c.Chat("\xC3(", pb::CHAT_CHANNEL_SAY, "", 0).status.code, ErrorCode::kBadText);
  EXPECT_EQ(c.Chat("hi", pb::CHAT_CHANNEL_WHISPER, "", 0).status.code, ErrorCode::kInvalidArgument);
  const Status frame = c.Chat("hi", pb::CHAT_CHANNEL_WHISPER, std::string(70'000, 'b'), 0).status;
  EXPECT_EQ(frame.code, ErrorCode::kFrameTooLarge);
  EXPECT_EQ(frame.limit, kDefaultMaxFrameBytes);
  EXPECT_EQ(c.Move(std::nan(""), 0, 0).status.code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(c.UseSkill(9, 0, std::nullopt, 0).status.code, ErrorCode::kUnknownSkill);
  EXPECT_EQ(c.UseSkill(1, 70000, std::nullopt, 0).status.code, ErrorCode::kInvalidArgument);
  t.Take();
  EXPECT_EQ(t.Last(pb::ClientMessage::kChat), nullptr);  // nothing refused was sent
}

TEST(ClientStateMachine, TheServersErrorsAndKicksAreTypedAndFinalOnesClose) {
  Client c;
  FakeTransport t(&c);
  ASSERT_TRUE(c.Connect(Options("tcp://127.0.0.1:7777"), 0).ok());
  t.Take();
  c.OnConnected(t.link, "", 0);
  t.Take();
  pb::ServerMessage error;
  error.mutable_error()->set_code(pb::ERROR_CODE_BAD_NAME);
  error.mutable_error()->set_message("not valid UTF-8");
  t.Deliver(error, 1);
  t.Close(2);
  EXPECT_EQ(c.state(), State::kClosed);
  EXPECT_EQ(c.close_reason(), CloseReason::kServerError);
  EXPECT_EQ(c.close_error().code, ErrorCode::kServerError);
  EXPECT_EQ(c.close_error().server_code, pb::ERROR_CODE_BAD_NAME);
  ASSERT_FALSE(t.events.empty());
  EXPECT_TRUE(std::holds_alternative<ErrorEvent>(t.events.back()));

  Client shut;  // a shutdown is retried, an idle kick is not
  FakeTransport t2(&shut);
  LogIn(&t2, "tcp://127.0.0.1:7777");
  t2.Deliver(KickMsg("shutdown"), 1);
  t2.Close(2);
  EXPECT_EQ(shut.state(), State::kReconnecting);
  EXPECT_EQ(t2.last_reason, CloseReason::kShutdown);
  EXPECT_EQ(t2.last_error.code, ErrorCode::kKicked);
  t2.Poll(100);
  shut.OnConnected(t2.link, "", 101);
  t2.Take();
  t2.Deliver(WelcomeMsg(), 102);
  t2.Deliver(KickMsg("idle"), 200);
  t2.Close(201);
  EXPECT_EQ(shut.state(), State::kClosed);
  EXPECT_EQ(shut.close_reason(), CloseReason::kIdle);
}

TEST(ClientStateMachine, SkillResultsResolveTheirCallbacks) {
  Client c;
  FakeTransport t(&c);
  LogIn(&t, "tcp://127.0.0.1:7777");
  std::vector<InputOutcome> heard;
  const auto keep = [&](const InputOutcome& o) { heard.push_back(o); };
  const InputHandle h = c.UseSkill(1, 16384, std::nullopt, 10, keep);
  ASSERT_TRUE(h.status.ok());
  t.Take();
  EXPECT_EQ(t.Last(pb::ClientMessage::kSkill)->skill().facing(), 16384U);
  pb::ServerMessage frame = TickMsg(101, h.seq);
  pb::InputResult* r = frame.mutable_tick()->add_results();
  r->set_kind(pb::INPUT_KIND_SKILL);
  r->set_seq(h.seq);
  r->set_outcome(pb::OUTCOME_ACCEPTED);
  t.Deliver(frame, 60);
  ASSERT_EQ(heard.size(), 1U);
  EXPECT_TRUE(heard[0].accepted);
  EXPECT_GT(*c.CooldownLeft(1, 60), 400);  // the cooldown runs from the result
  EXPECT_EQ(c.UseSkill(1, 0, std::nullopt, 60).status.code, ErrorCode::kSkillOnCooldown);

  const InputHandle lost = c.UseSkill(1, 0, std::nullopt, 700, keep);
  t.Deliver(TickMsg(102, lost.seq), 750);  // acknowledged, its result in a dropped frame
  ASSERT_EQ(heard.size(), 2U);
  EXPECT_EQ(heard[1].error.code, ErrorCode::kResultLost);

  const InputHandle late = c.UseSkill(1, 0, std::nullopt, 1400, keep);
  ASSERT_TRUE(late.status.ok());
  t.Deliver(TickMsg(103, lost.seq), 1450);
  t.Deliver(TickMsg(104, lost.seq), 6390);
  t.Poll(6400);  // no result in 5 s
  ASSERT_EQ(heard.size(), 3U);
  EXPECT_EQ(heard[2].error.code, ErrorCode::kResultTimeout);
}

TEST(ClientStateMachine, SilenceReconnectsAtOnceAndResumeProbes) {
  Client c;
  FakeTransport t(&c);
  LogIn(&t, "tcp://127.0.0.1:7777");
  t.Deliver(TickMsg(101, 0), 1000);
  c.Resume(1100);  // foreground: a ping now, and an answer expected within the probe time
  t.Take();
  EXPECT_EQ(t.Last(pb::ClientMessage::kPing)->ping().client_time(), 1100U);
  t.Poll(2599);
  EXPECT_EQ(c.state(), State::kInWorld);
  t.Poll(2600);  // nothing since the probe
  EXPECT_EQ(c.state(), State::kReconnecting);
  t.Poll(2600);  // at once, not after a backoff
  EXPECT_EQ(t.dials.size(), 2U);
}

TEST(ClientStateMachine, HostileBytesEndTheLinkWithATypedError) {
  Client c;
  FakeTransport t(&c);
  LogIn(&t, "tcp://127.0.0.1:7777");
  const std::vector<uint8_t> bad = {0xFF, 0xFF, 0xFF, 0xFF, 0x7F};
  c.OnBytes(t.link, bad, 5);
  t.Take();
  EXPECT_EQ(c.state(), State::kReconnecting);
  EXPECT_EQ(t.last_error.code, ErrorCode::kDecodeFailed);
  t.Poll(100);
  c.OnConnected(t.link, "", 100);
  t.Take();
  std::vector<uint8_t> huge;
  AppendVarint(static_cast<uint32_t>(kMaxInboundFrameBytes + 1), &huge);
  c.OnBytes(t.link, huge, 101);
  t.Take();
  EXPECT_EQ(c.connection().last_failure().code, ErrorCode::kInboundFrameTooLarge);
}

TEST(ClientStateMachine, CloseLogsOutAndEndsWithTheServersKick) {
  Client c;
  FakeTransport t(&c);
  LogIn(&t, "tcp://127.0.0.1:7777");
  c.Close(10);
  t.Take();
  ASSERT_NE(t.Last(pb::ClientMessage::kLogout), nullptr);
  t.Deliver(KickMsg("logout"), 20);
  t.Close(21);
  EXPECT_EQ(c.state(), State::kClosed);
  EXPECT_EQ(c.close_reason(), CloseReason::kLogout);
  EXPECT_TRUE(c.close_error().ok());
}

}  // namespace
}  // namespace zs::client
