// A zone split into cells (zone/cells.h): each cell simulated by its own World, as on its own
// node, the border batches carried between them by hand after every tick, exactly as the
// cluster carries them. A player near the border sees the other side's entities as ghosts with
// their own ids; ghosts follow their owner, leave when it walks away, are never simulated, and
// go when their cell falls silent; a batch is checked whole.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "zone/output_hash.h"
#include "zone/test_world.h"
#include "zone/world.h"

namespace zs::zone {
namespace {

using testing::TestWorld;

constexpr uint32_t kZone = 1;
constexpr uint32_t kTimeoutTicks = 10;

// TestWorld's 100 x 100 zone in `columns` x `rows` cells; a wolf pack in each of the two
// western cells... and eastern (groups centred in the west and east halves).
WorldConfig SplitWorld(uint32_t columns = 2, uint32_t rows = 1) {
  WorldConfig w = TestWorld();
  ZoneConfig& z = w.zones[0];
  z.spawns = {{.monster = testing::kDummy, .count = 3, .area = {{40, 40}, {45, 60}}},
              {.monster = testing::kDummy, .count = 2, .area = {{55, 40}, {60, 60}}}};
  z.cells.columns = columns;
  z.cells.rows = rows;
  for (uint32_t c = 0; c < columns * rows; ++c)
    z.cells.nodes.push_back("node-" + std::to_string(c));
  z.cells.ghost_distance = MinGhostDistance(w, z);
  z.cells.ghost_timeout_ticks = kTimeoutTicks;
  return w;
}

// One node per cell: a World simulating that cell with ids from its own range.
struct Cell {
  Cell(const WorldConfig& config, uint32_t cell)
      : ids(IdsOfCell(config.zones[0].cells, cell)),
        hosted{{.zone_id = kZone, .cell = cell}},
        world(config, {}, &ids, hosted) {}
  EntityIdAllocator ids;
  std::vector<HostedCell> hosted;
  World world;
  [[nodiscard]] const Zone& zone() const { return world.zone(0); }
};

// Puts a player called `name` at `at` in `cell`.
EntityId Join(Cell& cell, Vec2 at, const std::string& name) {
  PlayerSnapshot s{.zone = kZone, .position = at, .hp = 100};
  EntityId id = kInvalidEntity;
  EXPECT_TRUE(cell.world.RestorePlayer(s, &id, name).ok());
  return id;
}

// What each player knows, from its views alone.
struct Known {
  std::map<uint32_t, std::set<uint32_t>> of;  // by viewer raw id
  void Apply(const ZoneTickOutput& o) {
    for (const PlayerView& v : o.views) {
      std::set<uint32_t>& k = of[ToRaw(v.player)];
      for (const uint32_t slot : v.entered) k.insert(ToRaw(o.states[slot].id));
      for (const EntityId id : v.left) k.erase(ToRaw(id));
    }
  }
  [[nodiscard]] bool Knows(EntityId viewer, EntityId other) const {
    const auto it = of.find(ToRaw(viewer));
    return it != of.end() && it->second.count(ToRaw(other)) > 0;
  }
};

// Ticks every cell once, then hands each batch to its addressee (unless `mute` says the sender
// is cut off); returns the verdicts that were not kTaken.
struct Split {
  explicit Split(const WorldConfig& config) {
    for (uint32_t c = 0; c < config.zones[0].cells.count(); ++c) {
      cells.push_back(std::make_unique<Cell>(config, c));
    }
  }
  void Tick(std::span<const MoveInput> moves = {}, const std::set<uint32_t>& mute = {},
            std::span<const SkillInput> skills = {}) {
    // Each input to the cell its player is real in, or arrives in at this tick (a migrant
    // handed over after the last): decided before any cell ticks.
    const auto owner = [&](EntityId id) {
      for (size_t c = 0; c < cells.size(); ++c) {
        const Entity* e = cells[c]->zone().Find(id);
        if (e != nullptr && !e->is_ghost()) return c;
        for (const GhostBatch& b : cells[c]->world.output(0).border) {
          for (const Migrant& m : b.migrants) {
            if (m.body.id == id) return static_cast<size_t>(b.to_cell);
          }
        }
      }
      return cells.size();
    };
    std::vector<std::vector<MoveInput>> my_moves(cells.size() + 1);
    for (const MoveInput& m : moves) my_moves[owner(m.entity)].push_back(m);
    std::vector<std::vector<SkillInput>> my_skills(cells.size() + 1);
    for (const SkillInput& s : skills) my_skills[owner(s.entity)].push_back(s);
    for (size_t c = 0; c < cells.size(); ++c) {
      cells[c]->world.Tick(my_moves[c], my_skills[c]);
      known.Apply(cells[c]->world.output(0));
      if (staggered && mute.count(static_cast<uint32_t>(c)) == 0) Hand(c);
    }
    if (staggered) return;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (mute.count(static_cast<uint32_t>(c)) == 0) Hand(c);
    }
  }
  void Hand(size_t c) {  // cell c's batches to their addressees
    for (const GhostBatch& b : cells[c]->world.output(0).border) {
      EXPECT_EQ(cells[b.to_cell]->world.TakeGhosts(b), GhostVerdict::kTaken);
    }
  }
  // Cell c+1 ticks after cell c's batches reached it (nodes whose ticks are out of phase), not
  // all cells first and then the batches.
  bool staggered = false;
  std::vector<std::unique_ptr<Cell>> cells;
  Known known;
};

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
  EXPECT_EQ(west.area().max.x, 50.0f);
  EXPECT_EQ(east.area().min.x, 50.0f);
  ASSERT_EQ(west.entities().size(), 3u);
  ASSERT_EQ(east.entities().size(), 2u);
  for (const Entity& e : west.entities()) EXPECT_EQ(EntityIndex(e.id) % 2, 0u);
  for (const Entity& e : east.entities()) EXPECT_EQ(EntityIndex(e.id) % 2, 1u);

