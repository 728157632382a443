// A zone split into cells (zone/cells.h), each cell simulated by its own World as on its own node
// (split_cells.h). A player near the border sees the other side's entities as ghosts with their
// own ids; ghosts follow their owner, leave when it walks away, are never simulated, and go when
// their cell falls silent; swings, says and zone chat cross the border; one process and two cells
// tell the same story. The checks of a batch are in cell_border_test.cc, migration in
// migration_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "zone/output_hash.h"
#include "zone/split_cells.h"
#include "zone/test_world.h"
#include "zone/world.h"

namespace zs::zone {
namespace {

using testing::HitsOn;
using testing::Join;
using testing::Known;
using testing::kTimeoutTicks;
using testing::kZone;
using testing::RealCopies;
using testing::Split;
using testing::SplitWorld;
using testing::TestWorld;

TEST(Cells, TileTheZoneAndTouchTheirNeighbours) {
  CellLayout l;
  l.columns = 4;
  l.rows = 2;
  const Aabb bounds{{-100, 0}, {300, 100}};
  EXPECT_EQ(CellBounds(bounds, l, 0).min, (Vec2{-100, 0}));
  EXPECT_EQ(CellBounds(bounds, l, 0).max, (Vec2{0, 50}));
  EXPECT_EQ(CellBounds(bounds, l, 7).max, (Vec2{300, 100}));
  EXPECT_EQ(CellBounds(bounds, l, 5).min, (Vec2{0, 50}));
  EXPECT_EQ(CellAt(bounds, l, {-100, 0}), 0u);
  EXPECT_EQ(CellAt(bounds, l, {0, 0}), 1u) << "an inner edge belongs to the cell beyond it";
  EXPECT_EQ(CellAt(bounds, l, {300, 100}), 7u) << "the outer edge to the last cell";
  EXPECT_EQ(CellAt(bounds, l, {1e9f, -1e9f}), 3u) << "clamped";
  EXPECT_EQ(CellAt(bounds, l, {std::numeric_limits<float>::quiet_NaN(), 60}), 4u) << "NaN: min";
  EXPECT_TRUE(Neighbours(l, 0, 5)) << "by a corner";
  EXPECT_TRUE(Neighbours(l, 1, 2));
  EXPECT_FALSE(Neighbours(l, 0, 2));
  EXPECT_FALSE(Neighbours(l, 3, 4)) << "row-major: the end of one row does not touch the next";
  EXPECT_FALSE(Neighbours(l, 1, 1));
  EXPECT_FALSE(Neighbours(l, 1, 8));
}

TEST(Cells, TheIdsOfOneCellAreNeverAnothers) {
  CellLayout l;
  l.columns = l.rows = 2;
  std::vector<std::set<uint32_t>> indices(4);
  for (uint32_t c = 0; c < 4; ++c) {
    EntityIdAllocator ids(IdsOfCell(l, c));
    std::vector<EntityId> taken;
    for (int i = 0; i < 100; ++i) taken.push_back(ids.Allocate());
    ids.Free(taken[3]);
    const EntityId again = ids.Allocate();
    EXPECT_EQ(EntityIndex(again), EntityIndex(taken[3])) << "a freed index comes back...";
    EXPECT_NE(again, taken[3]) << "...with the next generation";
    for (const EntityId id : taken) {
      EXPECT_TRUE(IdsOfCell(l, c).Holds(id));
      EXPECT_NE(EntityIndex(id), 0u) << "no entity is 0 on the wire";
      indices[c].insert(EntityIndex(id));
    }
  }
  for (uint32_t a = 0; a < 4; ++a) {
    for (uint32_t b = a + 1; b < 4; ++b) {
      for (const uint32_t i : indices[a]) EXPECT_EQ(indices[b].count(i), 0u);
    }
  }
  EntityIdAllocator last(IdsOfCell(l, 3));
  size_t n = 0;
  while (last.Allocate() != kInvalidEntity) ++n;
  EXPECT_EQ(n, (kMaxEntityIndex - 3) / 4) << "every index of the range, then none";
}

TEST(Cells, EachCellSpawnsTheGroupsCentredInItAndKeepsItsEntitiesIn) {
  Split split(SplitWorld());
  const Zone& west = split.cells[0]->zone();
  const Zone& east = split.cells[1]->zone();
  EXPECT_EQ(west.border().area().max.x, 50.0f);
  EXPECT_EQ(east.border().area().min.x, 50.0f);
  ASSERT_EQ(west.store().entities().size(), 3u);
  ASSERT_EQ(east.store().entities().size(), 2u);
  for (const Entity& e : west.store().entities()) EXPECT_EQ(EntityIndex(e.id) % 2, 0u);
  for (const Entity& e : east.store().entities()) EXPECT_EQ(EntityIndex(e.id) % 2, 1u);

  const EntityId p = Join(*split.cells[0], {45, 20}, "Wes");
  const MoveInput east_ward{.entity = p, .seq = 1, .direction = {1, 0}};
  for (int t = 0; t < 60; ++t) split.Tick({&east_ward, 1});
  EXPECT_EQ(west.store().Find(p)->position.x, 50.0f)
      << "until migration lands, the border holds it";
  EXPECT_FALSE(west.store().Find(p)->is_ghost());
}

TEST(Cells, APlayerSeesTheOtherSideAsGhostsWithTheirOwnIdsAndNames) {
  Split split(SplitWorld());
  const EntityId wes = Join(*split.cells[0], {45, 20}, "Wes");
  const EntityId eve = Join(*split.cells[1], {56, 20}, "Eve");
  split.Tick();  // each cell's border batch names its player...
  EXPECT_FALSE(split.known.Knows(wes, eve)) << "ghosts are applied at the next tick";
  split.Tick();  // ...and the neighbour shows it
  EXPECT_TRUE(split.known.Knows(wes, eve));
  EXPECT_TRUE(split.known.Knows(eve, wes));
  const Entity* ghost = split.cells[0]->zone().store().Find(eve);
  ASSERT_NE(ghost, nullptr);
  EXPECT_TRUE(ghost->is_ghost());
  EXPECT_EQ(ghost->ghost_of, 1u);
  EXPECT_EQ(ghost->position, (Vec2{56, 20}));
  EXPECT_EQ(split.cells[0]->world.NameOf(eve), "") << "a ghost is no player of this world...";
  const ZoneTickOutput& o = split.cells[0]->world.output(0);
  ASSERT_NE(o.names, nullptr);
  EXPECT_EQ((*o.names)[EntityIndex(eve)], "Eve") << "...but its name is shown";
  EXPECT_EQ(split.cells[0]->zone().store().player_count(), 1u)
      << "ghosts are not counted as players";
  EXPECT_EQ(split.cells[0]->world.output(0).views.size(), 1u) << "nor given a view";
  // The other side's monsters near the border too: the dummies at x 55..60 are within reach.
  size_t monster_ghosts = 0;
  for (const Entity& e : split.cells[0]->zone().store().entities()) {
    monster_ghosts += e.is_ghost() && e.is_monster() ? 1 : 0;
  }
  EXPECT_EQ(monster_ghosts, 2u);
}

TEST(Cells, AGhostFollowsItsOwnerOneTickBehindAndLeavesWhenItWalksAway) {
  Split split(SplitWorld());
  const EntityId wes = Join(*split.cells[0], {45, 80}, "Wes");
  const EntityId eve = Join(*split.cells[1], {52, 80}, "Eve");
  split.Tick();
  split.Tick();
  ASSERT_TRUE(split.known.Knows(wes, eve));
  const MoveInput away{.entity = eve, .seq = 1, .direction = {1, 0}};
  const Zone& west = split.cells[0]->zone();
  const Zone& east = split.cells[1]->zone();
  bool left = false;
  for (int t = 0; t < 400 && !left; ++t) {
    const Vec2 before = east.store().Find(eve)->position;
    split.Tick({&away, 1});
    const Entity* ghost = west.store().Find(eve);
    if (ghost != nullptr) {
      EXPECT_EQ(ghost->position, before) << "one tick behind its owner";
    }
    left = !split.known.Knows(wes, eve);
  }
  ASSERT_TRUE(left) << "it left the view as it walked beyond the view radius";
  for (int t = 0; t < 200 && west.store().Find(eve) != nullptr; ++t) split.Tick({&away, 1});
  EXPECT_EQ(west.store().Find(eve), nullptr) << "beyond ghost_distance it is no ghost any more";
  EXPECT_GT(east.store().Find(eve)->position.x - 50.0f, west.config().cells.ghost_distance);
  EXPECT_EQ(west.store().ghost_count(), 2u) << "the dummies near the border stay";
}

TEST(Cells, GhostsAreNeverSimulatedAndASilentCellsGhostsGo) {
  WorldConfig config = SplitWorld();
  config.zones[0].spawns = {
      {.monster = testing::kWolf, .count = 1, .area = {{52, 20}, {52, 20}}, .respawn_ticks = 20}};
  Split split(config);
  const EntityId wes = Join(*split.cells[0], {45, 20}, "Wes");
  Join(*split.cells[1], {58, 20}, "Eve");  // the wolf's prey: it moves at home
  split.Tick();
  split.Tick();
  const Zone& west = split.cells[0]->zone();
  ASSERT_EQ(west.store().ghost_count(), 2u) << "the wolf and Eve";
  Entity wolf;
  for (const Entity& e : west.store().entities()) {
    if (e.is_monster()) wolf = e;
  }
  ASSERT_TRUE(wolf.is_ghost());
  ASSERT_TRUE(split.known.Knows(wes, wolf.id));
  // The east is cut off (its last batch, already handed over, is applied at the first of these
  // ticks): the west ticks on and its ghost stands where it was last told.
  for (uint32_t t = 0; t <= kTimeoutTicks; ++t) {
    split.Tick({}, /*mute=*/{1});
    const Entity* ghost = west.store().Find(wolf.id);
    ASSERT_NE(ghost, nullptr) << "kept until the timeout, tick " << t;
    EXPECT_EQ(ghost->position, wolf.position) << "never moved here";
    EXPECT_EQ(ghost->hp, wolf.hp);
    EXPECT_TRUE(split.cells[0]->world.output(0).silent_cells.empty());
  }
  EXPECT_NE(split.cells[1]->zone().store().Find(wolf.id)->position, wolf.position)
      << "meanwhile the real wolf chased Eve";
  split.Tick({}, /*mute=*/{1});
  EXPECT_EQ(west.store().Find(wolf.id), nullptr) << "gone once the east was silent for the timeout";
  EXPECT_EQ(west.store().ghost_count(), 0u);
  EXPECT_EQ(split.cells[0]->world.output(0).silent_cells, std::vector<uint32_t>{1});
  EXPECT_FALSE(split.known.Knows(wes, wolf.id)) << "and the player saw it leave";
  split.Tick({}, /*mute=*/{1});
  EXPECT_TRUE(split.cells[0]->world.output(0).silent_cells.empty()) << "said once";
  split.Tick();  // the east speaks again
  split.Tick();
  EXPECT_NE(west.store().Find(wolf.id), nullptr) << "and its ghosts come back";
  EXPECT_TRUE(split.known.Knows(wes, wolf.id));
}

TEST(Cells, FourCellsMeetAtACornerAndEachSeesTheOtherThree) {
  Split split(SplitWorld(2, 2));
  std::vector<EntityId> p = {
      Join(*split.cells[0], {48, 48}, "sw"), Join(*split.cells[1], {52, 48}, "se"),
      Join(*split.cells[2], {48, 52}, "nw"), Join(*split.cells[3], {52, 52}, "ne")};
  split.Tick();
  split.Tick();
  for (size_t a = 0; a < 4; ++a) {
    for (size_t b = 0; b < 4; ++b) {
      if (a != b) {
        EXPECT_TRUE(split.known.Knows(p[a], p[b])) << a << " sees " << b;
      }
    }
  }
}

// A swing across the border hits the ghost (same shapes, caps and order as any target); the
// damage is the owner's to apply, a tick later, and the kill is counted there, once.
TEST(Cells, ASwingAcrossTheBorderIsAppliedByTheTargetsOwnerAndKillsOnce) {
  WorldConfig config = SplitWorld();
  config.zones[0].spawns = {{.monster = testing::kDummy, .count = 1, .area = {{51, 20}, {51, 20}}}};
  Split split(config);
  const EntityId wes = Join(*split.cells[0], {49.5f, 20}, "Wes");
  split.Tick();
  split.Tick();
  const Zone& east = split.cells[1]->zone();
  const EntityId dummy = east.store().entities()[0].id;
  ASSERT_TRUE(east.store().entities()[0].is_monster());
  ASSERT_NE(split.cells[0]->zone().store().Find(dummy), nullptr) << "a ghost at the west";

  const int32_t max_hp = east.store().Find(dummy)->max_hp;  // 50: a sword deals 12
  int west_hits = 0, east_hits = 0, kills = 0, ticks = 0;
  int32_t dealt = 0;
  for (uint32_t seq = 1; east.store().Find(dummy)->alive && ticks < 200; ++ticks) {
    const SkillInput swing{
        .entity = wes, .seq = seq++, .skill = testing::kSword, .facing = 0, .target = {}};
    split.Tick({}, {}, {&swing, 1});
    for (const HitTarget& h : HitsOn(split.cells[0]->world.output(0), wes, dummy)) {
      ++west_hits;
      EXPECT_FALSE(h.killed) << "the west never decides a kill of the east's";
    }
    for (const HitTarget& h : HitsOn(split.cells[1]->world.output(0), wes, dummy)) {
      ++east_hits;
      dealt += h.damage;
      kills += h.killed ? 1 : 0;
    }
  }
  EXPECT_FALSE(east.store().Find(dummy)->alive) << "killed by swings from the other side";
  EXPECT_EQ(kills, 1);
  EXPECT_EQ(dealt, max_hp) << "never more than it had";
  EXPECT_EQ(east_hits, west_hits) << "each swing that landed was applied once by the owner";
  EXPECT_EQ(east_hits, (max_hp + 11) / 12);
  split.Tick();
  EXPECT_FALSE(split.cells[0]->zone().store().Find(dummy)->alive)
      << "the ghost shows it a tick later";
}

TEST(Cells, AMonsterAggroesOnAPlayerAcrossTheBorderAndBitesIt) {
  WorldConfig config = SplitWorld();
  config.zones[0].spawns = {{.monster = testing::kWolf, .count = 1, .area = {{53, 20}, {53, 20}}}};
  Split split(config);
  const EntityId wes = Join(*split.cells[0], {49.2f, 20}, "Wes");
  const EntityId wolf = split.cells[1]->zone().store().entities()[0].id;
  int bites = 0;
  for (int t = 0; t < 200 && bites == 0; ++t) {
    split.Tick();
    bites += static_cast<int>(HitsOn(split.cells[0]->world.output(0), wolf, wes).size());
  }
  EXPECT_GT(bites, 0) << "the wolf chased Wes to the border and its bite landed at the west";
  EXPECT_LT(split.cells[0]->zone().store().Find(wes)->hp, 100);
  const Entity* w = split.cells[1]->zone().store().Find(wolf);
  EXPECT_EQ(w->monster().ai, MonsterState::kChase);
  EXPECT_EQ(w->monster().target, wes) << "it hunts Wes by Wes's own id";
  EXPECT_GE(w->position.x, 50.0f) << "from its own side of the border";
}

// Who heard what this tick in `o`: (recipient raw id, speaker raw id, text).
std::set<std::tuple<uint32_t, uint32_t, std::string>> Heard(const ZoneTickOutput& o) {
  std::set<std::tuple<uint32_t, uint32_t, std::string>> out;
  for (const ChatDelivery& d : o.chat_deliveries) {
    const ChatLine& line = o.chat_lines[d.line];
    out.emplace(ToRaw(d.recipient), ToRaw(line.from), std::string(line.text));
  }
  return out;
}

TEST(Cells, ASayNearTheBorderIsHeardAcrossItByThoseInRange) {
  Split split(SplitWorld());
  const EntityId wes = Join(*split.cells[0], {45, 20}, "Wes");
  const EntityId eve = Join(*split.cells[1], {60, 20}, "Eve");     // 15 m from Wes: in range
  const EntityId fay = Join(*split.cells[1], {80, 20}, "Fay");     // 35 m: beyond chat_radius 30
  const EntityId far = Join(*split.cells[0], {5, 80}, "Faraway");  // far from the border
  split.Tick();
  split.Tick();
  World& west = split.cells[0]->world;
  World& east = split.cells[1]->world;
  const ChatInput hello{.entity = wes, .seq = 1, .channel = ChatChannel::kSay, .text = "hello"};
  const ChatInput alone{.entity = far, .seq = 1, .channel = ChatChannel::kSay, .text = "anyone?"};
  const std::vector<PlayerInput> says = {hello, alone};
  west.Tick({.inputs = says});
  east.Tick(std::span<const MoveInput>{}, {});
  EXPECT_TRUE(Heard(east.output(0)).empty()) << "across the border a tick later";
  const GhostBatch& batch = west.output(0).border.at(0);
  ASSERT_EQ(batch.says.size(), 1u) << "only the say near the border goes";
  EXPECT_EQ(batch.says[0].speaker, wes);
  ASSERT_EQ(east.TakeGhosts(batch), GhostVerdict::kTaken);
  east.Tick(std::span<const MoveInput>{}, {});
  const auto heard = Heard(east.output(0));
  EXPECT_EQ(heard.count({ToRaw(eve), ToRaw(wes), "hello"}), 1u) << "Eve hears Wes";
  for (const auto& [to, from, text] : heard) EXPECT_NE(to, ToRaw(fay)) << "Fay is too far";
  EXPECT_EQ(heard.size(), 1u);

  GhostBatch forged = batch;
  forged.tick += 100;
  forged.says[0].speaker = MakeEntityId(7, 0);
  EXPECT_EQ(east.TakeGhosts(forged), GhostVerdict::kForeignId) << "a speaker the batch lacks";
  forged.says[0].speaker = wes;
  forged.says[0].text.clear();
  EXPECT_EQ(east.TakeGhosts(forged), GhostVerdict::kBadValue) << "nothing said";
}

// `zone` chat in a zone split 4 x 1: every player of every cell hears it, the far cells (no
// neighbours of the speaker's) too, a tick later, with the speaker's id and name; a replayed,
// misaddressed or oversized one changes nothing.
TEST(Cells, ZoneChatIsHeardInEveryCell) {
  Split split(SplitWorld(4, 1));
  std::vector<EntityId> players;
  for (uint32_t c = 0; c < 4; ++c) {
    const Vec2 at{12.5f + 25.0f * static_cast<float>(c), 50};
    players.push_back(Join(*split.cells[c], at, "P" + std::to_string(c)));
  }
  split.Tick();
  World& speaker_cell = split.cells[0]->world;
  const ChatInput hi{.entity = players[0], .seq = 1, .channel = ChatChannel::kZone, .text = "hi"};
  const std::vector<PlayerInput> inputs = {hi};
  speaker_cell.Tick({.inputs = inputs});
  EXPECT_EQ(Heard(speaker_cell.output(0)).count({ToRaw(players[0]), ToRaw(players[0]), "hi"}), 1u)
      << "heard in its own cell at once";
  const ZoneChat chat = speaker_cell.output(0).zone_chat;
  ASSERT_EQ(chat.lines.size(), 1u);
  EXPECT_EQ(chat.from_cell, 0u);
  EXPECT_EQ(chat.lines[0].name, "P0");
  for (uint32_t c = 1; c < 4; ++c) {
    World& w = split.cells[c]->world;
    ASSERT_EQ(w.TakeZoneChat(chat), GhostVerdict::kTaken) << "cell " << c;
    EXPECT_EQ(w.TakeZoneChat(chat), GhostVerdict::kStale) << "a replay";
    w.Tick(std::span<const MoveInput>{}, {});
    const ZoneTickOutput& o = w.output(0);
    EXPECT_EQ(Heard(o), (std::set<std::tuple<uint32_t, uint32_t, std::string>>{
                            {ToRaw(players[c]), ToRaw(players[0]), "hi"}}))
        << "cell " << c << ": its player hears it once";
    ASSERT_EQ(o.chat_lines.size(), 1u);
    EXPECT_EQ(o.chat_lines[0].channel, ChatChannel::kZone);
    EXPECT_EQ(o.chat_lines[0].from_name, "P0") << "named as the speaker's cell names it";
    w.Tick(std::span<const MoveInput>{}, {});
    EXPECT_TRUE(w.output(0).chat_lines.empty()) << "heard once";
  }
  World& east = split.cells[3]->world;
  ZoneChat own = chat;
  own.from_cell = 3;
  own.tick += 10;
  EXPECT_EQ(east.TakeZoneChat(own), GhostVerdict::kNotANeighbour) << "its own cell";
  own.from_cell = 4;
  EXPECT_EQ(east.TakeZoneChat(own), GhostVerdict::kNotANeighbour) << "beyond the zone's cells";
  ZoneChat many = chat;
  many.tick += 10;
  many.lines.assign(kMaxZoneLines + 1, chat.lines[0]);
  EXPECT_EQ(east.TakeZoneChat(many), GhostVerdict::kTooMany);
  east.Tick(std::span<const MoveInput>{}, {});
  EXPECT_TRUE(east.output(0).chat_lines.empty()) << "nothing of the refused ones is heard";
  ZoneChat later = chat;
  later.epoch += 1;  // the sender restarted: its ticks count anew
  later.tick = 1;
  EXPECT_EQ(east.TakeZoneChat(later), GhostVerdict::kTaken);
  east.Tick(std::span<const MoveInput>{}, {});
  EXPECT_EQ(east.output(0).chat_lines.size(), 1u);
}

// The split is configuration only: run whole, a split zone is the unsplit zone, bit for bit.
TEST(Cells, ASplitZoneRunWholeIsTheUnsplitZone) {
  WorldConfig split = SplitWorld();
  WorldConfig plain = split;
  plain.zones[0].cells = {};
  const auto run = [](const WorldConfig& config) {
    World w(config);
    std::vector<EntityId> players;
    for (int i = 0; i < 6; ++i) {
      EntityId id;
      EXPECT_TRUE(w.AddPlayer(std::nullopt, &id).ok());
      players.push_back(id);
    }
    testing::Hasher h;
    for (uint32_t t = 0; t < 200; ++t) {
      std::vector<MoveInput> moves;
      for (size_t i = 0; i < players.size(); ++i) {
        const uint32_t second = t / 20;  // a new heading every second
        const float a = static_cast<float>(second + i);
        moves.push_back({.entity = players[i], .seq = t, .direction = {std::cos(a), std::sin(a)}});
      }
      w.Tick(moves, {});
      testing::HashOutput(w.output(0), &h);
    }
    return h.value();
  };
  EXPECT_EQ(run(split), run(plain));
}

// ---- the oracle: one process against two cells ----

// What one tick showed, keyed by the ids both runs share: each player's known set, each hit
// event (attacker, skill, targets with damage), each entity's position and hp.
struct Seen {
  std::map<uint32_t, std::set<uint32_t>> known;  // by viewer raw id
  // (attacker, skill, target, damage), one per target of each event
  std::multiset<std::tuple<uint32_t, uint32_t, uint32_t, int32_t>> hits;
  std::map<uint32_t, std::pair<Vec2, int32_t>> body;  // real entities: position, hp
};

void Record(const Zone& zone, const ZoneTickOutput& o, Seen* seen, bool attacker_side) {
  for (const HitEvent& ev : o.events) {
    const Entity* attacker = zone.store().Find(ev.attacker);
    // A split cell tells a hit twice: where its attacker is real (the swing) and, a tick later,
    // where its target is (the damage applied). The oracle compares the swing.
    const bool swing = attacker != nullptr && !attacker->is_ghost();
    if (swing != attacker_side) continue;
    for (uint32_t t = 0; t < ev.num_targets; ++t) {
      const HitTarget& h = o.targets[ev.first_target + t];
      seen->hits.emplace(ToRaw(ev.attacker), ev.skill, ToRaw(h.target), h.damage);
    }
  }
  for (const Entity& e : zone.store().entities()) {
    if (!e.is_ghost()) seen->body[ToRaw(e.id)] = {e.position, e.hp};
  }
}

// Hands out, call by call, the id that the cell named next in `order` would hand out, so one
// process running the zone whole gives every entity the id the cells give it.
class AsTheCellsWould : public IdSource {
 public:
  AsTheCellsWould(const CellLayout& layout, std::vector<uint32_t> order)
      : order_(std::move(order)) {
    for (uint32_t c = 0; c < layout.count(); ++c) cells_.emplace_back(IdsOfCell(layout, c));
  }
  EntityId Allocate() override { return cells_.at(order_.at(next_++)).Allocate(); }
  bool Free(EntityId /*id*/) override { return false; }

