// CellBorder (zone/cell_border.h): every batch checked whole, ghosts, hits, says and migrants,
// through the zone as a node runs it (split_cells.h); then the border alone, with entities of
// its own (the zone's side faked), for the rules that are its own: which ghosts stay, which late
// hits are applied once, which neighbours are shown an entity.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "zone/cell_border.h"
#include "zone/split_cells.h"
#include "zone/test_world.h"
#include "zone/world.h"

namespace zs::zone {
namespace {

using testing::BadBatch;
using testing::HitsOn;
using testing::Join;
using testing::Split;
using testing::SplitWorld;

TEST(Cells, ABatchIsCheckedWholeAndARefusedOneChangesNothing) {
  Split split(SplitWorld());
  Join(*split.cells[1], {52, 20}, "Eve");
  split.cells[1]->world.Tick(std::span<const MoveInput>{}, {});
  const GhostBatch good = split.cells[1]->world.output(0).border.at(0);
  ASSERT_EQ(good.ghosts.size(), 3u) << "Eve and the two dummies";
  const BadBatch cases[] = {
      {"another zone", [](GhostBatch* b) { b->zone = 2; }, GhostVerdict::kNotANeighbour},
      {"for another cell", [](GhostBatch* b) { b->to_cell = 1; }, GhostVerdict::kNotANeighbour},
      {"from itself", [](GhostBatch* b) { b->from_cell = 0; }, GhostVerdict::kNotANeighbour},
      {"from no cell", [](GhostBatch* b) { b->from_cell = 7; }, GhostVerdict::kNotANeighbour},
      {"an id real at the west", [](GhostBatch* b) { b->ghosts[0].id = MakeEntityId(2, 0); },
       GhostVerdict::kForeignId},
      {"an id twice", [](GhostBatch* b) { b->ghosts[1].id = b->ghosts[0].id; },
       GhostVerdict::kForeignId},
      {"the invalid id", [](GhostBatch* b) { b->ghosts[0].id = kInvalidEntity; },
       GhostVerdict::kForeignId},
      {"a NaN position",
       [](GhostBatch* b) { b->ghosts[0].position.x = std::numeric_limits<float>::quiet_NaN(); },
       GhostVerdict::kBadValue},
      {"outside the zone",
       [](GhostBatch* b) {
         b->ghosts[0].position = {101, 20};
       },
       GhostVerdict::kBadValue},
      {"far from the border",
       [](GhostBatch* b) {
         b->ghosts[0].position = {99, 20};
       },
       GhostVerdict::kBadValue},
      {"hp above max", [](GhostBatch* b) { b->ghosts[0].hp = b->ghosts[0].max_hp + 1; },
       GhostVerdict::kBadValue},
      {"no max hp", [](GhostBatch* b) { b->ghosts[0].max_hp = 0; }, GhostVerdict::kBadValue},
      {"a huge radius", [](GhostBatch* b) { b->ghosts[0].radius = 1e6f; }, GhostVerdict::kBadValue},
      {"an infinite velocity",
       [](GhostBatch* b) { b->ghosts[0].velocity.y = std::numeric_limits<float>::infinity(); },
       GhostVerdict::kBadValue},
      {"an unknown monster",
       [](GhostBatch* b) {
         for (GhostState& g : b->ghosts) {
           if (g.kind == EntityKind::kMonster) g.template_id = 99;
         }
       },
       GhostVerdict::kBadValue},
      {"a player with a template",
       [](GhostBatch* b) {
         for (GhostState& g : b->ghosts) {
           if (g.kind == EntityKind::kPlayer) g.template_id = 1;
         }
       },
       GhostVerdict::kBadValue},
      {"a name of 1 KB", [](GhostBatch* b) { b->ghosts[0].name.assign(1024, 'x'); },
       GhostVerdict::kBadValue},
      {"too many", [](GhostBatch* b) { b->ghosts.resize(kMaxGhostsPerBatch + 1, b->ghosts[0]); },
       GhostVerdict::kTooMany},
  };
  World& west = split.cells[0]->world;
  for (const BadBatch& c : cases) {
    GhostBatch b = good;
    c.spoil(&b);
    EXPECT_EQ(west.TakeGhosts(b), c.verdict) << c.what;
  }
  west.Tick(std::span<const MoveInput>{}, {});
  EXPECT_EQ(west.zone(0).store().ghost_count(), 0u) << "nothing of a refused batch was applied";

  EXPECT_EQ(west.TakeGhosts(good), GhostVerdict::kTaken);
  EXPECT_EQ(west.TakeGhosts(good), GhostVerdict::kStale) << "a replay";
  GhostBatch older = good;
  older.tick -= 1;
  EXPECT_EQ(west.TakeGhosts(older), GhostVerdict::kStale) << "late";
  GhostBatch restarted = good;
  restarted.epoch += 1;
  restarted.tick = 1;
  EXPECT_EQ(west.TakeGhosts(restarted), GhostVerdict::kTaken) << "the sender's next run";
  west.Tick(std::span<const MoveInput>{}, {});
  EXPECT_EQ(west.zone(0).store().ghost_count(), 3u);

  World whole(SplitWorld());  // the split zone run whole, as one process would
  EXPECT_EQ(whole.TakeGhosts(good), GhostVerdict::kNotANeighbour);
}

TEST(Cells, AHitIsCheckedWithItsBatch) {
  WorldConfig config = SplitWorld();
  config.zones[0].spawns = {{.monster = testing::kDummy, .count = 1, .area = {{48, 20}, {48, 20}}}};
  Split split(config);
  const EntityId eve = Join(*split.cells[1], {51, 20}, "Eve");
  const EntityId dummy = split.cells[0]->zone().store().entities()[0].id;
  split.cells[1]->world.Tick(std::span<const MoveInput>{}, {});
  GhostBatch good = split.cells[1]->world.output(0).border.at(0);
  good.hits = {{.attacker = eve, .target = dummy, .skill = testing::kSword, .damage = 12}};
  World& west = split.cells[0]->world;
  const auto verdict = [&](void (*spoil)(GhostBatch*, EntityId)) {
    GhostBatch b = good;
    spoil(&b, eve);
    return west.TakeGhosts(b);
  };
  EXPECT_EQ(verdict([](GhostBatch* b, EntityId) { b->hits[0].attacker = MakeEntityId(9, 0); }),
            GhostVerdict::kForeignId)
      << "an attacker the batch does not list";
  EXPECT_EQ(verdict([](GhostBatch* b, EntityId) { b->hits[0].target = kInvalidEntity; }),
            GhostVerdict::kForeignId)
      << "no target";
  EXPECT_EQ(verdict([](GhostBatch* b, EntityId) { b->hits[0].damage = 1000; }),
            GhostVerdict::kBadValue)
      << "more than the skill deals";
  EXPECT_EQ(verdict([](GhostBatch* b, EntityId) {
              b->hits[0].skill = testing::kBite;
              b->hits[0].damage = 5;
            }),
            GhostVerdict::kBadValue)
      << "a skill players do not have";
  EXPECT_EQ(verdict([](GhostBatch* b, EntityId) { b->hits[0].skill = 99; }),
            GhostVerdict::kBadValue);
  west.Tick(std::span<const MoveInput>{}, {});
  EXPECT_EQ(west.zone(0).store().Find(dummy)->hp, west.zone(0).store().Find(dummy)->max_hp)
      << "no refused hit was applied";
  EXPECT_EQ(west.TakeGhosts(good), GhostVerdict::kTaken);
  west.Tick(std::span<const MoveInput>{}, {});
  EXPECT_EQ(west.zone(0).store().Find(dummy)->hp, west.zone(0).store().Find(dummy)->max_hp - 12);
  EXPECT_EQ(HitsOn(west.output(0), eve, dummy).size(), 1u) << "told to the west's viewers";
}

// A migrant is checked with its batch: it must be a monster of one of the zone's groups, in the
// receiving cell, not real there already, with the timers its template allows.
TEST(Cells, AMigrantIsCheckedWithItsBatch) {
  WorldConfig config = SplitWorld();
  config.zones[0].spawns.push_back(
      {.monster = testing::kWolf, .count = 1, .area = {{53, 20}, {53, 20}}, .respawn_ticks = 40});
  Split split(config);
  split.cells[1]->world.Tick(std::span<const MoveInput>{}, {});
  GhostBatch good = split.cells[1]->world.output(0).border.at(0);
  const Entity* wolf = nullptr;
  for (const Entity& e : split.cells[1]->zone().store().entities()) {
    if (e.template_id == testing::kWolf) wolf = &e;
  }
  ASSERT_NE(wolf, nullptr);
  std::erase_if(good.ghosts, [&](const GhostState& g) { return g.id == wolf->id; });
  good.migrants.push_back({.body = {.id = wolf->id,
                                    .kind = EntityKind::kMonster,
                                    .template_id = testing::kWolf,
                                    .position = {47.5f, 20},
                                    .velocity = {-0.2f, 0},
                                    .facing = kPi,
                                    .radius = 0.5f,
                                    .hp = 18,
                                    .max_hp = 30,
                                    .alive = true,
                                    .name = {}},
                           .player = {},
                           .spawn_group = 2,
                           .ai = MonsterState::kChase,
                           .target = MakeEntityId(40, 0),
                           .home = {53, 20},
                           .wander_goal = {53, 20},
                           .think_in = 3,
                           .respawn_in = 0,
                           .ready_in = {7, 0, 0, 0}});
  const BadBatch cases[] = {
      {"real at the west", [](GhostBatch* b) { b->migrants[0].body.id = MakeEntityId(2, 0); },
       GhostVerdict::kForeignId},
      {"also a ghost", [](GhostBatch* b) { b->ghosts.push_back(b->migrants[0].body); },
       GhostVerdict::kForeignId},
      {"still in the east", [](GhostBatch* b) { b->migrants[0].body.position.x = 50.5f; },
       GhostVerdict::kBadValue},
      {"a player", [](GhostBatch* b) { b->migrants[0].body.kind = EntityKind::kPlayer; },
       GhostVerdict::kBadValue},
      {"a group of dummies", [](GhostBatch* b) { b->migrants[0].spawn_group = 0; },
       GhostVerdict::kBadValue},
      {"no such group", [](GhostBatch* b) { b->migrants[0].spawn_group = 9; },
       GhostVerdict::kBadValue},
      {"a cooldown longer than its bite's", [](GhostBatch* b) { b->migrants[0].ready_in[0] = 21; },
       GhostVerdict::kBadValue},
      {"alive with a respawn timer", [](GhostBatch* b) { b->migrants[0].respawn_in = 5; },
       GhostVerdict::kBadValue},
      {"no AI state", [](GhostBatch* b) { b->migrants[0].ai = static_cast<MonsterState>(7); },
       GhostVerdict::kBadValue},
      {"a home outside the zone",
       [](GhostBatch* b) {
         b->migrants[0].home = {200, 20};
       },
       GhostVerdict::kBadValue},
      {"more hp than a wolf has",
       [](GhostBatch* b) {
         b->migrants[0].body.max_hp = 300;
         b->migrants[0].body.hp = 300;
       },
       GhostVerdict::kBadValue},
  };
  World& west = split.cells[0]->world;
  for (const BadBatch& c : cases) {
    GhostBatch b = good;
    c.spoil(&b);
    EXPECT_EQ(west.TakeGhosts(b), c.verdict) << c.what;
  }
  west.Tick(std::span<const MoveInput>{}, {});
  EXPECT_EQ(west.zone(0).store().Find(wolf->id), nullptr)
      << "nothing of a refused migrant was applied";
  ASSERT_EQ(west.TakeGhosts(good), GhostVerdict::kTaken);
  west.Tick(std::span<const MoveInput>{}, {});
  const Entity* taken = west.zone(0).store().Find(wolf->id);
  ASSERT_NE(taken, nullptr);
  EXPECT_FALSE(taken->is_ghost());
  EXPECT_EQ(taken->hp, 18);
  EXPECT_EQ(taken->monster().ai, MonsterState::kReturn) << "its prey is nowhere here: home";
  EXPECT_EQ(taken->monster().home, (Vec2{53, 20}));
  EXPECT_EQ(taken->ready_tick[0], west.tick() - 1 + 7) << "7 ticks after the sender's tick";
  GhostBatch again = good;
  again.tick += 1;
  EXPECT_EQ(west.TakeGhosts(again), GhostVerdict::kForeignId) << "never a second real copy";
}

// A player migrant is taken only where players cross (its node relays the connection), and
// checked like a monster's: the player template's hitbox and max hp, a name, a sane walking
// direction and view radius, timers within the players' skills and respawn.
TEST(Cells, APlayerMigrantIsCheckedWithItsBatch) {
  Split split(SplitWorld());
  const EntityId eve = Join(*split.cells[1], {51, 20}, "Eve");
  split.Tick();
  split.Tick();  // the west holds her ghost
  ASSERT_TRUE(split.cells[0]->zone().store().Find(eve) != nullptr);
  split.cells[1]->world.Tick(std::span<const MoveInput>{}, {});
  GhostBatch good = split.cells[1]->world.output(0).border.at(0);
  std::erase_if(good.ghosts, [&](const GhostState& g) { return g.id == eve; });
  Migrant eve_moves;
  eve_moves.body = {.id = eve,
                    .kind = EntityKind::kPlayer,
                    .template_id = 0,
                    .position = {49.5f, 20},
                    .velocity = {-0.25f, 0},
                    .facing = kPi,
                    .radius = 0.5f,
                    .hp = 90,
                    .max_hp = 100,
                    .alive = true,
                    .name = "Eve"};
  eve_moves.player = {.move_direction = {-1, 0},
                      .last_input_seq = 41,
                      .input_seq_seen = true,
                      .view_radius = 0,
                      .last_target = kInvalidEntity,
                      .known = {}};
  eve_moves.ready_in = {3, 0, 0, 0};
  good.migrants.push_back(eve_moves);
  World& west = split.cells[0]->world;
  EXPECT_EQ(west.TakeGhosts(good), GhostVerdict::kBadValue) << "players do not cross here";
  west.SetPlayersCross(true);
  const BadBatch cases[] = {
      {"no name", [](GhostBatch* b) { b->migrants[0].body.name.clear(); }, GhostVerdict::kBadValue},
      {"another hitbox", [](GhostBatch* b) { b->migrants[0].body.radius = 2; },
       GhostVerdict::kBadValue},
      {"running faster than walking",
       [](GhostBatch* b) {
         b->migrants[0].player.move_direction = {3, 0};
       },
       GhostVerdict::kBadValue},
      {"a NaN view radius",
       [](GhostBatch* b) {
         b->migrants[0].player.view_radius = std::numeric_limits<float>::quiet_NaN();
       },
       GhostVerdict::kBadValue},
      {"a cooldown of a minute", [](GhostBatch* b) { b->migrants[0].ready_in[0] = 1200; },
       GhostVerdict::kBadValue},
  };
  for (const BadBatch& c : cases) {
    GhostBatch b = good;
    c.spoil(&b);
    EXPECT_EQ(west.TakeGhosts(b), c.verdict) << c.what;
  }
  ASSERT_EQ(west.TakeGhosts(good), GhostVerdict::kTaken);
  const MoveInput on{.entity = eve, .seq = 42, .direction = {-1, 0}};
  west.Tick({&on, 1}, {});
  const Entity* taken = west.zone(0).store().Find(eve);
  ASSERT_NE(taken, nullptr);
  EXPECT_FALSE(taken->is_ghost());
  EXPECT_EQ(taken->hp, 90);
  EXPECT_EQ(west.zone(0).store().player_count(), 1u);
  EXPECT_EQ(west.output(0).views.size(), 1u) << "her view is built here now";
  EXPECT_EQ(west.output(0).views[0].last_input_seq, 42u) << "her input of this tick applied";
  EXPECT_EQ(west.NameOf(eve), "Eve");
}

// ---- the border alone ----

// The zone's side of the border, faked: which ids are real here, and what the border asked of it.
class FakeEntities final : public CellBorder::Entities {
 public:
  [[nodiscard]] bool RealHere(EntityId id) const override { return real.count(ToRaw(id)) > 0; }
  void Haunt(const GhostState& g, uint32_t from_cell) override {
    haunted.emplace_back(ToRaw(g.id), from_cell);
  }
  bool Immigrate(const Migrant& m, uint32_t /*from_cell*/) override {
    return real.insert(ToRaw(m.body.id)).second;
  }
  std::set<uint32_t> real;
  std::vector<std::pair<uint32_t, uint32_t>> haunted;  // (raw id, from cell), in call order
};

EntityId Id(uint32_t index) { return MakeEntityId(index, 0); }

// Cell `from`'s batch for cell `to` of tick `tick`, with nothing in it.
GhostBatch EmptyBatch(uint32_t from, uint32_t to, uint64_t tick) {
  GhostBatch b;
  b.zone = testing::kZone;
  b.from_cell = from;
  b.to_cell = to;
  b.epoch = 1;
  b.tick = tick;
  return b;
}

// A player's ghost at `at`, as its owner would list it.
GhostState PlayerGhost(const WorldConfig& w, uint32_t index, Vec2 at) {
  GhostState g;
  g.id = Id(index);
  g.kind = EntityKind::kPlayer;
  g.position = at;
  g.radius = w.player.radius;
  g.hp = g.max_hp = w.player.max_hp;
  g.name = "Eve";
  return g;
}

// A dummy of the zone's first spawn group migrating to `at`, all its timers due.
Migrant DummyMigrant(const WorldConfig& w, uint32_t index, Vec2 at) {
  const MonsterTemplate& t = *w.FindMonster(testing::kDummy);
  Migrant m;
  m.body.id = Id(index);
  m.body.kind = EntityKind::kMonster;
  m.body.template_id = t.id;
  m.body.position = at;
  m.body.radius = t.radius;
  m.body.hp = m.body.max_hp = t.max_hp;
  m.home = m.wander_goal = at;
  return m;
}

TEST(CellBorder, AWholeZoneHasNoBorder) {
  const WorldConfig w = SplitWorld();
  CellBorder border(w, w.zones[0], kWholeZone);
  FakeEntities here;
  EXPECT_EQ(border.Take(EmptyBatch(1, 0, 1), here), GhostVerdict::kNotANeighbour);
  EXPECT_TRUE(border.Near(0) && border.Near(1)) << "all of it is this zone's";
  EXPECT_FALSE(border.Hears(1));
  std::vector<uint32_t> silent;
  EXPECT_FALSE(border.Arrive(1, here, &silent));
  std::vector<GhostBatch> batches(3);
  border.Export(&batches);
  EXPECT_TRUE(batches.empty());
  EXPECT_EQ(border.area().min, w.zones[0].bounds.min);
  EXPECT_EQ(border.area().max, w.zones[0].bounds.max);
}

// A neighbour's ghosts stay while it is heard, through ticks with no batch, and go once it has
// been silent for ghost_timeout_ticks: told once, as silent.
TEST(CellBorder, ASilentNeighboursGhostsStayUntilItsTimeoutThenGo) {
  const WorldConfig w = SplitWorld();
  const ZoneConfig& zone = w.zones[0];
  CellBorder border(w, zone, 0);
  FakeEntities here;
  const Aabb east = CellBounds(zone.bounds, zone.cells, 1);
  GhostBatch batch = EmptyBatch(1, 0, 1);
  batch.ghosts.push_back(PlayerGhost(w, 7, {east.min.x + 1, 50}));
  ASSERT_EQ(border.Take(batch, here), GhostVerdict::kTaken);
  EXPECT_EQ(border.Take(batch, here), GhostVerdict::kStale) << "the same tick again";
  std::vector<uint32_t> silent;
  ASSERT_TRUE(border.Arrive(1, here, &silent)) << "a batch applied: the ghosts are swept";
  EXPECT_EQ(here.haunted, (std::vector<std::pair<uint32_t, uint32_t>>{{ToRaw(Id(7)), 1}}));
  EXPECT_TRUE(border.Keeps(1, 1));
  EXPECT_FALSE(border.Keeps(1, 0)) << "not in this tick's batch";
  EXPECT_TRUE(border.Hears(1));
  for (uint64_t tick = 2; tick <= 1 + testing::kTimeoutTicks; ++tick) {
    EXPECT_FALSE(border.Arrive(tick, here, &silent)) << "tick " << tick;
    EXPECT_TRUE(border.Keeps(1, 1)) << "kept as it was, tick " << tick;
  }
  EXPECT_TRUE(silent.empty());
  EXPECT_TRUE(border.Arrive(2 + testing::kTimeoutTicks, here, &silent));
  EXPECT_EQ(silent, std::vector<uint32_t>{1});
  EXPECT_FALSE(border.Keeps(1, 1));
  EXPECT_FALSE(border.Hears(1)) << "no migrant goes to a silent neighbour";
  EXPECT_FALSE(border.Arrive(3 + testing::kTimeoutTicks, here, &silent));
  EXPECT_EQ(silent.size(), 1u) << "told once";
}

// This cell's hit on a ghost that migrates here before its owner applied it is applied here,
// once; a hit its owner had applied (up to the batch's hits_applied) is not.
TEST(CellBorder, AHitOnAGhostThatMigratedBeforeItsOwnerAppliedItIsTakenHereOnce) {
  const WorldConfig w = SplitWorld();
  CellBorder border(w, w.zones[0], 0);
  FakeEntities here;
  std::vector<uint32_t> silent;
  const RemoteHit hit{.attacker = Id(2), .target = Id(9), .skill = testing::kSword, .damage = 12};
  std::vector<GhostBatch> batches;
  border.Arrive(1, here, &silent);
  border.Deal(1, hit);  // tick 1
  border.Export(&batches);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].hits.size(), 1u);
  border.Arrive(2, here, &silent);
  border.Deal(1, hit);  // tick 2
  border.Export(&batches);
  // The owner applied our batch of tick 1, then let the target go to us.
  GhostBatch from_east = EmptyBatch(1, 0, 5);
  from_east.hits_applied = 1;
  from_east.migrants.push_back(DummyMigrant(w, 9, {48, 50}));
  ASSERT_EQ(border.Take(from_east, here), GhostVerdict::kTaken);
  ASSERT_TRUE(border.Arrive(3, here, &silent));
  EXPECT_EQ(here.real.count(ToRaw(Id(9))), 1u);
  std::vector<RemoteHit> late;
  border.TakeHitsOnImmigrants(&late);
  ASSERT_EQ(late.size(), 1u) << "tick 2's hit only";
  EXPECT_EQ(late[0].target, hit.target);
  late.clear();
  border.TakeHitsOnImmigrants(&late);
  EXPECT_TRUE(late.empty()) << "once";
}

