// What a client is told (protocol 3): honest damage, per-input results, targeting by hitbox
// surface, lines from the caster's front, no entity id 0, names, and chat (say against a brute
// force of the radius rule, zone, whisper across zones).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "core/rng.h"
#include "zone/test_world.h"
#include "zone/world.h"

namespace zs::zone {
namespace {

using testing::kDummy;
using testing::kSword;
using testing::kThrust;
using testing::kWhirl;
using testing::SpawnAt;
using testing::TestWorld;

std::vector<EntityId> MonstersOf(const World& w, size_t zone = 0) {
  std::vector<EntityId> out;
  for (const Entity& e : w.zone(zone).store().entities()) {
    if (e.is_monster()) out.push_back(e.id);
  }
  std::sort(out.begin(), out.end(), [](EntityId a, EntityId b) { return ToRaw(a) < ToRaw(b); });
  return out;
}

std::vector<InputResult> ResultsOf(const ZoneTickOutput& out, EntityId player) {
  std::vector<InputResult> r;
  for (const InputResult& x : out.results) {
    if (x.player == player) r.push_back(x);
  }
  return r;
}

TEST(HonestResults, DamageIsTheHpActuallyRemoved) {
  WorldConfig c = TestWorld();
  c.monsters[0].max_hp = 8;  // less than the sword's 12
  c.zones[0].spawns = {SpawnAt(kDummy, {51, 50})};
  World w(c);
  EntityId p;
  ASSERT_TRUE(w.AddPlayer(std::nullopt, &p).ok());
  const SkillInput s{p, 1, kSword, 0, {}};
  w.Tick({}, {&s, 1});
  ASSERT_EQ(w.output(0).targets.size(), 1u);
  EXPECT_EQ(w.output(0).targets[0].damage, 8) << "not the nominal 12";
  EXPECT_TRUE(w.output(0).targets[0].killed);
}

TEST(HonestResults, EverySkillGetsAResultAndRefusedMovesToo) {
  World w(TestWorld());
  EntityId p;
  ASSERT_TRUE(w.AddPlayer(std::nullopt, &p).ok());
  SkillInput s{p, 7, kSword, 0, {}};
  w.Tick({}, {&s, 1});
  ASSERT_EQ(ResultsOf(w.output(0), p).size(), 1u);
  EXPECT_EQ(ResultsOf(w.output(0), p)[0].outcome, Outcome::kAccepted);
  EXPECT_EQ(ResultsOf(w.output(0), p)[0].seq, 7u);
  s.seq = 8;
  w.Tick({}, {&s, 1});  // within the 10-tick cooldown
  EXPECT_EQ(ResultsOf(w.output(0), p)[0].outcome, Outcome::kCooldown);
  s = {p, 9, 99, 0, {}};
  w.Tick({}, {&s, 1});
  EXPECT_EQ(ResultsOf(w.output(0), p)[0].outcome, Outcome::kUnknownSkill);
  const MoveInput m{p, 10, {1, 0}};
  w.Tick({&m, 1}, {});
  EXPECT_TRUE(ResultsOf(w.output(0), p).empty()) << "an accepted move is acknowledged by seq only";
  // Dead: kill the player with a second one's whirls (pvp on).
  WorldConfig c = TestWorld();
  c.zones[0].pvp = true;
  World pvp(c);
  EntityId a, b;
  ASSERT_TRUE(pvp.AddPlayer(std::nullopt, &a).ok());
  ASSERT_TRUE(pvp.AddPlayer(std::nullopt, &b).ok());
  for (int t = 0; pvp.zone(0).store().Find(b)->alive && t < 200; ++t) {
    const SkillInput whirl{a, 1, kWhirl, 0, {}};
    pvp.Tick({}, {&whirl, 1});
  }
  const MoveInput dead_move{b, 3, {1, 0}};
  const SkillInput dead_swing{b, 4, kSword, 0, {}};
  pvp.Tick({&dead_move, 1}, {&dead_swing, 1});
  const std::vector<InputResult> r = ResultsOf(pvp.output(0), b);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].kind, InputKind::kMove);
  EXPECT_EQ(r[0].outcome, Outcome::kDead);
  EXPECT_EQ(r[1].kind, InputKind::kSkill);
  EXPECT_EQ(r[1].outcome, Outcome::kDead);
}