  const EntityId p = Join(*split.cells[0], {45, 20}, "Wes");
  const MoveInput east_ward{.entity = p, .seq = 1, .direction = {1, 0}};
  for (int t = 0; t < 60; ++t) split.Tick({&east_ward, 1});
  EXPECT_EQ(west.Find(p)->position.x, 50.0f) << "until migration lands, the border holds it";
  EXPECT_FALSE(west.Find(p)->is_ghost());
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
  const Entity* ghost = split.cells[0]->zone().Find(eve);
  ASSERT_NE(ghost, nullptr);
  EXPECT_TRUE(ghost->is_ghost());
  EXPECT_EQ(ghost->ghost_of, 1u);
  EXPECT_EQ(ghost->position, (Vec2{56, 20}));
  EXPECT_EQ(split.cells[0]->world.NameOf(eve), "") << "a ghost is no player of this world...";
  const ZoneTickOutput& o = split.cells[0]->world.output(0);
  ASSERT_NE(o.names, nullptr);
  EXPECT_EQ((*o.names)[EntityIndex(eve)], "Eve") << "...but its name is shown";
  EXPECT_EQ(split.cells[0]->zone().player_count(), 1u) << "ghosts are not counted as players";
  EXPECT_EQ(split.cells[0]->world.output(0).views.size(), 1u) << "nor given a view";
  // The other side's monsters near the border too: the dummies at x 55..60 are within reach.
  size_t monster_ghosts = 0;
  for (const Entity& e : split.cells[0]->zone().entities()) {
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
    const Vec2 before = east.Find(eve)->position;
    split.Tick({&away, 1});
    const Entity* ghost = west.Find(eve);
    if (ghost != nullptr) {
      EXPECT_EQ(ghost->position, before) << "one tick behind its owner";
    }
    left = !split.known.Knows(wes, eve);
  }
  ASSERT_TRUE(left) << "it left the view as it walked beyond the view radius";
  for (int t = 0; t < 200 && west.Find(eve) != nullptr; ++t) split.Tick({&away, 1});
  EXPECT_EQ(west.Find(eve), nullptr) << "beyond ghost_distance it is no ghost any more";
  EXPECT_GT(east.Find(eve)->position.x - 50.0f, west.config().cells.ghost_distance);
  EXPECT_EQ(west.ghost_count(), 2u) << "the dummies near the border stay";
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
  ASSERT_EQ(west.ghost_count(), 2u) << "the wolf and Eve";
  Entity wolf;
  for (const Entity& e : west.entities()) {
    if (e.is_monster()) wolf = e;
  }
  ASSERT_TRUE(wolf.is_ghost());
  ASSERT_TRUE(split.known.Knows(wes, wolf.id));
  // The east is cut off (its last batch, already handed over, is applied at the first of these
  // ticks): the west ticks on and its ghost stands where it was last told.
  for (uint32_t t = 0; t <= kTimeoutTicks; ++t) {
    split.Tick({}, /*mute=*/{1});
    const Entity* ghost = west.Find(wolf.id);
    ASSERT_NE(ghost, nullptr) << "kept until the timeout, tick " << t;
    EXPECT_EQ(ghost->position, wolf.position) << "never moved here";
    EXPECT_EQ(ghost->hp, wolf.hp);
    EXPECT_TRUE(split.cells[0]->world.output(0).silent_cells.empty());
  }
  EXPECT_NE(split.cells[1]->zone().Find(wolf.id)->position, wolf.position)
      << "meanwhile the real wolf chased Eve";
  split.Tick({}, /*mute=*/{1});
  EXPECT_EQ(west.Find(wolf.id), nullptr) << "gone once the east was silent for the timeout";
  EXPECT_EQ(west.ghost_count(), 0u);
  EXPECT_EQ(split.cells[0]->world.output(0).silent_cells, std::vector<uint32_t>{1});
  EXPECT_FALSE(split.known.Knows(wes, wolf.id)) << "and the player saw it leave";
  split.Tick({}, /*mute=*/{1});
  EXPECT_TRUE(split.cells[0]->world.output(0).silent_cells.empty()) << "said once";
  split.Tick();  // the east speaks again
  split.Tick();
  EXPECT_NE(west.Find(wolf.id), nullptr) << "and its ghosts come back";
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

// A batch with one thing wrong, and what the west cell must say of it.
struct BadBatch {
  const char* what;
  void (*spoil)(GhostBatch*);
  GhostVerdict verdict;
};

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
  EXPECT_EQ(west.zone(0).ghost_count(), 0u) << "nothing of a refused batch was applied";

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
  EXPECT_EQ(west.zone(0).ghost_count(), 3u);

