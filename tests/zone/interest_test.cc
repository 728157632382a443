// Interest management through the World, checked every tick against its test twins: the
// brute-force tier rules (interest_oracle.h) and a client built from the views alone
// (client_model.h). Budgets are set small (test_world.h SmallInterest: 6 near, 10 mid, margin 3) so
// a few dozen entities exercise every tier, the byte budget, the staleness rule and relevance.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "core/rng.h"
#include "interest/interest.h"
#include "interest/overload.h"
#include "zone/client_model.h"
#include "zone/interest_oracle.h"
#include "zone/test_world.h"
#include "zone/world.h"

namespace zs::zone {
namespace {

using interest::Budget;
using interest::BudgetAt;
using interest::InterestConfig;
using interest::KnownEntity;
using testing::Client;
using testing::ClientStats;
using testing::kDummy;
using testing::kWolf;
using testing::OracleStats;
using testing::Raw;
using testing::SmallInterest;
using testing::SpawnAt;
using testing::TestWorld;

std::string Where(const ZoneTickOutput& o, const PlayerView& v) {
  return "tick " + std::to_string(o.tick) + " zone " + std::to_string(o.zone) + " viewer " +
         Raw(v.player);
}

// A crowded two-zone world (TestWorld(true): 100 x 100 each, view radius 20 + hysteresis 4). In
// zone 1, 40 roaming wolves and 20 dummies packed around the spawn; in zone 2, 20 wolves around
// the portal's arrival point. Players wander and swing (monsters die and respawn; wolves chase,
// bite and kill players), two travellers walk through the portals and back again, one player has
// a smaller view radius, and every so often a player disconnects and another joins its zone, or a
// client is resynced (ForgetKnown). Everything derives from the seed.
class Crowd {
 public:
  Crowd(const InterestConfig& interest, uint64_t seed, uint32_t near_floor = 8)
      : world_(Config(interest, near_floor)), rng_(seed) {
    for (int i = 0; i < 8; ++i) Join(1);
    for (int i = 0; i < 3; ++i) Join(2);
    EXPECT_TRUE(world_.mutable_zone(0).SetViewRadius(players_[2], 10).ok());
  }

  // One tick at overload `level`, after this step's disconnects, joins and resyncs.
  void Step(uint32_t level) {
    forgotten_.clear();
    removed_.clear();
    const uint64_t t = world_.tick();
    if (t % 97 == 96) {  // a wanderer disconnects; a newcomer joins its zone
      const size_t i = 3 + rng_.Below(static_cast<uint32_t>(players_.size() - 3));
      const uint32_t zone_id = world_.zone(*world_.ZoneIndexOf(players_[i])).config().id;
      EXPECT_TRUE(world_.RemovePlayer(players_[i]).ok());
      removed_.push_back(players_[i]);
      players_.erase(players_.begin() + static_cast<std::ptrdiff_t>(i));
      Join(zone_id);
    }
    if (t % 61 == 30) {
      const EntityId p = players_[3 + rng_.Below(static_cast<uint32_t>(players_.size() - 3))];
      EXPECT_TRUE(world_.ForgetKnown(p).ok());
      forgotten_.push_back(p);
    }
    moves_.clear();
    skills_.clear();
    const auto seq = static_cast<uint32_t>(t + 1);
    for (size_t i = 0; i < players_.size(); ++i) {
      const EntityId p = players_[i];
      const Zone& zone = world_.zone(*world_.ZoneIndexOf(p));
      const Entity& me = *zone.store().Find(p);
      if (!me.alive) continue;
      const bool in_first = zone.config().id == 1;
      if (i < 2 && t >= 60 * i) {  // a traveller: to the portal of whichever zone it is in
        const Vec2 goal = in_first ? Vec2{97.5f, 50} : Vec2{2.5f, 95};
        moves_.push_back({p, seq, goal - me.position});
        continue;
      }
      const Vec2 home = zone.config().player_spawn;
      if (DistanceSq(me.position, home) > 22.0f * 22.0f) {
        moves_.push_back({p, seq, home - me.position});
      } else if (rng_.Below(8) == 0) {
        moves_.push_back({p, seq, FromAngle(rng_.Range(-kPi, kPi))});
      }
      if (rng_.Below(6) == 0) skills_.push_back({p, seq, testing::kWhirl, 0, {}});
      if (rng_.Below(9) == 0) {
        skills_.push_back({p, seq, testing::kSword, rng_.Range(-kPi, kPi), {}});
      }
    }
    world_.Tick(moves_, skills_, level);
  }