TEST(Targeting, NearestHitboxSurfaceFirstNotNearestCentre) {
  WorldConfig c = TestWorld();
  c.monsters.push_back({.id = 3, .name = "ogre", .radius = 1.5f, .max_hp = 100});
  c.player.skills.push_back(kWhirl);
  // A small dummy 2.2 m away (surface 1.7) and an ogre 2.6 m away (surface 1.1).
  c.zones[0].spawns = {SpawnAt(kDummy, {52.2f, 50}), SpawnAt(3, {50, 52.6f})};
  c.skills[1].max_targets = 1;  // whirl: only the nearest
  World w(c);
  EntityId p;
  ASSERT_TRUE(w.AddPlayer(std::nullopt, &p).ok());
  const SkillInput s{p, 1, kWhirl, 0, {}};
  w.Tick({}, {&s, 1});
  ASSERT_EQ(w.output(0).targets.size(), 1u);
  EXPECT_EQ(w.output(0).targets[0].target, MonstersOf(w)[1]) << "the ogre's edge is nearer";
}

TEST(Targeting, ALineStartsAtTheCastersFront) {
  WorldConfig c = TestWorld();
  // Player radius 0.5 at (50, 50) facing +x: a dummy centred 0.7 m behind used to be hit.
  c.zones[0].spawns = {SpawnAt(kDummy, {49.3f, 50}), SpawnAt(kDummy, {54, 50})};
  World w(c);
  EntityId p;
  ASSERT_TRUE(w.AddPlayer(std::nullopt, &p).ok());
  const SkillInput s{p, 1, kThrust, 0, {}};
  w.Tick({}, {&s, 1});
  ASSERT_EQ(w.output(0).targets.size(), 1u);
  EXPECT_EQ(w.output(0).targets[0].target, MonstersOf(w)[1]);
  EXPECT_EQ(w.output(0).events[0].origin, (Vec2{50.5f, 50}));
}

TEST(Ids, NoEntityIsEverIdZero) {
  WorldConfig c = TestWorld();
  c.zones[0].spawns = {SpawnAt(kDummy, {10, 10}, 20, 1)};
  World w(c);
  std::set<uint32_t> seen;
  for (const Entity& e : w.zone(0).store().entities()) seen.insert(ToRaw(e.id));
  for (int i = 0; i < 50; ++i) {  // players come and go: indices and generations are reused
    EntityId p;
    ASSERT_TRUE(w.AddPlayer(std::nullopt, &p).ok());
    seen.insert(ToRaw(p));
    ASSERT_TRUE(w.RemovePlayer(p).ok());
  }
  EXPECT_EQ(seen.count(0), 0u);
}

TEST(Names, PlayersNamesAreSharedWithTheEncoder) {
  World w(TestWorld());
  EntityId p;
  ASSERT_TRUE(w.AddPlayer(std::nullopt, &p, "Aria").ok());
  w.Tick({}, {});
  ASSERT_NE(w.output(0).names, nullptr);
  EXPECT_EQ((*w.output(0).names)[EntityIndex(p)], "Aria");
  EXPECT_EQ(w.NameOf(p), "Aria");
  ASSERT_TRUE(w.RemovePlayer(p).ok());
  EXPECT_EQ(w.NameOf(p), "");
}

// The chat recipients of one tick's output, per line.
std::vector<std::set<uint32_t>> Recipients(const ZoneTickOutput& out) {
  std::vector<std::set<uint32_t>> r(out.chat_lines.size());
  for (const ChatDelivery& d : out.chat_deliveries) r[d.line].insert(ToRaw(d.recipient));
  return r;
}

