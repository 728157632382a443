// Zones of one process tick on their own threads (host::ZoneRunners), on the real zone_server
// with the test world (the plaza and, behind its east portal, the yard):
//
// - each zone has a thread of its own, named after it (what `top -H` shows);
// - a player who walks into the yard stays connected: ZoneChanged without an address, then the
//   yard's frames (the first one a resync), with the same entity id, and the acknowledgement of
//   its inputs carries on from where the plaza left it;
// - a second login finds the character in the yard's runner and takes it over (one entity);
// - a whisper reaches a player in the other runner's zone, naming the speaker.
#include <gtest/gtest.h>

#include <dirent.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "integration/harness.h"

namespace zs::integration {
namespace {

// The names of the process's threads (/proc/PID/task/*/comm).
std::set<std::string> ThreadNames(pid_t pid) {
  std::set<std::string> names;
  const fs::path tasks = fs::path("/proc") / std::to_string(pid) / "task";
  for (const auto& task : fs::directory_iterator(tasks)) {
    std::string name;
    std::getline(std::ifstream(task.path() / "comm"), name);
    names.insert(name);
  }
  return names;
}

// Walks `c` east into the plaza's portal; returns the ZoneChanged (nullopt: none in 15 s).
// `seq`: the last input sequence number sent.
std::optional<pb::ZoneChanged> WalkIntoTheYard(TestClient& c, uint32_t* seq) {
  c.Move(1, 0, ++*seq);  // x 390 from the spawn at 100: about 7 s at 40 units/s
  const auto m = c.ReadUntil([](const pb::ServerMessage& s) { return s.has_zone_changed(); }, 15);
  if (!m) return std::nullopt;
  return m->zone_changed();
}

TEST(ZoneRunners, EachZoneTicksOnAThreadOfItsOwn) {
  ServerProcess s;
  const std::set<std::string> names = ThreadNames(s.pid());
  EXPECT_TRUE(names.contains("zone plaza")) << s.Log();
  EXPECT_TRUE(names.contains("zone yard")) << s.Log();
}

TEST(ZoneRunners, APortalIntoAnotherRunnerKeepsTheConnectionTheEntityAndTheInputCount) {
  ServerProcess s;
  TestClient c(s.port());
  const auto w = c.Login("Ines");
  ASSERT_TRUE(w) << s.Log();
  uint32_t seq = 0;
  const auto changed = WalkIntoTheYard(c, &seq);
  ASSERT_TRUE(changed) << s.Log();
  EXPECT_EQ(changed->zone_id(), 2u);
  EXPECT_EQ(changed->zone_name(), "yard");
  EXPECT_TRUE(changed->server_address().empty()) << "the yard is on this server";
  EXPECT_TRUE(changed->ticket().empty());
  const auto first = c.ReadUntil([](const pb::ServerMessage& m) { return m.has_tick(); }, 3);
  ASSERT_TRUE(first) << s.Log();
  EXPECT_TRUE(first->tick().resync()) << "the yard's first frame starts the client's picture";
  EXPECT_EQ(first->tick().self().id(), w->entity_id()) << "the same entity";
  EXPECT_EQ(first->tick().last_input_seq(), seq) << "its inputs still count from the plaza's";
  c.Move(0, 1, ++seq);
  const auto acked = c.ReadUntil(
      [seq](const pb::ServerMessage& m) {
        return m.has_tick() && m.tick().last_input_seq() == seq;
      },
      3);
  EXPECT_TRUE(acked) << "an input sent in the yard is applied there";
  EXPECT_FALSE(c.closed());
}

TEST(ZoneRunners, ASecondLoginFindsTheCharacterInTheOtherRunnerAndTakesItOver) {
  ServerProcess s;
  TestClient first(s.port());
  const auto w = first.Login("Juno");
  ASSERT_TRUE(w) << s.Log();
  uint32_t seq = 0;
  ASSERT_TRUE(WalkIntoTheYard(first, &seq)) << s.Log();
  first.Move(0, 0, ++seq);  // stand still in the yard
  Sleep(0.3);

  TestClient second(s.port());
  const auto again = second.Login("Juno");
  ASSERT_TRUE(again) << s.Log();
  EXPECT_EQ(again->zone_id(), 2u) << "where the character is: the yard";
  EXPECT_EQ(again->entity_id(), w->entity_id()) << "the same entity, taken over";
  const auto last = first.ReadUntilClosed(5);
  ASSERT_TRUE(last && last->has_kick()) << s.Log();
  EXPECT_EQ(last->kick().reason(), "logged_in_elsewhere");
}

// The chat lines a client hears within `seconds`.
std::vector<pb::ChatLine> Hear(TestClient& c, double seconds) {
  std::vector<pb::ChatLine> heard;
  const double end = NowS() + seconds;
  while (NowS() < end) {
    const auto m = c.Read(end - NowS());
    if (m && m->has_tick())
      heard.insert(heard.end(), m->tick().chat().begin(), m->tick().chat().end());
  }
  return heard;
}

TEST(ZoneRunners, AWhisperReachesAPlayerInAZoneAnotherRunnerTicks) {
  ServerProcess s;
  TestClient kira(s.port());
  const auto k = kira.Login("Kira");
  ASSERT_TRUE(k) << s.Log();
  TestClient lux(s.port());
  ASSERT_TRUE(lux.Login("Lux")) << s.Log();
  uint32_t seq = 0;
  ASSERT_TRUE(WalkIntoTheYard(lux, &seq)) << s.Log();
  (void)Hear(kira, 0.2);

  pb::ClientMessage m;
  m.mutable_chat()->set_seq(1);
  m.mutable_chat()->set_channel(pb::CHAT_CHANNEL_WHISPER);
  m.mutable_chat()->set_text("over the wall");
  m.mutable_chat()->set_to("Lux");
  kira.Send(m);
  const std::vector<pb::ChatLine> copy = Hear(kira, 1);
  const std::vector<pb::ChatLine> heard = Hear(lux, 0.5);
  ASSERT_EQ(heard.size(), 1u) << s.Log();
  EXPECT_EQ(heard[0].channel(), pb::CHAT_CHANNEL_WHISPER);
  EXPECT_EQ(heard[0].from_id(), k->entity_id());
  EXPECT_EQ(heard[0].from_name(), "Kira");
  EXPECT_EQ(heard[0].text(), "over the wall");
  ASSERT_EQ(copy.size(), 1u);
  EXPECT_EQ(copy[0].to(), "Lux") << "the speaker's copy says to whom";
  EXPECT_EQ(copy[0].text(), "over the wall");
}

}  // namespace
}  // namespace zs::integration