  [[nodiscard]] const World& world() const { return world_; }
  // The clients this step resynced, and the players it disconnected.
  [[nodiscard]] const std::vector<EntityId>& forgotten() const { return forgotten_; }
  [[nodiscard]] const std::vector<EntityId>& removed() const { return removed_; }

 private:
  static WorldConfig Config(const InterestConfig& interest, uint32_t near_floor) {
    WorldConfig c = TestWorld(true);
    c.overload.near_floor = near_floor;
    c.monsters[1].wander_radius = 12;  // wolves roam, so ranks and view edges keep changing
    for (ZoneConfig& z : c.zones) z.interest = interest;
    c.zones[0].spawns = {
        {.monster = kWolf, .count = 40, .area = {{32, 32}, {68, 68}}, .respawn_ticks = 40},
        {.monster = kDummy, .count = 20, .area = {{38, 38}, {62, 62}}, .respawn_ticks = 40}};
    c.zones[0].portals[0].target_position = {10, 85};  // 7 m from zone 2's portal back
    c.zones[1].player_spawn = {14, 82};
    c.zones[1].spawns = {
        {.monster = kWolf, .count = 20, .area = {{5, 68}, {30, 95}}, .respawn_ticks = 40}};
    return c;
  }
  // Names of 2 to 12 bytes: entries cost what their names add.
  void Join(uint32_t zone_id) {
    EntityId id = kInvalidEntity;
    const size_t n = players_.size();
    EXPECT_TRUE(
        world_.AddPlayer(zone_id, &id, "p" + std::to_string(n) + std::string(n % 9, 'x')).ok());
    players_.push_back(id);
  }

  World world_;
  Rng rng_;
  std::vector<EntityId> players_;  // the first two are the travellers
  std::vector<EntityId> forgotten_;
  std::vector<EntityId> removed_;
  std::vector<MoveInput> moves_;
  std::vector<SkillInput> skills_;
};

// Runs the oracle and/or the client model over every view of every zone after each step.
class Watch {
 public:
  Watch(bool use_oracle, bool use_clients) : oracle_(use_oracle), clients_(use_clients) {}

  // Per phase of a run (the caller numbers them): what the views carried, summed.
  struct Sent {
    size_t views = 0;
    size_t mid_sends = 0;  // updates and moves of mid-tier entities
    size_t near = 0;       // near-tier entities
    size_t known = 0;
  };

  ::testing::AssertionResult AfterStep(const Crowd& crowd, uint32_t level, size_t phase = 0) {
    for (const EntityId id : crowd.forgotten()) {
      before_.erase(ToRaw(id));
      client_[ToRaw(id)].Reset();
    }
    for (const EntityId id : crowd.removed()) {
      before_.erase(ToRaw(id));
      client_.erase(ToRaw(id));
    }
    const World& w = crowd.world();
    for (size_t z = 0; z < w.zone_count(); ++z) {
      const Zone& zone = w.zone(z);
      const ZoneTickOutput& o = w.output(z);
      const Budget b = BudgetAt(zone.config().interest, level, w.config().overload.near_floor);
      transfers += o.transfers.size();
      for (const PlayerView& v : o.views) {
        const uint32_t raw = ToRaw(v.player);
        zone.interest().Known(v.player, &known_);
        if (oracle_) {
          const Before& before = before_[raw];
          if (auto r = CheckView(zone, o, v, b, before.known, before.near, known_,
                                 w.config().wire_cost, &oracle);
              !r) {
            return r << " (" << Where(o, v) << ")";
          }
        }
        if (clients_) {
          if (auto r = client_[raw].Apply(o, v, known_, &client); !r) {
            return r << " (" << Where(o, v) << ")";
          }
        }
        Before& before = before_[raw];
        before.known.clear();
        before.near.clear();
        for (const KnownEntity& k : known_) {
          before.known.insert(ToRaw(k.id));
          if (k.tier == interest::Tier::kNear) before.near.insert(ToRaw(k.id));
        }
        Sent& sent = by_phase[phase];
        ++sent.views;
        sent.near += v.near_count;
        sent.known += v.known_count;
        mid_.clear();
        for (const KnownEntity& k : known_) {
          if (k.tier == interest::Tier::kMid) mid_.insert(ToRaw(k.id));
        }
        for (const interest::UpdateRef& u : v.updated) {
          sent.mid_sends += mid_.count(ToRaw(o.states[u.slot].id));
        }
        for (const uint32_t slot : v.moved) sent.mid_sends += mid_.count(ToRaw(o.states[slot].id));
        for (const uint32_t slot : v.turned) {
          sent.mid_sends += mid_.count(ToRaw(o.states[slot].id));
        }
      }
    }
    return ::testing::AssertionSuccess();
  }

