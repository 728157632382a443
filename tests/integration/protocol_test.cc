// Protocol 3 end to end, as a client author sees it: what Welcome says about your character,
// names on enter, no id 0 anywhere, chat on every channel, per-input results, Pong's clock,
// Kick frames for logout and for a stuck reader, BAD_NAME for a name that is not UTF-8.
#include <gtest/gtest.h>

#include <chrono>
#include <map>

#include "integration/harness.h"

namespace zs::integration {
namespace {

std::string Bytes(const pb::ClientMessage& m) { return m.SerializeAsString(); }

// Reads ticks for `seconds`, collecting chat lines and input results.
struct Collected {
  std::vector<pb::ChatLine> chat;
  std::vector<pb::InputResult> results;
  std::vector<pb::EntityEnter> entered;
  bool zero_id = false;
};
void Collect(TestClient& c, double seconds, Collected* out) {
  const double end = NowS() + seconds;
  while (NowS() < end) {
    auto m = c.Read(end - NowS());
    if (!m || !m->has_tick()) continue;
    const pb::TickUpdate& t = m->tick();
    for (const auto& l : t.chat()) out->chat.push_back(l);
    for (const auto& r : t.results()) out->results.push_back(r);
    for (const auto& e : t.entered()) {
      out->entered.push_back(e);
      out->zero_id |= e.id() == 0;
    }
    for (const auto& u : t.updated()) out->zero_id |= u.id() == 0;
    for (const uint32_t id : t.left()) out->zero_id |= id == 0;
    for (const auto& h : t.hits()) {
      out->zero_id |= h.attacker() == 0;
      for (const auto& target : h.targets()) out->zero_id |= target.id() == 0;
    }
    out->zero_id |= t.self().id() == 0;
  }
}

TEST(Protocol3, WelcomeDescribesYouAndEnterCarriesNames) {
  ServerProcess server;
  TestClient aria(server.port()), bo(server.port());
  const auto welcome = aria.Login("Aria");
  ASSERT_TRUE(welcome.has_value());
  EXPECT_NE(welcome->entity_id(), 0u);
  EXPECT_EQ(welcome->player_name(), "Aria");
  EXPECT_EQ(welcome->you().max_hp(), 100);
  EXPECT_EQ(welcome->you().hp(), 100);
  EXPECT_EQ(welcome->you().radius(), 50u);
  EXPECT_EQ(welcome->you().speed(), 4000u);  // the test world's 40 m/s
  EXPECT_EQ(welcome->you().skills_size(), 4);
  EXPECT_GT(welcome->you().view_radius(), 0u);
  EXPECT_GT(welcome->chat_radius(), 0u);
  EXPECT_GT(welcome->monster_templates_size(), 0);
  EXPECT_FALSE(welcome->monster_templates(0).name().empty());
  const auto wall_ms =
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count());
  EXPECT_NEAR(static_cast<double>(welcome->server_time_ms()), static_cast<double>(wall_ms), 5000);
  ASSERT_TRUE(bo.Login("Bo").has_value());
  Collected seen;
  Collect(aria, 1.0, &seen);
  bool bo_named = false;
  for (const auto& e : seen.entered) {
    if (e.kind() == pb::ENTITY_KIND_PLAYER && e.name() == "Bo") bo_named = true;
  }
  EXPECT_TRUE(bo_named) << "Bo's name arrives with Bo";
  EXPECT_FALSE(seen.zero_id) << "no id on the wire is 0";
}

// A chat line that is not UTF-8 (which protobuf refuses in a string field) is BAD_TEXT like any
// other bad line, and the connection goes on: the next line is accepted.
TEST(Protocol3, AChatLineThatIsNotUtf8IsBadTextAndTheConnectionStays) {
  ServerProcess server;
  TestClient aria(server.port());
  ASSERT_TRUE(aria.Login("Aria").has_value());
  std::string line = Bytes(ChatMessage(1, pb::CHAT_CHANNEL_SAY, "TEXT"));
  line.replace(line.find("TEXT"), 4, "\xff\xfe\xfd\xfc");
  std::string frame;
  wire::AppendFrame(line, &frame);
  aria.SendRaw(frame);
  aria.Send(ChatMessage(2, pb::CHAT_CHANNEL_SAY, "and now in UTF-8"));
  std::map<uint32_t, pb::Outcome> outcome;
  const auto both = aria.ReadUntil(
      [&outcome](const pb::ServerMessage& s) {
        for (const auto& r : s.tick().results()) {
          if (r.kind() == pb::INPUT_KIND_CHAT) outcome[r.seq()] = r.outcome();
        }
        return outcome.size() == 2;
      },
      5);
  ASSERT_TRUE(both) << server.Log();
  EXPECT_EQ(outcome[1], pb::OUTCOME_BAD_TEXT);
  EXPECT_EQ(outcome[2], pb::OUTCOME_ACCEPTED);
  EXPECT_FALSE(aria.closed());
}

TEST(Protocol3, ChatOnEveryChannelWithResults) {
  ServerProcess server("  idle_timeout_seconds: 60\n  chat_rate: 100\n");
  TestClient aria(server.port()), bo(server.port());
  ASSERT_TRUE(aria.Login("Aria").has_value());
  ASSERT_TRUE(bo.Login("Bo").has_value());
  aria.Send(ChatMessage(1, pb::CHAT_CHANNEL_SAY, "hello there"));
  aria.Send(ChatMessage(2, pb::CHAT_CHANNEL_WHISPER, "psst", "Bo"));
  aria.Send(ChatMessage(3, pb::CHAT_CHANNEL_WHISPER, "anyone?", "Nobody"));
  aria.Send(ChatMessage(4, pb::CHAT_CHANNEL_ZONE, "line\nbreak"));
  aria.Send(ChatMessage(5, pb::CHAT_CHANNEL_ZONE, "town hall at noon"));
  Collected a, b;
  Collect(aria, 0.6, &a);
  Collect(bo, 0.3, &b);
  std::map<uint32_t, pb::Outcome> outcome;
  for (const auto& r : a.results) {
    if (r.kind() == pb::INPUT_KIND_CHAT) outcome[r.seq()] = r.outcome();
  }
  EXPECT_EQ(outcome[1], pb::OUTCOME_ACCEPTED);
  EXPECT_EQ(outcome[2], pb::OUTCOME_ACCEPTED);
  EXPECT_EQ(outcome[3], pb::OUTCOME_NO_SUCH_PLAYER);
  EXPECT_EQ(outcome[4], pb::OUTCOME_BAD_TEXT);
  EXPECT_EQ(outcome[5], pb::OUTCOME_ACCEPTED);
  std::vector<std::string> bo_heard;
  for (const auto& l : b.chat) {
    bo_heard.push_back(l.text());
    EXPECT_EQ(l.from_name(), "Aria");
    EXPECT_NE(l.from_id(), 0u);
    if (l.channel() == pb::CHAT_CHANNEL_WHISPER) {
      EXPECT_EQ(l.to(), "Bo");
    }
  }
  EXPECT_EQ(bo_heard, (std::vector<std::string>{"hello there", "psst", "town hall at noon"}));
  EXPECT_EQ(a.chat.size(), 3u) << "Aria hears her say, her whisper's copy and the zone line";
}

TEST(Protocol3, ChatBeyondTheRateIsRefusedNotDropped) {
  ServerProcess server;  // chat_rate 2 per second: a burst of two
  TestClient c(server.port());
  ASSERT_TRUE(c.Login("Aria").has_value());
  for (uint32_t seq = 1; seq <= 4; ++seq) c.Send(ChatMessage(seq, pb::CHAT_CHANNEL_SAY, "spam"));
  Collected got;
  Collect(c, 0.5, &got);
  std::map<uint32_t, pb::Outcome> outcome;
  for (const auto& r : got.results) outcome[r.seq()] = r.outcome();
  EXPECT_EQ(outcome[1], pb::OUTCOME_ACCEPTED);
  EXPECT_EQ(outcome[2], pb::OUTCOME_ACCEPTED);
  EXPECT_EQ(outcome[3], pb::OUTCOME_RATE_LIMITED);
  EXPECT_EQ(outcome[4], pb::OUTCOME_RATE_LIMITED);
  EXPECT_EQ(got.chat.size(), 2u);
}

TEST(Protocol3, SkillResultsAndHugeDirections) {
  ServerProcess server;
  TestClient c(server.port());
  ASSERT_TRUE(c.Login("Aria").has_value());
  c.Send(SkillMessage(1, 1));
  c.Send(SkillMessage(2, 1));   // the same skill again at once: cooldown
  c.Send(SkillMessage(3, 99));  // not one of ours
  c.Move(1e30f, 0, 4);          // finite: normalised, not an error
  Collected got;
  Collect(c, 0.5, &got);
  std::map<uint32_t, pb::Outcome> outcome;
  for (const auto& r : got.results) outcome[r.seq()] = r.outcome();
  EXPECT_EQ(outcome[1], pb::OUTCOME_ACCEPTED);
  EXPECT_EQ(outcome[2], pb::OUTCOME_COOLDOWN);
  EXPECT_EQ(outcome[3], pb::OUTCOME_UNKNOWN_SKILL);
  EXPECT_EQ(outcome.count(4), 0u) << "an accepted move has no result";
  EXPECT_FALSE(c.closed());
}

TEST(Protocol3, PongCarriesTheServersClock) {
  ServerProcess server;
  TestClient c(server.port());
  ASSERT_TRUE(c.Login("Aria").has_value());
  pb::ClientMessage ping;
  ping.mutable_ping()->set_client_time(42);
  c.Send(ping);
  auto pong = c.ReadUntil([](const pb::ServerMessage& m) { return m.has_pong(); }, 2);
  ASSERT_TRUE(pong.has_value());
  EXPECT_EQ(pong->pong().client_time(), 42u);
  const auto wall_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  EXPECT_NEAR(static_cast<double>(pong->pong().server_time_ms()), static_cast<double>(wall_ms),
              5000);
}

TEST(Protocol3, LogoutIsAnsweredWithAKick) {
  ServerProcess server;
  TestClient c(server.port());
  ASSERT_TRUE(c.Login("Aria").has_value());
  pb::ClientMessage logout;
  logout.mutable_logout();
  c.Send(logout);
  auto last = c.ReadUntilClosed(3);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->kick().reason(), "logout");
}

