// Area of interest: every tick, every player's view is checked against a client-side model
// built only from the outputs, and against a brute-force recomputation of the hysteresis rule
// over every entity in the zone.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/rng.h"
#include "zone/test_world.h"
#include "zone/world.h"

namespace zs::zone {
namespace {

using testing::SpawnAt;
using testing::TestWorld;

bool Sees(const Vec2& viewer, float radius, const EntityState& e) {
  return CircleHitsCircle({viewer, radius}, e.position, e.radius);
}

// What a client knows, kept up to date from its views only.
struct ClientModel {
  std::set<uint32_t> known;
  size_t entered = 0;
  size_t left = 0;
};

TEST(Aoi, MatchesBruteForceWithHysteresisEveryTick) {
  WorldConfig c = TestWorld();
  c.zones[0].spawns = {{2, 40, {{10, 10}, {90, 90}}, 40}, {1, 30, {{0, 0}, {100, 100}}, 40}};
  c.monsters[1].wander_radius = 15;  // wolves roam, so things cross view edges all the time
  World w(c);
  std::vector<EntityId> players(6);
  for (EntityId& p : players) ASSERT_TRUE(w.AddPlayer(std::nullopt, &p).ok());
  ASSERT_TRUE(w.mutable_zone(0).SetViewRadius(players[5], 8).ok());  // a per-player override
  std::map<uint32_t, ClientModel> clients;
  Rng rng(99);
  const ZoneConfig& z = c.zones[0];
  size_t events_seen = 0;
  for (int tick = 0; tick < 600; ++tick) {
    std::vector<MoveInput> moves;
    std::vector<SkillInput> skills;
    for (EntityId p : players) {
      if (rng.Below(8) == 0) {
        moves.push_back({p, static_cast<uint32_t>(tick), FromAngle(rng.Range(-kPi, kPi))});
      }
      if (rng.Below(10) == 0) {
        skills.push_back({p, static_cast<uint32_t>(tick), testing::kWhirl, 0, {}});
      }
    }
    w.Tick(moves, skills);
    const ZoneTickOutput& o = w.output(0);
    ASSERT_EQ(o.views.size(), players.size());
    for (const PlayerView& v : o.views) {
      SCOPED_TRACE("tick " + std::to_string(tick) + " player " + std::to_string(ToRaw(v.player)));
      ClientModel& m = clients[ToRaw(v.player)];
      const std::set<uint32_t> before = m.known;
      for (uint32_t k = v.left.begin; k < v.left.end; ++k) {
        ASSERT_EQ(m.known.erase(ToRaw(o.left_ids[k])), 1u) << "left an entity it did not know";
        ++m.left;
      }
      for (uint32_t k = v.updated.begin; k < v.updated.end; ++k) {
        const uint32_t slot = o.slot_refs[k];
        ASSERT_TRUE(m.known.count(ToRaw(o.states[slot].id))) << "update for an unknown entity";
        ASSERT_NE(o.changed[slot], 0) << "update with nothing changed";
      }
      for (uint32_t k = v.entered.begin; k < v.entered.end; ++k) {
        ASSERT_TRUE(m.known.insert(ToRaw(o.states[o.slot_refs[k]].id)).second) << "entered twice";
        ++m.entered;
      }
      // Brute force over every entity of the zone, with the hysteresis rule.
      const EntityState& self = o.states[v.self];
      const Entity& player = *w.zone(0).Find(v.player);
      const float enter = player.view_radius > 0 ? player.view_radius : z.view_radius;
      std::set<uint32_t> want;
      size_t updates_wanted = 0;
      for (size_t s = 0; s < o.states.size(); ++s) {
        const EntityState& e = o.states[s];
        if (e.id == v.player) continue;
        const bool stays =
            before.count(ToRaw(e.id)) && Sees(self.position, enter + z.view_hysteresis, e);
        if (Sees(self.position, enter, e) || stays) want.insert(ToRaw(e.id));
        if (stays && o.changed[s] != 0) ++updates_wanted;
      }
      ASSERT_EQ(m.known, want);
      ASSERT_EQ(v.updated.size(), updates_wanted) << "every changed known entity is updated";
      // The zone's own record agrees with the client's.
      std::set<uint32_t> zone_known;
      for (EntityId id : player.known) zone_known.insert(ToRaw(id));
      ASSERT_EQ(zone_known, m.known);
      ASSERT_EQ(m.entered - m.left, m.known.size());
      // Hit events: visible exactly when the attacker or a target is known, or is the player.
      std::set<uint32_t> hits_wanted;
      for (uint32_t e = 0; e < o.events.size(); ++e) {
        const HitEvent& ev = o.events[e];
        bool visible = ev.attacker == v.player || m.known.count(ToRaw(ev.attacker));
        for (uint32_t t = 0; t < ev.num_targets; ++t) {
          const EntityId target = o.targets[ev.first_target + t].target;
          visible = visible || target == v.player || m.known.count(ToRaw(target));
        }
        if (visible) hits_wanted.insert(e);
      }
      const std::set<uint32_t> hits(o.hit_refs.begin() + v.hits.begin,
                                    o.hit_refs.begin() + v.hits.end);
      ASSERT_EQ(hits, hits_wanted);
      ASSERT_EQ(hits.size(), v.hits.size()) << "an event listed twice";
      events_seen += hits.size();
    }
  }
  EXPECT_GT(events_seen, 50u);  // the scenario really exercised hit visibility
  size_t total_entered = 0;
  for (const auto& [id, m] : clients) total_entered += m.entered;
  EXPECT_GT(total_entered, 100u);
}

TEST(Aoi, NoFlickerAtTheEdge) {
  // A dummy 20 away (hitbox touching the view radius 20 at 19.5); the player sways 1 unit back
  // and forth across the edge, well inside the hysteresis band of 4.
  WorldConfig c = TestWorld();
  c.zones[0].spawns = {SpawnAt(1, {69.5f, 50})};
  World w(c);
  EntityId p;
  ASSERT_TRUE(w.AddPlayer(std::nullopt, &p).ok());
  size_t entered = 0, left = 0;
  for (int tick = 0; tick < 400; ++tick) {
    const MoveInput m{p, static_cast<uint32_t>(tick), {(tick / 4) % 2 == 0 ? 1.0f : -1.0f, 0}};
    w.Tick({&m, 1}, {});
    const PlayerView& v = w.output(0).views[0];
    entered += v.entered.size();
    left += v.left.size();
  }
  EXPECT_EQ(entered, 1u);
  EXPECT_EQ(left, 0u);
}

TEST(Aoi, WalkingOutAndBackGivesOneLeaveAndOneEnter) {
  WorldConfig c = TestWorld();
  World w(c);
  EntityId a, b;
  ASSERT_TRUE(w.AddPlayer(std::nullopt, &a).ok());
  ASSERT_TRUE(w.AddPlayer(std::nullopt, &b).ok());
  std::vector<std::pair<char, uint64_t>> seen;  // what a saw of b: 'e'ntered / 'l'eft
  auto record = [&] {
    const ZoneTickOutput& o = w.output(0);
    for (const PlayerView& v : o.views) {
      if (v.player != a) continue;
      for (uint32_t k = v.entered.begin; k < v.entered.end; ++k) {
        if (o.states[o.slot_refs[k]].id == b) seen.emplace_back('e', o.tick);
      }
      for (uint32_t k = v.left.begin; k < v.left.end; ++k) {
        if (o.left_ids[k] == b) seen.emplace_back('l', o.tick);
      }
    }
  };
  w.Tick({}, {});
  record();
  const MoveInput away{b, 1, {1, 0}};
  w.Tick({&away, 1}, {});
  record();
  for (int t = 0; t < 150; ++t) {  // 37.5 units east: beyond 20 + 4
    w.Tick({}, {});
    record();
  }
  const MoveInput back{b, 2, {-1, 0}};
  w.Tick({&back, 1}, {});
  record();
  for (int t = 0; t < 150; ++t) {
    w.Tick({}, {});
    record();
  }
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].first, 'e');
  EXPECT_EQ(seen[1].first, 'l');
  EXPECT_EQ(seen[2].first, 'e');
}

TEST(Aoi, DisconnectedPlayerLeavesOthersViews) {
  World w(TestWorld());
  EntityId a, b;
  ASSERT_TRUE(w.AddPlayer(std::nullopt, &a).ok());
  ASSERT_TRUE(w.AddPlayer(std::nullopt, &b).ok());
  w.Tick({}, {});
  ASSERT_TRUE(w.RemovePlayer(b).ok());
  EXPECT_EQ(w.RemovePlayer(b).code(), StatusCode::kNotFound);
  w.Tick({}, {});
  const ZoneTickOutput& o = w.output(0);
  ASSERT_EQ(o.views.size(), 1u);
  ASSERT_EQ(o.views[0].left.size(), 1u);
  EXPECT_EQ(o.left_ids[o.views[0].left.begin], b);
}

}  // namespace
}  // namespace zs::zone