  OracleStats oracle;
  ClientStats client;
  size_t transfers = 0;
  std::map<size_t, Sent> by_phase;

 private:
  bool oracle_, clients_;
  struct Before {
    std::set<uint32_t> known;  // after its last view
    std::set<uint32_t> near;   // its near tier then
  };
  std::map<uint32_t, Before> before_;  // by viewer
  std::map<uint32_t, Client> client_;  // by viewer
  std::vector<KnownEntity> known_;
  std::set<uint32_t> mid_;  // scratch: this view's mid tier
};

// Five runs: the small budgets as they are; with a rank floor of 8 m (everything nearer ranks
// alike, by id; wide enough that the near tier's cut falls inside the tie in most views); with
// a budget that pays for one entry per full pass (most mid-rank entries wait); with one that
// pays for two nameless entries (a player's name can make the second one wait); and with a near
// band of 4 m, the default (the near tier keeps an entity until another is 4 m nearer).
TEST(Interest, NearTierMatchesBruteForce) {
  struct Run {
    float rank_floor;
    float near_band;
    uint32_t bytes_per_tick;
    size_t deferred;           // at least this many entries wait
    size_t deferred_by_names;  // in at least this many views, for a name's bytes
  };
  const uint32_t small = SmallInterest().bytes_per_tick;
  for (const Run run :
       {Run{0.0f, 0.0f, small, 5, 0}, Run{8.0f, 0.0f, small, 5, 0}, Run{0.0f, 0.0f, 10, 1000, 0},
        Run{0.0f, 0.0f, 13, 200, 50}, Run{0.0f, 4.0f, small, 5, 0}}) {
    SCOPED_TRACE("rank_floor " + std::to_string(run.rank_floor) + ", near_band " +
                 std::to_string(run.near_band) + ", bytes_per_tick " +
                 std::to_string(run.bytes_per_tick));
    InterestConfig ic = SmallInterest();
    ic.rank_floor = run.rank_floor;
    ic.near_band = run.near_band;
    ic.bytes_per_tick = run.bytes_per_tick;
    Crowd crowd(ic, 11);
    Watch watch(/*use_oracle=*/true, /*use_clients=*/false);
    for (int t = 0; t < 1500; ++t) {
      crowd.Step(0);
      ASSERT_TRUE(watch.AfterStep(crowd, 0));
    }
    // The run exercised every rule: both tiers, relevance beyond the near ranks (and its cap),
    // the hysteresis and rank bands, entries paid from the budget and entries that wait, crowd
    // summaries, portals.
    const OracleStats& s = watch.oracle;
    EXPECT_GT(s.views, 10000u);
    EXPECT_GT(s.full_passes, 2000u);
    EXPECT_GT(s.near_by_rank, 4 * s.views);                             // of 6
    EXPECT_GT(s.mid, (run.bytes_per_tick == small ? 5 : 3) * s.views);  // of 10 (+ 3)
    EXPECT_GT(s.near_by_relevance, 1000u);
    EXPECT_GT(s.relevance_capped, 100u);
    EXPECT_GT(s.kept_in_band, 5000u);
    EXPECT_GT(s.summaries, 1000u);
    EXPECT_GT(s.summarized, 10000u);
    EXPECT_GT(watch.transfers, 30u);
    EXPECT_GT(s.entries_paid, 1000u);
    EXPECT_GT(s.entries_deferred, run.deferred);
    EXPECT_GE(s.deferred_by_names, run.deferred_by_names);
    if (run.rank_floor > 0) {
      EXPECT_GT(s.floor_ties, 1000u);
    } else {
      EXPECT_EQ(s.floor_ties, 0u);
    }
    if (run.near_band > 0) {
      EXPECT_GT(s.kept_by_band, 1000u);
    } else {
      EXPECT_EQ(s.kept_by_band, 0u);
    }
  }
}

TEST(Interest, ClientModelStaysConsistent) {
  Crowd crowd(SmallInterest(), 12);
  Watch watch(/*use_oracle=*/false, /*use_clients=*/true);
  for (int t = 0; t < 1500; ++t) {
    crowd.Step(0);
    ASSERT_TRUE(watch.AfterStep(crowd, 0));
  }
  const ClientStats& s = watch.client;
  EXPECT_GT(s.moved, 5000u);  // deltas, each checked exact on arrival
  EXPECT_GT(s.turned, 500u);  // deltas with a new facing, checked the same
  EXPECT_GT(s.updated, 2000u);
  EXPECT_GT(s.entered, 1000u);
  EXPECT_GT(s.left, 500u);
  EXPECT_GT(s.zone_changes, 30u);
  EXPECT_GT(s.hits, 500u);
  EXPECT_GT(s.near_checked, 20000u);
}

// Every change of a known entity reaches the viewer (as `updated`, `moved` or `turned`) within
// max_staleness_ticks ticks, counting the tick of the change, however tight the byte budget.
TEST(Interest, NoKnownEntityStarves) {
  WorldConfig c = TestWorld();
  InterestConfig ic = SmallInterest();
  ic.bytes_per_tick = 20;  // five moves a tick for ten mid-tier entities that all move
  ic.max_staleness_ticks = 10;
  c.zones[0].interest = ic;
  c.monsters[1].wander_radius = 12;
  c.zones[0].spawns = {
      {.monster = kWolf, .count = 30, .area = {{35, 35}, {65, 65}}, .respawn_ticks = 40}};
  World w(c);
  std::vector<EntityId> players(24);
  for (EntityId& p : players) ASSERT_TRUE(w.AddPlayer(std::nullopt, &p).ok());
  Rng rng(5);
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> since;  // (viewer, entity): first unsent tick
  std::vector<KnownEntity> known;
  uint64_t max_wait = 0;
  size_t delivered = 0;
  for (uint32_t tick = 0; tick < 2000; ++tick) {
    std::vector<MoveInput> moves;
    std::vector<SkillInput> skills;
    for (const EntityId p : players) {
      const Entity& me = *w.zone(0).store().Find(p);
      const bool far = DistanceSq(me.position, {50, 50}) > 15.0f * 15.0f;
      if (far || rng.Below(10) == 0) {  // always on the move, never far from the crowd
        const Vec2 dir = far ? Vec2{50, 50} - me.position : FromAngle(rng.Range(-kPi, kPi));
        moves.push_back({p, tick, dir});
      }
      if (rng.Below(12) == 0) skills.push_back({p, tick, testing::kWhirl, 0, {}});
    }
    w.Tick(moves, skills);
    const ZoneTickOutput& o = w.output(0);
    const auto slot_of = testing::SlotsOf(o);
    for (const PlayerView& v : o.views) {
      const uint32_t viewer = ToRaw(v.player);
      for (const EntityId id : v.left) since.erase({viewer, ToRaw(id)});
      std::set<uint32_t> sent, entered;
      for (const interest::UpdateRef& u : v.updated) sent.insert(ToRaw(o.states[u.slot].id));
      for (const uint32_t s : v.moved) sent.insert(ToRaw(o.states[s].id));
      for (const uint32_t s : v.turned) sent.insert(ToRaw(o.states[s].id));
      for (const uint32_t s : v.entered) entered.insert(ToRaw(o.states[s].id));
      w.zone(0).interest().Known(v.player, &known);
      for (const KnownEntity& k : known) {
        const uint32_t raw = ToRaw(k.id);
        const auto it = since.find({viewer, raw});
        if (sent.count(raw) != 0) {
          if (it != since.end()) {
            max_wait = std::max(max_wait, o.tick - it->second + 1);
            since.erase(it);
          }
          ++delivered;
        } else if (entered.count(raw) == 0 && o.changed[slot_of.at(raw)] != 0 &&
                   it == since.end()) {
          since[{viewer, raw}] = o.tick;
        }
      }
    }
    for (const auto& [pair, first] : since) {
      ASSERT_LT(o.tick - first + 1, ic.max_staleness_ticks)
          << "tick " << o.tick << ": viewer " << pair.first << " still waits for a change of "
          << pair.second << " pending since tick " << first;
    }
    ASSERT_LE(max_wait, ic.max_staleness_ticks);
  }
  EXPECT_GT(delivered, 100000u);
  // The budget really starved the mid tier: some changes were only sent when they fell due.
  EXPECT_EQ(max_wait, ic.max_staleness_ticks);
}

// Enter/leave counts for one view, and how often an entity that left came back soon after.
struct Churn {
  size_t entered = 0;
  size_t left = 0;
  size_t back_soon = 0;  // entered again within kWindow ticks of leaving
};
constexpr uint64_t kWindow = 10;

void Record(const ZoneTickOutput& o, const PlayerView& v, std::map<uint32_t, uint64_t>* left_at,
            Churn* c) {
  for (const EntityId id : v.left) {
    ++c->left;
    (*left_at)[ToRaw(id)] = o.tick;
  }
  for (const uint32_t s : v.entered) {
    ++c->entered;
    const auto it = left_at->find(ToRaw(o.states[s].id));
    if (it != left_at->end() && o.tick - it->second <= kWindow) ++c->back_soon;
  }
}

// The sways below last 3 ticks each way: a period of 6 ticks, prime to the policy's mid period
// (4 by default), so a policy that re-ranks every few ticks still sees every phase of the sway.

// One player swaying 0.75 m east and west every 3 ticks for 400 ticks; the enter/leave churn
// its view sees.
Churn Sway(const WorldConfig& c) {
  World w(c);
  EntityId p = kInvalidEntity;
  EXPECT_TRUE(w.AddPlayer(std::nullopt, &p).ok());
  std::map<uint32_t, uint64_t> left_at;
  Churn churn;
  for (uint32_t tick = 0; tick < 400; ++tick) {
    const MoveInput m{p, tick, {(tick / 3) % 2 == 0 ? 1.0f : -1.0f, 0}};
    w.Tick({&m, 1}, {});
    Record(w.output(0), w.output(0).views[0], &left_at, &churn);
  }
  return churn;
}

// A dummy 20.5 m east of the player, whose view radius is 20; the player sways 0.75 m east and
// back, so the dummy's centre distance (20.5 .. 19.75) crosses the view edge every sway.
Churn SwayAtViewEdge(float hysteresis) {
  WorldConfig c = TestWorld();
  c.zones[0].view_hysteresis = hysteresis;
  c.zones[0].interest = SmallInterest();
  c.zones[0].spawns = {SpawnAt(kDummy, {70.5f, 50})};
  return Sway(c);
}

// 24 dummies on the x axis through the player, alternately east and west, at centre distances
// 4.0, 4.6, ..., 17.8 (all well inside the view). The player sways 0.75 m east and back:
// distances to the east and west dummies change by 0.75 m in opposite directions, so neighbours
// in distance (0.6 m apart, on opposite sides) swap ranks every sway, while dummies 1.2 m apart
// (same side) never swap and those 1.8 m apart (opposite sides) neither: each dummy's rank moves
// by at most one.
// The dummies at ranks 15 and 16 therefore take turns at the entry rank near_max + mid_max = 16.
// Ranks are exact here (no rank floor, no near band): this is the rank margin's test.
Churn SwayAtRankEdge(uint32_t tier_margin) {
  WorldConfig c = TestWorld();
  c.zones[0].interest = SmallInterest();
  c.zones[0].interest.tier_margin = tier_margin;
  c.zones[0].interest.rank_floor = 0;
  c.zones[0].interest.near_band = 0;
  for (int i = 0; i < 24; ++i) {
    const float d = 4.0f + 0.6f * static_cast<float>(i);
    c.zones[0].spawns.push_back(SpawnAt(kDummy, {i % 2 == 0 ? 50 + d : 50 - d, 50}));
  }
  return Sway(c);
}

TEST(Interest, NoFlickerAtTierOrViewEdges) {
  // Controls: without the bands, both edges flicker with every sway.
  const Churn edge_bare = SwayAtViewEdge(0);
  EXPECT_GT(edge_bare.back_soon, 30u);
  const Churn rank_bare = SwayAtRankEdge(0);
  EXPECT_GT(rank_bare.back_soon, 30u);
  // With them (hysteresis 4 m, a margin of 3 ranks), nothing that is seen is ever dropped.
  const Churn edge = SwayAtViewEdge(4);
  EXPECT_EQ(edge.entered, 1u);
  EXPECT_EQ(edge.left, 0u);
  const Churn rank = SwayAtRankEdge(SmallInterest().tier_margin);
  EXPECT_EQ(rank.entered, 17u);  // ranks 0..15, and the dummy that swaps in at rank 15
  EXPECT_EQ(rank.left, 0u);
  EXPECT_EQ(rank.back_soon, 0u);
}

// A viewer in the middle of 40 players milling within 1.5 m of it (each turns at random, and
// heads back once beyond 1.5 m: at 0.25 m a tick they reshuffle their distances within a few
// ticks). The churn its view sees over 400 ticks.
Churn MillingCrowd(float rank_floor, float near_band = 0) {
  WorldConfig c = TestWorld();
  c.zones[0].interest = SmallInterest();
  c.zones[0].interest.rank_floor = rank_floor;
  c.zones[0].interest.near_band = near_band;
  World w(c);
  std::vector<EntityId> players(41);
  for (EntityId& p : players) EXPECT_TRUE(w.AddPlayer(std::nullopt, &p).ok());
  const Vec2 home = c.zones[0].player_spawn;
  Rng rng(5);
  std::map<uint32_t, uint64_t> left_at;
  Churn churn;
  std::vector<MoveInput> moves;
  for (uint32_t tick = 0; tick < 400; ++tick) {
    moves.clear();
    for (size_t i = 1; i < players.size(); ++i) {  // players[0] is the viewer: it stands
      const Vec2 at = w.zone(0).store().Find(players[i])->position;
      const Vec2 dir =
          DistanceSq(at, home) > 1.5f * 1.5f ? home - at : FromAngle(rng.Range(-kPi, kPi));
      moves.push_back({players[i], tick + 1, dir});
    }
    w.Tick(moves, {});
    for (const PlayerView& v : w.output(0).views) {
      if (v.player == players[0]) Record(w.output(0), v, &left_at, &churn);
    }
  }
  return churn;
}

TEST(Interest, ACrowdMillingUnderTheRankFloorKeepsItsTiers) {
  // Control: ranked exactly, the tiers churn as the crowd reshuffles (16 of 40 known).
  const Churn exact = MillingCrowd(0);
  EXPECT_GT(exact.back_soon, 100u);
  // With a rank floor of 4 m (the crowd is 3 m across) every distance ties and ranks go by id:
  // the 16 entities known at first stay known.
  const Churn floored = MillingCrowd(4);
  EXPECT_EQ(floored.entered, SmallInterest().near_max + SmallInterest().mid_max);
  EXPECT_EQ(floored.left, 0u);
}

// The same crowd with the near band (4 m, wider than the crowd): the nearest 6 stay the nearest
// as the crowd reshuffles, so fewer entities enter, and fewer come back soon after leaving.
TEST(Interest, ACrowdMillingAroundAViewerKeepsItsNearestWithTheBand) {
  const Churn exact = MillingCrowd(0);
  const Churn banded = MillingCrowd(0, 4);
  EXPECT_LT(banded.entered, 0.85 * static_cast<double>(exact.entered));     // 334 of 456
  EXPECT_LT(banded.back_soon, 0.8 * static_cast<double>(exact.back_soon));  // 98 of 151
}

TEST(Interest, OverloadShrinksAndRecovers) {
  const interest::OverloadConfig oc{
      .work_share = 0.6, .trigger_ticks = 3, .recover_ticks = 40, .near_floor = 8};
  interest::OverloadGovernor g(oc);
  const InterestConfig ic{.near_max = 48, .mid_max = 200, .bytes_per_tick = 600};
  Budget prev = BudgetAt(ic, 0, oc.near_floor);
  EXPECT_EQ(prev.near_max, 48u);
  EXPECT_EQ(prev.mid_max, 200u);
  EXPECT_EQ(prev.bytes_per_tick, 600u);
  // A middling share breaks a streak of slow ticks: no change.
  for (int i = 0; i < 99; ++i) EXPECT_FALSE(g.Observe(i % 3 == 2 ? 0.45 : 0.9));
  EXPECT_EQ(g.level(), 0u);
  // Slow ticks: one level per trigger_ticks of them; the byte rate shrinks first (levels 1-3),
  // then the mid tier (4-5), then the near tier (6-8), down to its floor and never below.
  for (uint32_t level = 1; level <= interest::kMaxOverloadLevel; ++level) {
    EXPECT_FALSE(g.Observe(0.9));
    EXPECT_FALSE(g.Observe(0.9));
    EXPECT_TRUE(g.Observe(0.9));
    ASSERT_EQ(g.level(), level);
    const Budget b = BudgetAt(ic, level, oc.near_floor);
    SCOPED_TRACE("level " + std::to_string(level));
    if (level <= 3) {
      EXPECT_LT(b.bytes_per_tick, prev.bytes_per_tick);
      EXPECT_EQ(b.mid_max, ic.mid_max);
      EXPECT_EQ(b.near_max, ic.near_max);
    } else if (level <= 5) {
      EXPECT_EQ(b.bytes_per_tick, prev.bytes_per_tick);
      EXPECT_LT(b.mid_max, prev.mid_max);
      EXPECT_EQ(b.near_max, ic.near_max);
    } else {
      EXPECT_EQ(b.bytes_per_tick, prev.bytes_per_tick);
      EXPECT_EQ(b.mid_max, prev.mid_max);
      EXPECT_LT(b.near_max, prev.near_max);
      EXPECT_GE(b.near_max, oc.near_floor);
    }
    prev = b;
  }
  EXPECT_EQ(prev.near_max, oc.near_floor);  // 48 >> 3 = 6 would be below the floor
  EXPECT_EQ(g.scale(), 0.0);
  for (int i = 0; i < 20; ++i) EXPECT_FALSE(g.Observe(0.9));  // saturated
  EXPECT_EQ(g.level(), interest::kMaxOverloadLevel);
  const Budget beyond = BudgetAt(ic, 100, oc.near_floor);
  EXPECT_EQ(beyond.near_max, prev.near_max);
  EXPECT_EQ(beyond.mid_max, prev.mid_max);
  EXPECT_EQ(beyond.bytes_per_tick, prev.bytes_per_tick);
  // Never below the floor nor above the configuration, whatever the sizes.
  for (uint32_t near = 1; near <= 64; ++near) {
    for (uint32_t floor = 0; floor <= 16; ++floor) {
      for (uint32_t level = 0; level <= 10; ++level) {
        const Budget b =
            BudgetAt({.near_max = near, .mid_max = 7, .bytes_per_tick = 9}, level, floor);
        ASSERT_GE(b.near_max, std::min(near, floor));
        ASSERT_LE(b.near_max, near);
        ASSERT_LE(b.mid_max, 7u);
        ASSERT_LE(b.bytes_per_tick, 9u);
      }
    }
  }
  // ... and a streak of quiet ones.
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(g.Observe(i % 30 == 29 ? 0.45 : 0.1));
  EXPECT_FALSE(g.Observe(0.45));
  EXPECT_EQ(g.level(), interest::kMaxOverloadLevel);
  // Quiet ticks: one level back per recover_ticks of them, down to 0.
  for (uint32_t level = interest::kMaxOverloadLevel; level-- > 0;) {
    for (uint32_t i = 1; i < oc.recover_ticks; ++i) EXPECT_FALSE(g.Observe(0.1));
    EXPECT_TRUE(g.Observe(0.1));
    ASSERT_EQ(g.level(), level);
  }
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(g.Observe(0.1));
  EXPECT_EQ(g.level(), 0u);
  EXPECT_EQ(g.scale(), 1.0);
}

// The crowd under changing overload levels: the views stay exactly what the oracle says at
// each level's budget (the nearest near_max are near, whatever near_max is now) and the clients
// stay consistent across the changes, while what is sent shrinks and comes back.
TEST(Interest, OverloadedWorldStaysConsistent) {
  // Without the near band, then with the default one: the views match the oracle at every level
  // either way; the ratios below are the exact ranks' (the band keeps the mid tier steadier, so
  // more of it falls due at level 3: 0.52x of level 0's mid sends against 0.46x).
  for (const float near_band : {0.0f, InterestConfig{}.near_band}) {
    SCOPED_TRACE("near_band " + std::to_string(near_band));
    InterestConfig ic = SmallInterest();
    ic.bytes_per_tick = 8;        // 2 moves a tick at level 0, none at level 3 ...
    ic.max_staleness_ticks = 40;  // ... but what falls due
    ic.near_band = near_band;
    Crowd crowd(ic, 13, /*near_floor=*/2);
    Watch watch(/*use_oracle=*/true, /*use_clients=*/true);
    const uint32_t schedule[] = {0, 3, 6, 8, 0};  // 200 ticks each
    for (int t = 0; t < 1000; ++t) {
      const size_t phase = static_cast<size_t>(t / 200);
      crowd.Step(schedule[phase]);
      ASSERT_TRUE(watch.AfterStep(crowd, schedule[phase], phase));
    }
    EXPECT_GT(watch.client.near_checked, 5000u);
    const auto per_view = [&watch](size_t phase, size_t Watch::Sent::*field) {
      const Watch::Sent& s = watch.by_phase.at(phase);
      return static_cast<double>(s.*field) / static_cast<double>(s.views);
    };
    // Level 6: a quarter of the mid tier, half the near tier; level 8: the near floor (2).
    EXPECT_LT(per_view(2, &Watch::Sent::known), 0.6 * per_view(1, &Watch::Sent::known));
    EXPECT_LT(per_view(3, &Watch::Sent::near), 0.6 * per_view(0, &Watch::Sent::near));
    // Back at level 0, everything comes back.
    EXPECT_GT(per_view(4, &Watch::Sent::known), 2 * per_view(3, &Watch::Sent::known));
    if (near_band > 0) continue;
    // Level 3: an eighth of the mid tier's byte budget (only what falls due is sent beyond it),
    // and back at level 0 the mid sends come back.
    EXPECT_LT(per_view(1, &Watch::Sent::mid_sends), 0.5 * per_view(0, &Watch::Sent::mid_sends));
    EXPECT_GT(per_view(4, &Watch::Sent::mid_sends), 2 * per_view(1, &Watch::Sent::mid_sends));
  }
}

TEST(Interest, WalkingOutAndBackGivesOneLeaveAndOneEnter) {
  World w(TestWorld());
  EntityId a, b;
  ASSERT_TRUE(w.AddPlayer(std::nullopt, &a).ok());
  ASSERT_TRUE(w.AddPlayer(std::nullopt, &b).ok());
  std::vector<std::pair<char, uint64_t>> seen;  // what a saw of b: 'e'ntered / 'l'eft
  const auto record = [&] {
    const ZoneTickOutput& o = w.output(0);
    for (const PlayerView& v : o.views) {
      if (v.player != a) continue;
      for (const uint32_t s : v.entered) {
        if (o.states[s].id == b) seen.emplace_back('e', o.tick);
      }
      for (const EntityId id : v.left) {
        if (id == b) seen.emplace_back('l', o.tick);
      }
    }
  };
  w.Tick({}, {});
  record();
  const MoveInput away{b, 1, {1, 0}};
  w.Tick({&away, 1}, {});
  record();
  for (int t = 0; t < 150; ++t) {  // 37.5 m east: beyond 20 + 4
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

TEST(Interest, DisconnectedPlayerLeavesOthersViews) {
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
  EXPECT_EQ(o.views[0].left[0], b);
}

}  // namespace
}  // namespace zs::zone
