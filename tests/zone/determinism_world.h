// The determinism tests' run: the default world (config/world.yaml), players hunting monsters
// for thousands of ticks, every output of every tick hashed (output_hash.h). The inputs come
// from their own seeded Rng, so they are the same whatever the world seed or the runner.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "config/config_loader.h"
#include "core/rng.h"
#include "core/task_runner.h"
#include "wire/wire_cost.h"
#include "zone/output_hash.h"
#include "zone/world.h"

namespace zs::zone::testing {

struct RunOptions {
  uint64_t seed = 42;
  int ticks = 3000;
  size_t players = 8;  // all join the field (zone id 2)
  // The first `travellers` players do not hunt: they walk through the portals between the field
  // and the town (zone id 1), back and forth.
  size_t travellers = 0;
  // Set on the field: smaller budgets exercise the mid tier and the byte budget.
  const interest::InterestConfig* interest = nullptr;
  // Overload level of tick t: 0 when empty, else levels[t / level_period % levels.size()].
  std::vector<uint32_t> levels{};
  int level_period = 100;
  TaskRunner* runner = nullptr;  // World::Tick's runner (null: inline)
  // Called after every tick with the world and the running hash, e.g. to hash encoded frames.
  std::function<void(const World&, Hasher*)> after_tick{};
};

struct RunResult {
  uint64_t hash = 0;
  std::vector<uint64_t> tick_hashes;  // the running hash after each tick, to locate a divergence
  size_t hits = 0;
  size_t kills = 0;
  size_t player_damage_events = 0;
  size_t transfers = 0;
  size_t entered = 0;
  size_t updated = 0;
  size_t moved = 0;
  size_t left = 0;
};

inline RunResult RunWorld(const RunOptions& opt) {
  WorldConfig c = config::LoadWorldConfig(ZS_CONFIG_DIR "/world.yaml");
  c.seed = opt.seed;
  c.wire_cost = wire::kWireCost;  // as a server hosts it
  if (opt.interest != nullptr) {
    for (ZoneConfig& z : c.zones) z.interest = *opt.interest;
  }
  World w(c);
  std::vector<EntityId> players(opt.players);
  for (EntityId& p : players) EXPECT_TRUE(w.AddPlayer(2, &p).ok());  // into the field
  Rng input_rng(1234);
  Hasher h;
  RunResult r;
  std::vector<MoveInput> moves;
  std::vector<SkillInput> skills;
  for (int tick = 0; tick < opt.ticks; ++tick) {
    moves.clear();
    skills.clear();
    for (size_t i = 0; i < players.size(); ++i) {
      const auto seq = static_cast<uint32_t>(tick);
      const auto z = w.ZoneIndexOf(players[i]);
      if (!z) continue;
      const Entity& me = *w.zone(*z).store().Find(players[i]);
      if (i < opt.travellers) {
        const Vec2 portal = w.zone(*z).config().id == 2 ? Vec2{4, 512} : Vec2{252, 128};
        if (me.alive) moves.push_back({players[i], seq, portal - me.position});
        continue;
      }
      // Hunt: head for the nearest living monster and swing at it when close, with some noise.
      const Entity* prey = nullptr;
      for (const Entity& e : w.zone(*z).store().entities()) {
        if (e.is_monster() && e.alive &&
            (prey == nullptr ||
             DistanceSq(e.position, me.position) < DistanceSq(prey->position, me.position))) {
          prey = &e;
        }
      }
      if (prey == nullptr) continue;
      const Vec2 to = prey->position - me.position;
      if (input_rng.Below(10) == 0) {
        moves.push_back(
            {players[i], seq, to + Vec2{input_rng.Range(-3, 3), input_rng.Range(-3, 3)}});
      }
      if (Length(to) < 4 && input_rng.Below(3) == 0) {
        skills.push_back({players[i], seq, 1 + input_rng.Below(4),
                          std::atan2(to.y, to.x) + input_rng.Range(-0.3f, 0.3f), prey->position});
      }
    }
    const uint32_t level =
        opt.levels.empty()
            ? 0
            : opt.levels[static_cast<size_t>(tick / opt.level_period) % opt.levels.size()];
    w.Tick(moves, skills, level, opt.runner);
    for (size_t z = 0; z < w.zone_count(); ++z) {
      const ZoneTickOutput& o = w.output(z);
      HashOutput(o, &h);
      r.transfers += o.transfers.size();
      for (const PlayerView& v : o.views) {
        r.entered += v.entered.size();
        r.updated += v.updated.size();
        r.moved += v.moved.size() + v.turned.size();
        r.left += v.left.size();
      }
      for (const HitEvent& ev : o.events) {
        for (uint32_t t = 0; t < ev.num_targets; ++t) {
          r.kills += o.targets[ev.first_target + t].killed ? 1 : 0;
        }
        r.hits += ev.num_targets;
        bool monster_attacker = true;
        for (EntityId p : players) monster_attacker = monster_attacker && ev.attacker != p;
        r.player_damage_events += monster_attacker && ev.num_targets > 0 ? 1 : 0;
      }
    }
    if (opt.after_tick) opt.after_tick(w, &h);
    r.tick_hashes.push_back(h.value());
  }
  r.hash = h.value();
  return r;
}

}  // namespace zs::zone::testing
