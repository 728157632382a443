// A zone split into cells, each simulated by its own World as on its own node, the border
// batches carried between them by hand after every tick, exactly as the cluster carries them:
// what the cell tests (cells_test.cc, cell_border_test.cc, migration_test.cc) share.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "zone/test_world.h"
#include "zone/world.h"

namespace zs::zone::testing {

inline constexpr uint32_t kZone = 1;
inline constexpr uint32_t kTimeoutTicks = 10;

// TestWorld's 100 x 100 zone in `columns` x `rows` cells; a wolf pack in each of the two
// western cells... and eastern (groups centred in the west and east halves).
inline WorldConfig SplitWorld(uint32_t columns = 2, uint32_t rows = 1) {
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
inline EntityId Join(Cell& cell, Vec2 at, const std::string& name) {
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
        const Entity* e = cells[c]->zone().store().Find(id);
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

// The hit events of `o` with `attacker`, and what each did to `target`.
inline std::vector<HitTarget> HitsOn(const ZoneTickOutput& o, EntityId attacker, EntityId target) {
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

// How many cells hold `id` as a real entity, plus the migrants of it handed over after the last
// tick and not yet taken (the invariant: exactly one; between ticks the one may be in flight).
inline int RealCopies(const Split& split, EntityId id) {
  int n = 0;
  for (const auto& c : split.cells) {
    const Entity* e = c->zone().store().Find(id);
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

// A batch with one thing wrong, and what the west cell must say of it.
struct BadBatch {
  const char* what;
  void (*spoil)(GhostBatch*);
  GhostVerdict verdict;
};

}  // namespace zs::zone::testing
