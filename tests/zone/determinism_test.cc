// Determinism: the default world, players fighting monsters for thousands of ticks; every
// output of every tick is hashed. Same seed and inputs: same hash. Another seed: another hash.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/rng.h"
#include "zone/config_loader.h"
#include "zone/world.h"

namespace zs::zone {
namespace {

class Hasher {
 public:
  template <typename T>
  void Add(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &v, sizeof(T));
    for (unsigned char b : bytes) h_ = (h_ ^ b) * 1099511628211ull;  // FNV-1a
  }
  void Add(const Vec2& v) {
    Add(v.x);
    Add(v.y);
  }
  [[nodiscard]] uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 14695981039346656037ull;
};

struct RunResult {
  uint64_t hash;
  size_t hits;
  size_t kills;
  size_t player_damage_events;
};

RunResult RunWorld(uint64_t seed, int ticks) {
  WorldConfig c = LoadWorldConfig(ZS_CONFIG_DIR "/world.yaml");
  c.seed = seed;
  World w(c);
  std::vector<EntityId> players(8);
  for (EntityId& p : players) EXPECT_TRUE(w.AddPlayer(2, &p).ok());  // into the field
  Rng input_rng(1234);  // the inputs are the same whatever the world seed
  Hasher h;
  RunResult r{0, 0, 0, 0};
  for (int tick = 0; tick < ticks; ++tick) {
    std::vector<MoveInput> moves;
    std::vector<SkillInput> skills;
    for (size_t i = 0; i < players.size(); ++i) {
      const auto seq = static_cast<uint32_t>(tick);
      const auto z = w.ZoneIndexOf(players[i]);
      if (!z) continue;
      const Entity& me = *w.zone(*z).Find(players[i]);
      // Hunt: head for the nearest living monster and swing at it when close, with some noise.
      const Entity* prey = nullptr;
      for (const Entity& e : w.zone(*z).entities()) {
        if (e.kind == EntityKind::kMonster && e.alive &&
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
    w.Tick(moves, skills);
    for (size_t z = 0; z < w.zone_count(); ++z) {
      const ZoneTickOutput& o = w.output(z);
      h.Add(o.tick);
      for (size_t s = 0; s < o.states.size(); ++s) {
        const EntityState& e = o.states[s];
        h.Add(e.id);
        h.Add(e.position);
        h.Add(e.facing);
        h.Add(e.hp);
        h.Add(e.alive);
        h.Add(o.changed[s]);
      }
      for (const PlayerView& v : o.views) {
        h.Add(v.player);
        h.Add(v.last_input_seq);
        h.Add(v.entered.size());
        h.Add(v.updated.size());
        h.Add(v.left.size());
        h.Add(v.hits.size());
      }
      for (uint32_t ref : o.slot_refs) h.Add(ref);
      for (EntityId id : o.left_ids) h.Add(id);
      for (uint32_t ref : o.hit_refs) h.Add(ref);
      for (const HitEvent& ev : o.events) {
        h.Add(ev.attacker);
        h.Add(ev.skill);
        h.Add(ev.origin);
        h.Add(ev.num_targets);
        for (uint32_t t = 0; t < ev.num_targets; ++t) {
          const HitTarget& ht = o.targets[ev.first_target + t];
          h.Add(ht.target);
          h.Add(ht.damage);
          h.Add(ht.killed);
          r.kills += ht.killed ? 1 : 0;
        }
        r.hits += ev.num_targets;
        bool monster_attacker = true;
        for (EntityId p : players) monster_attacker = monster_attacker && ev.attacker != p;
        r.player_damage_events += monster_attacker && ev.num_targets > 0 ? 1 : 0;
      }
    }
  }
  r.hash = h.value();
  return r;
}

TEST(Determinism, SameSeedSameOutputsBitForBit) {
  const RunResult a = RunWorld(42, 3000);
  const RunResult b = RunWorld(42, 3000);
  EXPECT_EQ(a.hash, b.hash);
  EXPECT_EQ(a.hits, b.hits);
  // The run was a real fight: players hit monsters, monsters hit players, things died.
  EXPECT_GT(a.hits, 100u);
  EXPECT_GT(a.kills, 5u);
  EXPECT_GT(a.player_damage_events, 20u);
  const RunResult c = RunWorld(43, 3000);
  EXPECT_NE(a.hash, c.hash);
}

}  // namespace
}  // namespace zs::zone