TEST(Chat, SayReachesExactlyThePlayersWithinTheRadiusBruteForce) {
  WorldConfig c = TestWorld();
  c.zones[0].chat_radius = 12;
  World w(c);
  std::vector<EntityId> players(120);
  for (auto& p : players) ASSERT_TRUE(w.AddPlayer(std::nullopt, &p).ok());
  // Scatter them: each walks its own way for 5 s (up to 25 m from the spawn).
  Rng rng(11);
  std::vector<MoveInput> moves;
  for (const EntityId p : players) {
    moves.push_back({p, 0, {rng.Range(-1.f, 1.f), rng.Range(-1.f, 1.f)}});
  }
  w.Tick(moves, {});
  for (int t = 0; t < 100; ++t) w.Tick({}, {});
  std::vector<ChatInput> says;
  for (size_t i = 0; i < players.size(); i += 7) {
    says.push_back({.entity = players[i], .seq = 1, .channel = ChatChannel::kSay, .text = "hi"});
  }
  const std::vector<PlayerInput> said(says.begin(), says.end());
  w.Tick({.inputs = said});
  const ZoneTickOutput& out = w.output(0);
  ASSERT_EQ(out.chat_lines.size(), says.size());
  const std::vector<std::set<uint32_t>> got = Recipients(out);
  for (size_t k = 0; k < says.size(); ++k) {
    const Entity& speaker = *w.zone(0).store().Find(says[k].entity);
    std::set<uint32_t> want;  // brute force: every player whose hitbox touches the radius
    for (const EntityId p : players) {
      const Entity& e = *w.zone(0).store().Find(p);
      if (Length(e.position - speaker.position) <= c.zones[0].chat_radius + e.radius) {
        want.insert(ToRaw(p));
      }
    }
    EXPECT_EQ(got[k], want) << "line " << k;
    EXPECT_TRUE(want.count(ToRaw(says[k].entity)));
    EXPECT_GT(want.size(), 1u);
    EXPECT_LT(want.size(), players.size()) << "the radius must matter for this test";
  }
  EXPECT_TRUE(std::is_sorted(out.chat_deliveries.begin(), out.chat_deliveries.end(),
                             [](const ChatDelivery& a, const ChatDelivery& b) {
                               return ToRaw(a.recipient) < ToRaw(b.recipient);
                             }));
}

TEST(Chat, ZoneReachesEveryPlayerInTheZoneAndWhisperCrossesZones) {
  World w(TestWorld(/*two_zones=*/true));
  EntityId a, b, far;
  ASSERT_TRUE(w.AddPlayer(1, &a, "a").ok());
  ASSERT_TRUE(w.AddPlayer(1, &b, "b").ok());
  ASSERT_TRUE(w.AddPlayer(2, &far, "far").ok());
  const std::vector<PlayerInput> chats = {
      ChatInput{.entity = a, .seq = 1, .channel = ChatChannel::kZone, .text = "all"},
      ChatInput{.entity = a,
                .seq = 2,
                .channel = ChatChannel::kWhisper,
                .text = "psst",
                .to_name = "far",
                .to = far},
      ChatInput{.entity = b, .seq = 3, .channel = ChatChannel::kWhisper, .text = "?"},
      ChatInput{
          .entity = b, .seq = 4, .channel = ChatChannel::kZone, .text = "\x07", .text_ok = false},
  };
  w.Tick({.inputs = chats});
  const ZoneTickOutput& z1 = w.output(0);
  const ZoneTickOutput& z2 = w.output(1);
  ASSERT_EQ(z1.chat_lines.size(), 2u);  // the zone line and a's copy of the whisper
  EXPECT_EQ(Recipients(z1)[0], (std::set<uint32_t>{ToRaw(a), ToRaw(b)}));
  EXPECT_EQ(Recipients(z1)[1], (std::set<uint32_t>{ToRaw(a)}));
  ASSERT_EQ(z2.chat_lines.size(), 1u);
  EXPECT_EQ(z2.chat_lines[0].text, "psst");
  EXPECT_EQ(z2.chat_lines[0].to, far);
  EXPECT_EQ(Recipients(z2)[0], (std::set<uint32_t>{ToRaw(far)}));
  ASSERT_EQ(ResultsOf(z1, a).size(), 2u);
  EXPECT_EQ(ResultsOf(z1, a)[0].outcome, Outcome::kAccepted);
  ASSERT_EQ(ResultsOf(z1, b).size(), 2u);
  EXPECT_EQ(ResultsOf(z1, b)[0].outcome, Outcome::kNoSuchPlayer);
  EXPECT_EQ(ResultsOf(z1, b)[0].seq, 3u);
  EXPECT_EQ(ResultsOf(z1, b)[1].outcome, Outcome::kBadText)
      << "a text wire refused: told, not said";
  EXPECT_EQ(ResultsOf(z1, b)[1].seq, 4u);
}