// An entity is listed to each neighbour within ghost_distance of it; deep inside the cell, to
// none; a ghost, to none; this tick's emigrant, to the cells other than its new one.
TEST(CellBorder, AnEntityIsShownToTheNeighboursWithinGhostDistanceOfIt) {
  const WorldConfig w = SplitWorld(2, 2);
  const ZoneConfig& zone = w.zones[0];
  CellBorder border(w, zone, 0);  // the south-west cell: 1 east, 2 north, 3 north-east
  FakeEntities here;
  std::vector<uint32_t> silent;
  border.Arrive(1, here, &silent);
  const Aabb area = border.area();
  const float d = zone.cells.ghost_distance;
  const auto shown_to = [&](const Entity& e) {
    std::vector<GhostBatch> batches;
    border.Export(&batches);
    border.Show(e, &batches);
    std::vector<uint32_t> cells;
    for (const GhostBatch& b : batches) {
      if (!b.ghosts.empty()) cells.push_back(b.to_cell);
    }
    return cells;
  };
  Entity e;
  e.id = Id(4);
  e.part = PlayerPart{};
  e.position = {area.max.x - d - 1, area.max.y - d - 1};
  EXPECT_TRUE(shown_to(e).empty()) << "deep inside";
  e.position = {area.max.x - 1, area.min.y + 1};
  EXPECT_EQ(shown_to(e), std::vector<uint32_t>{1});
  e.position = {area.max.x - 1, area.max.y - 1};
  EXPECT_EQ(shown_to(e), (std::vector<uint32_t>{1, 2, 3}));
  e.ghost_of = 1;
  e.ghost_seen = 1;
  EXPECT_TRUE(shown_to(e).empty()) << "a ghost is its owner's to show";
  e.ghost_seen = 2;
  EXPECT_EQ(shown_to(e), (std::vector<uint32_t>{2, 3})) << "an emigrant of this tick";
}

}  // namespace
}  // namespace zs::zone