TEST(Protocol3, ANameThatIsNotUtf8GetsBadName) {
  ServerProcess server;
  TestClient c(server.port());
  c.Hello("caf\xe9");  // Latin-1, not UTF-8
  auto last = c.ReadUntilClosed(3);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->error().code(), pb::ERROR_CODE_BAD_NAME);
  EXPECT_EQ(last->error().message(), "player_name is not valid UTF-8");
}

// A client may pipeline its first input behind its Hello, in the same TCP write: the move is
// applied once the character has loaded from storage (SQLite here), never lost.
TEST(Protocol3, AnInputInTheHellosWriteIsApplied) {
  ServerProcess server;
  TestClient c(server.port());
  pb::ClientMessage hello;
  hello.mutable_hello()->set_protocol_version(wire::kProtocolVersion);
  hello.mutable_hello()->set_player_name("Eager");
  pb::ClientMessage move;
  move.mutable_move()->set_seq(1);
  move.mutable_move()->set_direction_x(1);
  std::string both;
  wire::AppendFrame(hello.SerializeAsString(), &both);
  wire::AppendFrame(move.SerializeAsString(), &both);
  c.SendRaw(both);
  const auto w = c.ReadUntil([](const pb::ServerMessage& s) { return s.has_welcome(); }, 5);
  ASSERT_TRUE(w) << server.Log();
  const auto acked = c.ReadUntil(
      [](const pb::ServerMessage& s) { return s.has_tick() && s.tick().last_input_seq() == 1; }, 5);
  ASSERT_TRUE(acked) << "the move sent with the Hello was never applied";
  const auto moved = c.ReadUntil(
      [&](const pb::ServerMessage& s) {
        return s.has_tick() && s.tick().self().has_x() &&
               s.tick().self().x() > w->welcome().x() + 100;  // a metre east, in centimetres
      },
      5);
  EXPECT_TRUE(moved) << "it walks east";
}