TEST(Chat, ResultsFromOutsideTheWorldReachThePlayersZone) {
  World w(TestWorld(true));
  EntityId p;
  ASSERT_TRUE(w.AddPlayer(2, &p).ok());
  const InputResult limited{
      .player = p, .kind = InputKind::kChat, .seq = 5, .outcome = Outcome::kRateLimited};
  w.Tick({.inputs = {}, .results = {&limited, 1}});
  ASSERT_EQ(ResultsOf(w.output(1), p).size(), 1u);
  EXPECT_EQ(ResultsOf(w.output(1), p)[0].outcome, Outcome::kRateLimited);
}

// Two worlds of one process (each zone on its own runner): the speaker's world gives it its copy
// naming the recipient, the recipient's world delivers the line naming the speaker.
TEST(Chat, AWhisperRelayedBetweenWorldsReachesTheRecipientAndCopiesTheSpeaker) {
  EntityIdAllocator ids;
  const std::vector<uint32_t> plaza = {1};
  const std::vector<uint32_t> yard = {2};
  World here(TestWorld(/*two_zones=*/true), plaza, &ids);
  World there(TestWorld(/*two_zones=*/true), yard, &ids);
  EntityId a, far;
  ASSERT_TRUE(here.AddPlayer(1, &a, "a").ok());
  ASSERT_TRUE(there.AddPlayer(2, &far, "far").ok());
  const PlayerInput said = ChatInput{.entity = a,
                                     .seq = 4,
                                     .channel = ChatChannel::kWhisper,
                                     .text = "psst",
                                     .to_name = "far",
                                     .to = kInvalidEntity,
                                     .relayed = true};
  here.Tick({.inputs = {&said, 1}});
  const ZoneTickOutput& copy = here.output(0);
  ASSERT_EQ(copy.chat_lines.size(), 1u);
  EXPECT_EQ(copy.chat_lines[0].to_name, "far") << "the copy says to whom";
  EXPECT_EQ(Recipients(copy)[0], (std::set<uint32_t>{ToRaw(a)}));
  ASSERT_EQ(ResultsOf(copy, a).size(), 1u);
  EXPECT_EQ(ResultsOf(copy, a)[0].outcome, Outcome::kAccepted);

  const RelayedWhisper relayed{.from = a, .from_name = "a", .to = far, .text = "psst"};
  const RelayedWhisper gone{.from = a, .from_name = "a", .to = a, .text = "not here"};
  const std::vector<RelayedWhisper> in = {relayed, gone};
  there.Tick({.inputs = {}, .results = {}, .relayed = in});
  const ZoneTickOutput& line = there.output(0);
  ASSERT_EQ(line.chat_lines.size(), 1u) << "one for a player of this world, none for another";
  EXPECT_EQ(line.chat_lines[0].from, a);
  EXPECT_EQ(line.chat_lines[0].from_name, "a") << "named: the speaker is not in this world";
  EXPECT_EQ(line.chat_lines[0].text, "psst");
  EXPECT_EQ(Recipients(line)[0], (std::set<uint32_t>{ToRaw(far)}));
}

}  // namespace
}  // namespace zs::zone
