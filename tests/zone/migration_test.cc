// Migration across a cell border (docs/seamless.md "Migration"), through the zone as a node runs
// it (split_cells.h): a monster and a player cross with their whole state, are real in exactly
// one cell at every tick, keep their ids, and no viewer sees them leave or enter again.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "zone/split_cells.h"
#include "zone/test_world.h"
#include "zone/world.h"

namespace zs::zone {
namespace {

using testing::HitsOn;
using testing::Join;
using testing::RealCopies;
using testing::Sightings;
using testing::Split;
using testing::SplitWorld;

// A wolf of the east chases a player of the west across the border: at the tick its centre is
// migration_margin past it, the west makes it real with its whole state (hp, AI, target, home,
// cooldowns) and the east keeps it as a ghost; when its prey runs beyond its leash it goes home
// and migrates back. It is real in exactly one cell at every tick, keeps its id, and no player
// on either side sees it leave or enter again.
TEST(Cells, AMonsterMigratesAcrossTheBorderWithItsStateAndBack) {
  WorldConfig config = SplitWorld();
  config.zones[0].spawns = {{.monster = testing::kWolf, .count = 1, .area = {{53, 20}, {53, 20}}}};
  Split split(config);
  const EntityId wes = Join(*split.cells[0], {46, 20}, "Wes");
  const EntityId eve = Join(*split.cells[1], {51, 32}, "Eve");  // beyond its aggro radius
  const EntityId wolf = split.cells[1]->zone().store().entities()[0].id;
  const Zone& west = split.cells[0]->zone();
  const Zone& east = split.cells[1]->zone();
  Sightings seen{.of = wolf, .entered = {}, .left = {}};
  const auto tick = [&](std::span<const MoveInput> moves = {}) {
    split.Tick(moves);
    for (const auto& c : split.cells) seen.Apply(c->world.output(0));
    EXPECT_EQ(RealCopies(split, wolf), 1) << "real in exactly one cell at every tick";
  };
  int ticks = 0;
  while ((west.store().Find(wolf) == nullptr || west.store().Find(wolf)->is_ghost()) &&
         ticks++ < 200)
    tick();
  ASSERT_LT(ticks, 200) << "the wolf never came to the west";
  const Entity* w = west.store().Find(wolf);
  ASSERT_NE(w, nullptr);
  EXPECT_LT(w->position.x, 50.0f - config.zones[0].cells.migration_margin);
  EXPECT_EQ(w->id, wolf) << "the same id";
  EXPECT_EQ(w->monster().ai, MonsterState::kChase);
  EXPECT_EQ(w->monster().target, wes);
  EXPECT_EQ(w->monster().home, (Vec2{53, 20})) << "its home stays in the east";
  EXPECT_EQ(east.store().Find(wolf)->ghost_of, 0u) << "the east shows it as the west's ghost";

  int bites = 0;
  for (int t = 0; t < 100 && bites == 0; ++t) {
    tick();
    bites += static_cast<int>(HitsOn(split.cells[0]->world.output(0), wolf, wes).size());
  }
  EXPECT_GT(bites, 0) << "it bites Wes as a real monster of the west now";
  const uint64_t ready = west.store().Find(wolf)->ready_tick[0];
  EXPECT_GT(ready, split.cells[0]->world.tick()) << "its bite is cooling down";

  // Wes runs west, beyond the wolf's leash: it gives up, goes home and migrates back.
  const MoveInput flee{.entity = wes, .seq = 1, .direction = {-1, 0}};
  ticks = 0;
  while ((east.store().Find(wolf) == nullptr || east.store().Find(wolf)->is_ghost()) &&
         ticks++ < 400) {
    tick({&flee, 1});
  }
  ASSERT_LT(ticks, 400) << "the wolf never went home";
  for (int t = 0; t < 100 && east.store().Find(wolf)->monster().ai != MonsterState::kIdle; ++t)
    tick();
  EXPECT_FALSE(east.store().Find(wolf)->is_ghost());
  EXPECT_EQ(east.store().Find(wolf)->monster().ai, MonsterState::kIdle) << "home again";
  EXPECT_LE(Length(east.store().Find(wolf)->position - Vec2{53, 20}), 0.5f);
  EXPECT_EQ(seen.entered[ToRaw(eve)], 1) << "Eve saw it enter once, and never leave";
  EXPECT_EQ(seen.left[ToRaw(eve)], 0);
  EXPECT_EQ(seen.entered[ToRaw(wes)], 1) << "Wes too, until it went out of his sight";
}

// Swings at a monster in the very tick it migrates toward the swinger: its old owner could not
// apply them (it had let the monster go), so the swinger's cell applies them as it takes the
// monster, unless the old owner had applied them before it let go (its batch says up to which
// of the swinger's ticks: nodes' ticks are out of phase, `staggered`). Whatever the timing, the
// monster dies of exactly as many swings as in one process.
TEST(Cells, SwingsAtAMigratingMonsterAreAppliedOnce) {
  WorldConfig config = SplitWorld();
  config.zones[0].spawns = {{.monster = testing::kWolf, .count = 1, .area = {{53, 20}, {53, 20}}}};
  bool swung_as_it_crossed = false;
  for (uint32_t run = 0; run < 20; ++run) {
    const uint32_t offset = run % 10;
    Split split(config);
    split.staggered = run >= 10;
    const EntityId wes = Join(*split.cells[0], {46, 20}, "Wes");
    const EntityId wolf = split.cells[1]->zone().store().entities()[0].id;
    int kills = 0, landed = 0;
    uint32_t seq = 1;
    for (uint32_t t = 0; t < 300 && kills == 0; ++t) {
      std::vector<SkillInput> swings;
      if (t >= offset) {
        swings.push_back(
            {.entity = wes, .seq = seq++, .skill = testing::kSword, .facing = 0, .target = {}});
      }
      const bool was_ghost = split.cells[0]->zone().store().Find(wolf) != nullptr &&
                             split.cells[0]->zone().store().Find(wolf)->is_ghost();
      split.Tick({}, {}, swings);
      const std::vector<HitTarget> west = HitsOn(split.cells[0]->world.output(0), wes, wolf);
      const std::vector<HitTarget> east = HitsOn(split.cells[1]->world.output(0), wes, wolf);
      const bool crossed = !split.cells[1]->world.output(0).border.at(0).migrants.empty();
      if (was_ghost && crossed && !west.empty()) swung_as_it_crossed = true;
      for (const HitTarget& h : west) kills += h.killed ? 1 : 0;
      for (const HitTarget& h : east) kills += h.killed ? 1 : 0;
      // A swing of this tick that hit (the kill of a migrant hit last tick is told the tick
      // after its swing, when the sword is cooling down).
      const bool swung =
          std::any_of(split.cells[0]->world.output(0).results.begin(),
                      split.cells[0]->world.output(0).results.end(), [&](const InputResult& r) {
                        return r.kind == InputKind::kSkill && r.outcome == Outcome::kAccepted;
                      });
      landed += swung && !west.empty() ? 1 : 0;
      EXPECT_EQ(RealCopies(split, wolf), 1);
    }
    EXPECT_EQ(kills, 1) << "offset " << offset << (split.staggered ? ", staggered" : "");
    EXPECT_EQ(landed, 3) << "30 hp, 12 a swing: the third kills, offset " << offset
                         << (split.staggered ? ", staggered" : "");
  }
  EXPECT_TRUE(swung_as_it_crossed) << "some run swung in the tick of the migration";
}

// A player walks across the border and back (players cross: the host relays its connection).
// Each tick exactly one cell builds his view; what his client knows goes on across the border:
// nothing he knew is entered again or told to leave, and what changed meanwhile comes as
// updates. His input sequence and cooldowns go with him, and he is real in one cell at a time.
TEST(Cells, APlayerWalksAcrossTheBorderAndHisViewGoesOn) {
  WorldConfig config = SplitWorld();
  config.zones[0].spawns = {{.monster = testing::kDummy, .count = 1, .area = {{46, 26}, {46, 26}}},
                            {.monster = testing::kDummy, .count = 1, .area = {{55, 26}, {55, 26}}}};
  Split split(config);
  for (const auto& c : split.cells) c->world.SetPlayersCross(true);
  const EntityId wes = Join(*split.cells[0], {44, 20}, "Wes");
  const EntityId eve = Join(*split.cells[1], {60, 20}, "Eve");
  split.Tick();
  split.Tick();
  ASSERT_TRUE(split.known.Knows(eve, wes) && split.known.Knows(wes, eve)) << "16 m apart";
  Sightings his{.of = wes, .entered = {}, .left = {}};  // how others see Wes
  std::map<uint32_t, int> entered, left;                // what Wes is told, by entity
  uint32_t seq = 0;
  int crossings = 0;
  uint32_t last_cell = 0;
  const SkillInput swing{
      .entity = wes, .seq = 0, .skill = testing::kWhirl, .facing = 0, .target = {}};
  const auto walk = [&](float dx, int ticks, bool swing_first) {
    for (int t = 0; t < ticks; ++t) {
      const MoveInput move{.entity = wes, .seq = ++seq, .direction = {dx, 0}};
      SkillInput s = swing;
      const bool swings = swing_first && t == 0;
      if (swings) s.seq = ++seq;
      split.Tick({&move, 1}, {}, swings ? std::span(&s, 1) : std::span<const SkillInput>{});
      int views = 0;
      for (uint32_t c = 0; c < 2; ++c) {
        const ZoneTickOutput& o = split.cells[c]->world.output(0);
        his.Apply(o);
        for (const PlayerView& v : o.views) {
          if (v.player != wes) continue;
          ++views;
          EXPECT_EQ(v.last_input_seq, seq) << "his inputs acknowledged on either side";
          for (const uint32_t slot : v.entered) ++entered[ToRaw(o.states[slot].id)];
          for (const EntityId id : v.left) ++left[ToRaw(id)];
          if (c != last_cell) ++crossings;
          last_cell = c;
        }
      }
      EXPECT_EQ(views, 1) << "one view of his each tick, from the cell he is real in";
      EXPECT_EQ(RealCopies(split, wes), 1);
    }
  };
  walk(1, 60, true);  // 0.25 m a tick: 15 m east, across the border at x = 50
  const Entity* east_wes = split.cells[1]->zone().store().Find(wes);
  ASSERT_TRUE(east_wes != nullptr && !east_wes->is_ghost()) << "real in the east now";
  EXPECT_GT(east_wes->ready_tick[1], 0u) << "his whirl's cooldown came with him";
  EXPECT_EQ(split.cells[1]->zone().store().player_count(), 2u);
  EXPECT_EQ(split.cells[0]->zone().store().player_count(), 0u);
  EXPECT_TRUE(split.cells[0]->zone().store().Find(wes)->is_ghost()) << "a ghost in the west";
  walk(-1, 60, false);
  EXPECT_FALSE(split.cells[0]->zone().store().Find(wes)->is_ghost()) << "and back";
  EXPECT_EQ(crossings, 2);
  for (const auto& [id, n] : entered) EXPECT_EQ(n, 1) << "entity " << id << " entered once";
  EXPECT_EQ(left.count(ToRaw(eve)), 0u) << "Eve was never told to leave";
  EXPECT_EQ(his.entered[ToRaw(eve)], 0) << "Eve, who knew Wes, never saw him enter again";
  EXPECT_EQ(his.left[ToRaw(eve)], 0);
  EXPECT_EQ(split.cells[0]->world.NameOf(wes), "Wes");
}

// Wes's client leaves the west, his home, while he is real in the east: the west frees his id
// only once nothing of him is left there (his ghost gone) and kReleaseAfterTicks have passed,
// so his index is never reused while the old entity may still come back as a ghost or migrant.
TEST(Cells, TheIdOfAPlayerWhoLeftWhileAwayIsFreedAtHisHomeOnceNothingHoldsIt) {
  Split split(SplitWorld());
  for (const auto& c : split.cells) c->world.SetPlayersCross(true);
  const EntityId wes = Join(*split.cells[0], {48, 20}, "Wes");
  const size_t live = split.cells[0]->ids.live();
  uint32_t seq = 0;
  for (int t = 0; t < 40; ++t) {
    const MoveInput move{.entity = wes, .seq = ++seq, .direction = {1, 0}};
    split.Tick({&move, 1});
  }
  const MoveInput stop{.entity = wes, .seq = ++seq, .direction = {0, 0}};
  split.Tick({&stop, 1});
  ASSERT_EQ(RealCopies(split, wes), 1);
  ASSERT_FALSE(split.cells[1]->zone().store().Find(wes)->is_ghost()) << "real in the east";
  split.cells[0]->world.ReleaseWhenGone(wes);  // his client left the west

  // The east has not let him go yet: his ghost in the west keeps his id taken.
  for (uint64_t t = 0; t < World::kReleaseAfterTicks + 20; ++t) split.Tick();
  ASSERT_NE(split.cells[0]->zone().store().Find(wes), nullptr) << "his ghost";
  EXPECT_EQ(split.cells[0]->ids.live(), live) << "held by his ghost: not freed";
  EXPECT_EQ(split.cells[0]->world.releasing(), 1u);

  const size_t east_live = split.cells[1]->ids.live();
  ASSERT_TRUE(split.cells[1]->world.RemovePlayer(wes).ok());  // the east saves him, lets him go
  EXPECT_EQ(split.cells[1]->ids.live(), east_live) << "not the east's to free";
  for (int t = 0; t < 3; ++t) split.Tick();
  EXPECT_EQ(split.cells[0]->zone().store().Find(wes), nullptr) << "his ghost went with him";
  EXPECT_EQ(split.cells[0]->ids.live(), live) << "not before kReleaseAfterTicks more";
  for (uint64_t t = 0; t < World::kReleaseAfterTicks; ++t) split.Tick();
  EXPECT_EQ(split.cells[0]->ids.live(), live - 1) << "freed at his home";
  EXPECT_EQ(split.cells[0]->world.releasing(), 0u);

  // His index is taken by Ann; a late second release of his old id frees nothing of hers.
  const EntityId ann = Join(*split.cells[0], {20, 20}, "Ann");
  ASSERT_EQ(EntityIndex(ann), EntityIndex(wes)) << "the freed index, reused";
  split.cells[0]->world.ReleaseWhenGone(wes);
  for (uint64_t t = 0; t <= World::kReleaseAfterTicks; ++t) split.Tick();
  EXPECT_EQ(split.cells[0]->world.releasing(), 0u);
  EXPECT_EQ(split.cells[0]->ids.live(), live) << "Ann's id stays taken";
  EXPECT_EQ(split.cells[0]->world.NameOf(ann), "Ann") << "and her name hers";
}

}  // namespace
}  // namespace zs::zone