  World whole(SplitWorld());  // the split zone run whole, as one process would
  EXPECT_EQ(whole.TakeGhosts(good), GhostVerdict::kNotANeighbour);
}

// The hit events of `o` with `attacker`, and what each did to `target`.
std::vector<HitTarget> HitsOn(const ZoneTickOutput& o, EntityId attacker, EntityId target) {
  std::vector<HitTarget> out;
  for (const HitEvent& ev : o.events) {
    if (ev.attacker != attacker) continue;
    for (uint32_t t = 0; t < ev.num_targets; ++t) {
      if (o.targets[ev.first_target + t].target == target) {
        out.push_back(o.targets[ev.first_target + t]);
      }
    }
  }
  return out;
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
  const EntityId dummy = east.entities()[0].id;
  ASSERT_TRUE(east.entities()[0].is_monster());
  ASSERT_NE(split.cells[0]->zone().Find(dummy), nullptr) << "a ghost at the west";

  const int32_t max_hp = east.Find(dummy)->max_hp;  // 50: a sword deals 12
  int west_hits = 0, east_hits = 0, kills = 0, ticks = 0;
  int32_t dealt = 0;
  for (uint32_t seq = 1; east.Find(dummy)->alive && ticks < 200; ++ticks) {
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
  EXPECT_FALSE(east.Find(dummy)->alive) << "killed by swings from the other side";
  EXPECT_EQ(kills, 1);
  EXPECT_EQ(dealt, max_hp) << "never more than it had";
  EXPECT_EQ(east_hits, west_hits) << "each swing that landed was applied once by the owner";
  EXPECT_EQ(east_hits, (max_hp + 11) / 12);
  split.Tick();
  EXPECT_FALSE(split.cells[0]->zone().Find(dummy)->alive) << "the ghost shows it a tick later";
}

TEST(Cells, AMonsterAggroesOnAPlayerAcrossTheBorderAndBitesIt) {
  WorldConfig config = SplitWorld();
  config.zones[0].spawns = {{.monster = testing::kWolf, .count = 1, .area = {{53, 20}, {53, 20}}}};
  Split split(config);
  const EntityId wes = Join(*split.cells[0], {49.2f, 20}, "Wes");
  const EntityId wolf = split.cells[1]->zone().entities()[0].id;
  int bites = 0;
  for (int t = 0; t < 200 && bites == 0; ++t) {
    split.Tick();
    bites += static_cast<int>(HitsOn(split.cells[0]->world.output(0), wolf, wes).size());
  }
  EXPECT_GT(bites, 0) << "the wolf chased Wes to the border and its bite landed at the west";
  EXPECT_LT(split.cells[0]->zone().Find(wes)->hp, 100);
  const Entity* w = split.cells[1]->zone().Find(wolf);
  EXPECT_EQ(w->monster().ai, MonsterState::kChase);
  EXPECT_EQ(w->monster().target, wes) << "it hunts Wes by Wes's own id";
  EXPECT_GE(w->position.x, 50.0f) << "from its own side of the border";
}

TEST(Cells, AHitIsCheckedWithItsBatch) {
  WorldConfig config = SplitWorld();
  config.zones[0].spawns = {{.monster = testing::kDummy, .count = 1, .area = {{48, 20}, {48, 20}}}};
  Split split(config);
  const EntityId eve = Join(*split.cells[1], {51, 20}, "Eve");
  const EntityId dummy = split.cells[0]->zone().entities()[0].id;
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
  EXPECT_EQ(west.zone(0).Find(dummy)->hp, west.zone(0).Find(dummy)->max_hp)
      << "no refused hit was applied";
  EXPECT_EQ(west.TakeGhosts(good), GhostVerdict::kTaken);
  west.Tick(std::span<const MoveInput>{}, {});
  EXPECT_EQ(west.zone(0).Find(dummy)->hp, west.zone(0).Find(dummy)->max_hp - 12);
  EXPECT_EQ(HitsOn(west.output(0), eve, dummy).size(), 1u) << "told to the west's viewers";
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

// ---- migration ----

// How many cells hold `id` as a real entity, plus the migrants of it handed over after the last
// tick and not yet taken (the invariant: exactly one; between ticks the one may be in flight).
int RealCopies(const Split& split, EntityId id) {
  int n = 0;
  for (const auto& c : split.cells) {
    const Entity* e = c->zone().Find(id);
    n += e != nullptr && !e->is_ghost() ? 1 : 0;
    for (const GhostBatch& b : c->world.output(0).border) {
      for (const Migrant& m : b.migrants) n += m.body.id == id ? 1 : 0;
    }
  }
  return n;
}

// Each viewer's enters and leaves of one entity, from its views alone.
struct Sightings {
  EntityId of;
  std::map<uint32_t, int> entered, left;  // by viewer raw id
  void Apply(const ZoneTickOutput& o) {
    for (const PlayerView& v : o.views) {
      for (const uint32_t slot : v.entered) entered[ToRaw(v.player)] += o.states[slot].id == of;
      for (const EntityId id : v.left) left[ToRaw(v.player)] += id == of;
    }
  }
};

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
  const EntityId wolf = split.cells[1]->zone().entities()[0].id;
  const Zone& west = split.cells[0]->zone();
  const Zone& east = split.cells[1]->zone();
  Sightings seen{.of = wolf, .entered = {}, .left = {}};
  const auto tick = [&](std::span<const MoveInput> moves = {}) {
    split.Tick(moves);
    for (const auto& c : split.cells) seen.Apply(c->world.output(0));
    EXPECT_EQ(RealCopies(split, wolf), 1) << "real in exactly one cell at every tick";
  };
  int ticks = 0;
  while ((west.Find(wolf) == nullptr || west.Find(wolf)->is_ghost()) && ticks++ < 200) tick();
  ASSERT_LT(ticks, 200) << "the wolf never came to the west";
  const Entity* w = west.Find(wolf);
  ASSERT_NE(w, nullptr);
  EXPECT_LT(w->position.x, 50.0f - config.zones[0].cells.migration_margin);
  EXPECT_EQ(w->id, wolf) << "the same id";
  EXPECT_EQ(w->monster().ai, MonsterState::kChase);
  EXPECT_EQ(w->monster().target, wes);
  EXPECT_EQ(w->monster().home, (Vec2{53, 20})) << "its home stays in the east";
  EXPECT_EQ(east.Find(wolf)->ghost_of, 0u) << "the east shows it as the west's ghost";

  int bites = 0;
  for (int t = 0; t < 100 && bites == 0; ++t) {
    tick();
    bites += static_cast<int>(HitsOn(split.cells[0]->world.output(0), wolf, wes).size());
  }
  EXPECT_GT(bites, 0) << "it bites Wes as a real monster of the west now";
  const uint64_t ready = west.Find(wolf)->ready_tick[0];
  EXPECT_GT(ready, split.cells[0]->world.tick()) << "its bite is cooling down";

  // Wes runs west, beyond the wolf's leash: it gives up, goes home and migrates back.
  const MoveInput flee{.entity = wes, .seq = 1, .direction = {-1, 0}};
  ticks = 0;
  while ((east.Find(wolf) == nullptr || east.Find(wolf)->is_ghost()) && ticks++ < 400) {
    tick({&flee, 1});
  }
  ASSERT_LT(ticks, 400) << "the wolf never went home";
  for (int t = 0; t < 100 && east.Find(wolf)->monster().ai != MonsterState::kIdle; ++t) tick();
  EXPECT_FALSE(east.Find(wolf)->is_ghost());
  EXPECT_EQ(east.Find(wolf)->monster().ai, MonsterState::kIdle) << "home again";
  EXPECT_LE(Length(east.Find(wolf)->position - Vec2{53, 20}), 0.5f);
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
    const EntityId wolf = split.cells[1]->zone().entities()[0].id;
    int kills = 0, landed = 0;
    uint32_t seq = 1;
    for (uint32_t t = 0; t < 300 && kills == 0; ++t) {
      std::vector<SkillInput> swings;
      if (t >= offset) {
        swings.push_back(
            {.entity = wes, .seq = seq++, .skill = testing::kSword, .facing = 0, .target = {}});
      }
      const bool was_ghost = split.cells[0]->zone().Find(wolf) != nullptr &&
                             split.cells[0]->zone().Find(wolf)->is_ghost();
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
  for (const Entity& e : split.cells[1]->zone().entities()) {
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
  EXPECT_EQ(west.zone(0).Find(wolf->id), nullptr) << "nothing of a refused migrant was applied";
  ASSERT_EQ(west.TakeGhosts(good), GhostVerdict::kTaken);
  west.Tick(std::span<const MoveInput>{}, {});
  const Entity* taken = west.zone(0).Find(wolf->id);
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
  const Entity* east_wes = split.cells[1]->zone().Find(wes);
  ASSERT_TRUE(east_wes != nullptr && !east_wes->is_ghost()) << "real in the east now";
  EXPECT_GT(east_wes->ready_tick[1], 0u) << "his whirl's cooldown came with him";
  EXPECT_EQ(split.cells[1]->zone().player_count(), 2u);
  EXPECT_EQ(split.cells[0]->zone().player_count(), 0u);
  EXPECT_TRUE(split.cells[0]->zone().Find(wes)->is_ghost()) << "a ghost in the west";
  walk(-1, 60, false);
  EXPECT_FALSE(split.cells[0]->zone().Find(wes)->is_ghost()) << "and back";
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
  ASSERT_FALSE(split.cells[1]->zone().Find(wes)->is_ghost()) << "real in the east";
  split.cells[0]->world.ReleaseWhenGone(wes);  // his client left the west

  // The east has not let him go yet: his ghost in the west keeps his id taken.
  for (uint64_t t = 0; t < World::kReleaseAfterTicks + 20; ++t) split.Tick();
  ASSERT_NE(split.cells[0]->zone().Find(wes), nullptr) << "his ghost";
  EXPECT_EQ(split.cells[0]->ids.live(), live) << "held by his ghost: not freed";
  EXPECT_EQ(split.cells[0]->world.releasing(), 1u);

  const size_t east_live = split.cells[1]->ids.live();
  ASSERT_TRUE(split.cells[1]->world.RemovePlayer(wes).ok());  // the east saves him, lets him go
  EXPECT_EQ(split.cells[1]->ids.live(), east_live) << "not the east's to free";
  for (int t = 0; t < 3; ++t) split.Tick();
  EXPECT_EQ(split.cells[0]->zone().Find(wes), nullptr) << "his ghost went with him";
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

// A player migrant is taken only where players cross (its node relays the connection), and
// checked like a monster's: the player template's hitbox and max hp, a name, a sane walking
// direction and view radius, timers within the players' skills and respawn.
TEST(Cells, APlayerMigrantIsCheckedWithItsBatch) {
  Split split(SplitWorld());
  const EntityId eve = Join(*split.cells[1], {51, 20}, "Eve");
  split.Tick();
  split.Tick();  // the west holds her ghost
  ASSERT_TRUE(split.cells[0]->zone().Find(eve) != nullptr);
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
                      .known = {},
                      .client = {}};
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
  const Entity* taken = west.zone(0).Find(eve);
  ASSERT_NE(taken, nullptr);
  EXPECT_FALSE(taken->is_ghost());
  EXPECT_EQ(taken->hp, 90);
  EXPECT_EQ(west.zone(0).player_count(), 1u);
  EXPECT_EQ(west.output(0).views.size(), 1u) << "her view is built here now";
  EXPECT_EQ(west.output(0).views[0].last_input_seq, 42u) << "her input of this tick applied";
  EXPECT_EQ(west.NameOf(eve), "Eve");
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
    const Entity* attacker = zone.Find(ev.attacker);
    // A split cell tells a hit twice: where its attacker is real (the swing) and, a tick later,
    // where its target is (the damage applied). The oracle compares the swing.
    const bool swing = attacker != nullptr && !attacker->is_ghost();
    if (swing != attacker_side) continue;
    for (uint32_t t = 0; t < ev.num_targets; ++t) {
      const HitTarget& h = o.targets[ev.first_target + t];
      seen->hits.emplace(ToRaw(ev.attacker), ev.skill, ToRaw(h.target), h.damage);
    }
  }
  for (const Entity& e : zone.entities()) {
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
  for (const Entity& e : whole.zone(0).entities()) {
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
      for (const Entity& e : split.cells[c]->zone().entities()) {
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
          const Entity* x = split.cells[cell]->zone().Find(static_cast<EntityId>(e));
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