 private:
  std::vector<uint32_t> order_;
  size_t next_ = 0;
  std::vector<EntityIdAllocator> cells_;
};

// `a` and `b` without what they share.
std::set<uint32_t> Differ(const std::set<uint32_t>& a, const std::set<uint32_t>& b) {
  std::set<uint32_t> out;
  std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(),
                                std::inserter(out, out.end()));
  return out;
}

// The same seeded scenario in one process (the zone whole) and in two cells (a World each,
// batches handed over after every tick): players standing on both sides of the border and
// swinging across it (sword, thrust, whirl), wolves chasing a player across it and migrating.
// Nothing dies (hp in the thousands), so a one-tick lag cannot cascade. What may differ, and
// only this (docs/seamless.md):
//   - a hit across the border lands on its target's hp one tick later (its owner applies it at
//     its next tick); everything else of a hit (attacker, targets, damage, tick) is the same;
//   - a player learns of an entity real in the other cell one tick late (its ghost is one tick
//     old): an entity the one process entered or dropped at tick t may be entered or dropped at
//     t + 1 instead.
// Everything else is asserted equal tick by tick: every entity's position, every player's known
// set, every hit list.
TEST(Cells, OneProcessAndTwoCellsTellTheSameStory) {
  WorldConfig config = SplitWorld();
  for (MonsterTemplate& m : config.monsters) {
    m.max_hp = 5000;
    if (m.id == testing::kWolf) m.aggro_radius = 12;
  }
  const auto at = [](Vec2 p) { return Aabb{p, p}; };
  config.zones[0].spawns = {
      {.monster = testing::kDummy, .count = 1, .area = at({50.8f, 30})},
      {.monster = testing::kDummy, .count = 1, .area = at({49.2f, 40})},
      {.monster = testing::kWolf, .count = 1, .area = at({56, 60})},
      {.monster = testing::kWolf, .count = 1, .area = at({44, 60})},
  };
  Split split(config);
  struct Player {
    const char* name;
    uint32_t cell;
    Vec2 at;
    uint32_t skill;  // 0: stands only
    float facing;
  };
  const Player players[] = {{"Eve", 1, {51, 40}, testing::kThrust, kPi},  // at the west's dummy
                            {"Wes", 0, {49, 30}, testing::kSword, 0},     // at the east's
                            {"Eva", 1, {60, 45}, 0, 0},
                            {"Wil", 0, {46, 61}, testing::kWhirl, 0}};  // the wolves' prey
  // The one process hands out the ids the cells would: the monsters', group by group, then the
  // players' as they join.
  std::vector<uint32_t> order;
  for (const SpawnGroup& g : config.zones[0].spawns) {
    order.push_back(CellAt(config.zones[0].bounds, config.zones[0].cells, g.area.min));
  }
  for (const Player& p : players) order.push_back(p.cell);
  AsTheCellsWould same_ids(config.zones[0].cells, order);
  World whole(config, {}, &same_ids);
  std::vector<EntityId> ids;
  for (const Player& p : players) {
    EntityId one = kInvalidEntity;
    ASSERT_TRUE(
        whole.RestorePlayer({.zone = kZone, .position = p.at, .hp = 100}, &one, p.name).ok());
    const EntityId two = Join(*split.cells[p.cell], p.at, p.name);
    ASSERT_EQ(one, two) << p.name << ": the same id in both runs";
    ids.push_back(one);
  }
  for (const Entity& e : whole.zone(0).store().entities()) {
    ASSERT_EQ(RealCopies(split, e.id), 1) << "every id the same in both runs";
  }

  Known known_one, known_two;
  std::multiset<std::tuple<uint32_t, uint32_t, uint32_t, int32_t>> owed;  // cross-border, last
  int cross_border_hits = 0, migrations = 0, lagged = 0;
  for (uint32_t tick = 1; tick <= 240; ++tick) {
    std::vector<SkillInput> swings;
    for (size_t i = 0; i < std::size(players); ++i) {
      if (players[i].skill != 0 && tick > 2) {  // from the first tick with ghosts on both sides
        swings.push_back({.entity = ids[i],
                          .seq = tick,
                          .skill = players[i].skill,
                          .facing = players[i].facing,
                          .target = {}});
      }
    }
    // Who is real where as this tick starts (a migrant in flight lands at its new cell).
    std::map<uint32_t, uint32_t> owner;
    for (uint32_t c = 0; c < 2; ++c) {
      for (const Entity& e : split.cells[c]->zone().store().entities()) {
        if (!e.is_ghost()) owner[ToRaw(e.id)] = c;
      }
      for (const GhostBatch& b : split.cells[c]->world.output(0).border) {
        for (const Migrant& m : b.migrants) owner[ToRaw(m.body.id)] = b.to_cell;
      }
    }
    const std::map<uint32_t, std::set<uint32_t>> before = known_one.of;
    whole.Tick(std::span<const MoveInput>{}, swings);
    split.Tick({}, {}, swings);
    Seen one, two, applied;
    known_one.Apply(whole.output(0));
    Record(whole.zone(0), whole.output(0), &one, true);
    for (const auto& c : split.cells) {
      known_two.Apply(c->world.output(0));
      Record(c->zone(), c->world.output(0), &two, true);
      Record(c->zone(), c->world.output(0), &applied, false);
      for (const GhostBatch& b : c->world.output(0).border) {
        migrations += static_cast<int>(b.migrants.size());
        for (const Migrant& m : b.migrants) {  // in flight: its state as it left
          two.body[ToRaw(m.body.id)] = {m.body.position, m.body.hp};
        }
      }
    }
    for (size_t i = 0; i < std::size(players); ++i) {
      const uint32_t v = ToRaw(ids[i]);
      const std::set<uint32_t> news =
          Differ(known_one.of[v], before.count(v) > 0 ? before.at(v) : std::set<uint32_t>{});
      for (const uint32_t e : Differ(known_one.of[v], known_two.of[v])) {
        const auto real_in = [&](uint32_t cell) {
          const Entity* x = split.cells[cell]->zone().store().Find(static_cast<EntityId>(e));
          return x != nullptr && !x->is_ghost();
        };
        const bool other_side =
            (owner.count(e) > 0 && owner.at(e) != players[i].cell) || !real_in(players[i].cell);
        EXPECT_TRUE(other_side && news.count(e) > 0)
            << players[i].name << " knows entity " << e << " differently at tick " << tick
            << ": only an entity of the other cell, entered or dropped this tick, may be late";
        ++lagged;
      }
    }
    ASSERT_EQ(two.hits, one.hits) << "the same swings hit the same targets, tick " << tick;
    EXPECT_EQ(applied.hits, owed) << "last tick's hits across the border, applied by their "
                                     "targets' owners now, tick "
                                  << tick;
    owed.clear();
    std::map<uint32_t, int32_t> lag;  // damage across the border this tick, by target
    for (const auto& [attacker, skill, target, damage] : one.hits) {
      if (owner.at(attacker) != owner.at(target)) {
        owed.emplace(attacker, skill, target, damage);
        lag[target] += damage;
        ++cross_border_hits;
      }
    }
    ASSERT_EQ(two.body.size(), one.body.size()) << "every entity real in exactly one cell";
    for (const auto& [id, b] : one.body) {
      EXPECT_EQ(two.body.at(id).first, b.first) << "the same position, entity " << id;
      EXPECT_EQ(two.body.at(id).second, b.second + lag[id])
          << "the same hp but for damage across the border, entity " << id << " tick " << tick;
    }
  }
  EXPECT_GT(cross_border_hits, 20) << "swords, thrusts, whirls and bites across the border";
  EXPECT_GE(migrations, 1) << "a wolf chased Wil across the border";
  EXPECT_LT(lagged, 20) << "a tick late now and then, never more";
}

// Caps and ties across the border are as in one process: five dummies in Wes's sword arc, two
// on his side and three on the other, four of them at exactly the same distance (two pairs
// mirrored across his position, so the border splits each pair). The sword hits at most 3,
// nearest first, ties by id; the whirl hits all 5. The west's hit lists (the east's dummies are
// ghosts there) equal those of the same zone run whole with the same ids, target for target.
TEST(Cells, ASwingsCapAndTiesAcrossTheBorderAreAsInOneProcess) {
  WorldConfig config = SplitWorld();
  const auto at = [](Vec2 p) { return Aabb{p, p}; };
  config.zones[0].spawns = {
      {.monster = testing::kDummy, .count = 1, .area = at({50.5f, 21.5f})},  // east, tied
      {.monster = testing::kDummy, .count = 1, .area = at({48.5f, 21.5f})},  // west, tied
      {.monster = testing::kDummy, .count = 1, .area = at({51.0f, 21.0f})},  // east, tied
      {.monster = testing::kDummy, .count = 1, .area = at({48.0f, 21.0f})},  // west, tied
      {.monster = testing::kDummy, .count = 1, .area = at({49.5f, 21.2f})},  // west, nearest
  };
  const Vec2 wes_at{49.5f, 20};
  Split split(config);
  std::vector<uint32_t> order;
  for (const SpawnGroup& g : config.zones[0].spawns) {
    order.push_back(CellAt(config.zones[0].bounds, config.zones[0].cells, g.area.min));
  }
  order.push_back(0);  // Wes
  AsTheCellsWould same_ids(config.zones[0].cells, order);
  World whole(config, {}, &same_ids);
  EntityId wes = kInvalidEntity;
  ASSERT_TRUE(
      whole.RestorePlayer({.zone = kZone, .position = wes_at, .hp = 100}, &wes, "Wes").ok());
  ASSERT_EQ(Join(*split.cells[0], wes_at, "Wes"), wes);
  for (int t = 0; t < 2; ++t) {
    split.Tick();
    whole.Tick(std::span<const MoveInput>{}, {});
  }
  const auto hits = [&](const ZoneTickOutput& o) {
    std::vector<std::pair<uint32_t, int32_t>> out;
    for (const HitEvent& ev : o.events) {
      if (ev.attacker != wes) continue;
      for (uint32_t t = 0; t < ev.num_targets; ++t) {
        const HitTarget& h = o.targets[ev.first_target + t];
        out.emplace_back(ToRaw(h.target), h.damage);
      }
    }
    return out;
  };
  uint32_t seq = 0;
  for (const uint32_t skill : {testing::kSword, testing::kWhirl}) {
    const SkillInput swing{
        .entity = wes, .seq = ++seq, .skill = skill, .facing = kPi / 2, .target = {}};
    split.Tick({}, {}, {&swing, 1});
    whole.Tick({}, {&swing, 1});
    const auto two_cells = hits(split.cells[0]->world.output(0));
    const auto one_process = hits(whole.output(0));
    EXPECT_EQ(two_cells, one_process) << "skill " << skill;
    ASSERT_EQ(two_cells.size(), skill == testing::kSword ? 3u : 5u) << "skill " << skill;
    std::set<uint32_t> sides;
    for (const auto& [target, damage] : two_cells) {
      sides.insert(EntityIndex(static_cast<EntityId>(target)) % 2);
    }
    EXPECT_EQ(sides.size(), 2u) << "skill " << skill << ": targets on both sides";
  }
}

}  // namespace
}  // namespace zs::zone