// A reader that stops reading is cut off; if it reads again before the socket closes, the last
// thing it finds is Kick "slow_reader".
TEST(Protocol3, AStuckReaderFindsAKickWhenItReadsAgain) {
  // A small kernel send buffer: the frames of a player who walked out of the crowd are small,
  // and the kernel packs them tightly, so a default (autotuned) buffer takes minutes to fill.
  ServerProcess server(
      "  idle_timeout_seconds: 60\n  stall_timeout_seconds: 2\n  socket_send_buffer_bytes: 4096\n");
  TestClient sleeper(server.port(), 4096);
  ASSERT_TRUE(sleeper.Login("sleeper").has_value());
  sleeper.Move(1, 1, 1);  // into the monsters: big frames fill the socket buffers fast
  // Its queue overflows once the socket buffers are full; the stall timer (2 s) then queues the
  // Kick and closes within 2 s more. Read again in between.
  const double start = NowS();
  while (NowS() - start < 20 &&
         MetricValue(server.HttpGet("/metrics"), "zs_send_queue_overflows_total") <= 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  std::optional<pb::ServerMessage> last;
  int kicks = 0;
  const double end = NowS() + 5;
  while (!sleeper.closed() && NowS() < end) {
    auto m = sleeper.Read(end - NowS());
    if (m && (m->has_error() || m->has_kick())) last = m;
    kicks += m && m->has_kick() ? 1 : 0;
  }
  ASSERT_TRUE(last.has_value()) << server.Log();
  EXPECT_EQ(last->kick().reason(), "slow_reader");
  EXPECT_EQ(kicks, 1) << "one Kick, whichever of the stall timer and the stalled write saw it";
}

}  // namespace
}  // namespace zs::integration
