// The brute-force twin of the interest policy (server/interest/), for interest_test.cc:
// CheckView recomputes the tiered policy's membership, tier and crowd-summary rules over a tick's
// states (no quadtree; no per-pair state but the previous known set and near tier). Its companion,
// the client model built from the views alone, is in client_model.h. Both read a tick's
// ZoneTickOutput after World::Tick. The output's `states` are the frame the policy saw (players who
// walked through a portal are still in it; arrivals are not yet), so the brute force ranks over
// them, not over Zone::entities().
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "interest/interest.h"
#include "interest/nearest.h"
#include "zone/zone.h"

namespace zs::zone::testing {

// Metres to centimetres as wire::ToCentimetres rounds them (to nearest, halves away from zero,
// in double), without linking the wire layer.
inline int32_t Cm(float metres) {
  return static_cast<int32_t>(std::lround(static_cast<double>(metres) * 100.0));
}

inline std::string Raw(EntityId id) { return std::to_string(ToRaw(id)); }

// Raw id -> slot of a tick's states.
inline std::unordered_map<uint32_t, uint32_t> SlotsOf(const ZoneTickOutput& o) {
  std::unordered_map<uint32_t, uint32_t> m;
  for (uint32_t s = 0; s < o.states.size(); ++s) m.emplace(ToRaw(o.states[s].id), s);
  return m;
}

struct Ranked {
  uint32_t raw;
  float dist_sq;  // exact
  float rank_sq;  // as ranks compare it: less near_band for an incumbent, raised to the floor
  uint32_t slot;
};

// Every entity but the viewer whose centre is within `limit` of the viewer's, nearest first by
// interest::RankDistanceSq (any nearer than `rank_floor` metres counted as rank_floor, the
// `incumbents` `near_band` metres nearer), ties by ascending raw id (the policy's order), in the
// same float arithmetic.
inline std::vector<Ranked> RankByDistance(const ZoneTickOutput& o, uint32_t viewer_slot,
                                          float limit, float rank_floor, float near_band,
                                          const std::set<uint32_t>& incumbents) {
  const Vec2 at = o.states[viewer_slot].position;
  const float limit_sq = limit * limit;
  std::vector<Ranked> r;
  for (uint32_t s = 0; s < o.states.size(); ++s) {
    const float d = DistanceSq(at, o.states[s].position);
    const uint32_t raw = ToRaw(o.states[s].id);
    const float band = incumbents.count(raw) != 0 ? near_band : 0.0f;
    if (s != viewer_slot && d <= limit_sq) {
      r.push_back({raw, d, interest::RankDistanceSq(d, rank_floor, band), s});
    }
  }
  std::sort(r.begin(), r.end(), [](const Ranked& a, const Ranked& b) {
    return a.rank_sq != b.rank_sq ? a.rank_sq < b.rank_sq : a.raw < b.raw;
  });
  return r;
}

// What is relevant to `viewer` this tick, ascending raw id, as the zone defines it: its targets
// and attackers in this tick's hit events, the entity it hit last (even if gone), and the
// monsters chasing it.
inline std::vector<uint32_t> RelevantTo(const Zone& zone, const ZoneTickOutput& o,
                                        const Entity& viewer) {
  std::set<uint32_t> r;
  for (const HitEvent& ev : o.events) {
    for (uint32_t t = 0; t < ev.num_targets; ++t) {
      const EntityId target = o.targets[ev.first_target + t].target;
      if (ev.attacker == viewer.id && target != viewer.id) r.insert(ToRaw(target));
      if (target == viewer.id && ev.attacker != viewer.id) r.insert(ToRaw(ev.attacker));
    }
  }
  const EntityId last = viewer.player().last_target;
  if (last != kInvalidEntity && last != viewer.id) r.insert(ToRaw(last));
  for (const Entity& e : zone.store().entities()) {
    if (e.is_monster() && e.monster().ai == MonsterState::kChase &&
        e.monster().target == viewer.id) {
      r.insert(ToRaw(e.id));
    }
  }
  return {r.begin(), r.end()};
}

struct OracleStats {
  size_t views = 0;
  size_t full_passes = 0;        // views that re-ranked the mid tier
  size_t near_by_rank = 0;       // near-tier entities of rank < near_max
  size_t near_by_relevance = 0;  // near-tier entities that are near only because relevant
  size_t mid = 0;
  size_t kept_in_band = 0;       // known entities beyond the entry thresholds, kept by the bands
  size_t floor_ties = 0;         // views whose near or entry cut fell inside a tie at the floor
  size_t kept_by_band = 0;       // near by rank only through the band: a nearer one is not near
  size_t entries_paid = 0;       // mid-rank entries the budget paid for
  size_t entries_deferred = 0;   // mid-rank entries it could not pay for (yet)
  size_t deferred_by_names = 0;  // views that deferred one the budget pays for without names
  size_t kept_between = 0;       // known entities beyond the keep rank, kept until a full pass
  size_t relevance_capped = 0;   // views with more relevant entities than relevant_max
  size_t summaries = 0;          // crowd summaries checked
  size_t summarized = 0;         // entities they counted
};

// How often the policy re-ranks the mid tier (a policy without that notion: every tick).
template <typename Config>
uint32_t MidPeriod(const Config& c) {
  if constexpr (requires { c.mid_period_ticks; }) {
    return std::max<uint32_t>(1, c.mid_period_ticks);
  } else {
    return 1;
  }
}

// The policy's membership and tier rules, by brute force, for one view. `before` is the
// viewer's known set after its previous view in this zone (empty after arriving or a Forget),
// `before_near` its near tier then (the incumbents).
// Ranks are by centre distance, the incumbents' less near_band, raised to rank_floor, over the
// whole tick (RankByDistance, within view radius + hysteresis); "relevant" is the first
// relevant_max of RelevantTo (ascending raw id), counted only within view radius + hysteresis ("in
// band") or the view radius ("in view").
//   Every tick: near = rank < near_max, or relevant in band. An unknown entity enters when it is
//     near and in view (rank < near_max within the view radius, or relevant in view). A known
//     entity that is gone leaves.
//   On a full pass (every mid_period ticks, staggered by the viewer's entity index, and whenever
//     the viewer knows nothing; every tick when there is no mid period) also: an unknown entity
//     enters when its rank is < near_max + mid_max and it is in view; a known one stays only
//     while its rank is < near_max + mid_max + tier_margin, or it is relevant in band. An entry
//     that is not near is paid from the mid tier's budget (bytes_per_tick * mid_period), each at
//     WireCost::EnterBytes of its name's length: nearest first, until one does not fit, but at
//     least one; the rest stay unknown for now. A viewer that knew nothing and a world without
//     stated costs pay nothing.
//   Between full passes a known entity that is still here stays, whatever its rank and distance
//     (in the mid tier unless near).
// So after the view: known = must | (before & may), with `must` the entry rule and `may` the
// stay rule of the tick, and the tiers as above. The coarse invariants (the nearest near_max in
// view are near; a near entity is among the nearest or relevant; as of a full pass, the known set
// is bounded and nothing is known beyond view radius + hysteresis) are checked one by one first,
// for readable failures; then the exact rule; then the crowd summary.
inline ::testing::AssertionResult CheckView(const Zone& zone, const ZoneTickOutput& o,
                                            const PlayerView& v, const interest::Budget& b,
                                            const std::set<uint32_t>& before,
                                            const std::set<uint32_t>& before_near,
                                            const std::vector<interest::KnownEntity>& known,
                                            const interest::WireCost& cost, OracleStats* st) {
  using interest::Tier;
  using ::testing::AssertionFailure;
  const interest::InterestConfig& ic = zone.config().interest;
  if (v.zone_changed) {
    if (!known.empty()) return AssertionFailure() << "departed viewer still knows";
    return ::testing::AssertionSuccess();
  }
  const Entity* player = zone.store().Find(v.player);
  if (player == nullptr) return AssertionFailure() << "viewer not in its zone";
  ++st->views;
  const uint32_t period = MidPeriod(ic);
  const bool full =
      before.empty() || (static_cast<uint32_t>(o.tick) + EntityIndex(v.player)) % period == 0;
  st->full_passes += full ? 1 : 0;
  const float enter_r = ViewRadiusOf(*player, zone.config());
  const float leave_r = enter_r + zone.config().view_hysteresis;
  const float enter_sq = enter_r * enter_r;
  const uint32_t enter_rank = b.near_max + b.mid_max;
  const uint32_t keep_rank = enter_rank + ic.tier_margin;
  const std::vector<Ranked> ranked =
      RankByDistance(o, v.self, leave_r, ic.rank_floor, ic.near_band, before_near);
  const float floor_sq = interest::RankDistanceSq(0.0f, ic.rank_floor);
  for (const size_t cut : {size_t{b.near_max}, size_t{enter_rank}}) {
    if (ic.rank_floor > 0 && cut < ranked.size() && ranked[cut].rank_sq == floor_sq) {
      ++st->floor_ties;  // the entities on both sides of the cut tie at the floor
      break;
    }
  }
  if (ranked.size() > b.near_max) {  // an incumbent near by rank, beyond the first one that is not
    const float first_out = interest::RankDistanceSq(ranked[b.near_max].dist_sq, ic.rank_floor);
    for (size_t k = 0; k < b.near_max; ++k) {
      if (interest::RankDistanceSq(ranked[k].dist_sq, ic.rank_floor) > first_out) {
        ++st->kept_by_band;
        break;
      }
    }
  }
  std::unordered_map<uint32_t, size_t> rank_of;
  for (size_t k = 0; k < ranked.size(); ++k) rank_of[ranked[k].raw] = k;
  std::vector<uint32_t> relevant = RelevantTo(zone, o, *player);
  if (relevant.size() > ic.relevant_max) {
    ++st->relevance_capped;
    relevant.resize(ic.relevant_max);
  }
  std::set<uint32_t> relevant_in_band, relevant_in_view;
  for (const uint32_t r : relevant) {
    if (const auto it = rank_of.find(r); it != rank_of.end()) {
      relevant_in_band.insert(r);
      if (ranked[it->second].dist_sq <= enter_sq) relevant_in_view.insert(r);
    }
  }
  std::map<uint32_t, Tier> tier_of;
  for (const interest::KnownEntity& k : known) tier_of[ToRaw(k.id)] = k.tier;
  if (tier_of.size() != known.size()) return AssertionFailure() << "known twice";

  // The coarse invariants.
  for (size_t k = 0; k < ranked.size() && k < b.near_max; ++k) {
    const auto it = tier_of.find(ranked[k].raw);
    if (ranked[k].dist_sq <= enter_sq && (it == tier_of.end() || it->second != Tier::kNear)) {
      return AssertionFailure() << "entity " << ranked[k].raw << " of rank " << k
                                << " in view is not in the near tier";
    }
  }
  size_t near = 0;
  for (const auto& [raw, tier] : tier_of) {
    const auto r = rank_of.find(raw);
    const bool in_band = r != rank_of.end();
    const bool is_relevant = relevant_in_band.count(raw) != 0;
    if (tier == Tier::kNear) {
      ++near;
      if (!in_band || (r->second >= b.near_max && !is_relevant)) {
        return AssertionFailure() << "entity " << raw << " near at rank "
                                  << (in_band ? std::to_string(r->second) : "(out of band)")
                                  << " without being relevant";
      }
      ++(r->second < b.near_max ? st->near_by_rank : st->near_by_relevance);
    } else {
      ++st->mid;
    }
    if (full && !in_band) {
      return AssertionFailure() << "entity " << raw
                                << " known beyond view radius + hysteresis (or gone)";
    }
    if (full && r->second >= keep_rank && !is_relevant) {
      return AssertionFailure() << "entity " << raw << " kept at rank " << r->second;
    }
  }
  if (full && known.size() > keep_rank + ic.relevant_max) {
    return AssertionFailure() << "known set of " << known.size() << " over the bound";
  }
  if (v.known_count != known.size() || v.near_count != near) {
    return AssertionFailure() << "view counts " << v.known_count << "/" << v.near_count
                              << " disagree with Known " << known.size() << "/" << near;
  }

  // The exact rule.
  std::map<uint32_t, Tier> want;
  const size_t enter_limit = full ? enter_rank : b.near_max;
  const bool budgeted = !before.empty() && cost.stated() && cost.enter_bytes > 0;
  const uint32_t entry_budget = b.bytes_per_tick * period;
  uint32_t entry_spent = 0;
  size_t entries_paid = 0;
  bool entries_stopped = false;  // one did not fit: the farther ones wait too
  for (size_t k = 0; k < ranked.size(); ++k) {
    const uint32_t raw = ranked[k].raw;
    const bool is_relevant = relevant_in_band.count(raw) != 0;
    bool must =
        (k < enter_limit && ranked[k].dist_sq <= enter_sq) || relevant_in_view.count(raw) != 0;
    if (must && k >= b.near_max && !is_relevant && before.count(raw) == 0 && budgeted) {
      // A mid-rank entry: paid from the budget at its own cost, nearest first, at least one.
      const size_t name = NameOf(o.names, o.states[ranked[k].slot]).size();
      const uint32_t bytes = cost.EnterBytes(static_cast<uint32_t>(std::min<size_t>(name, 255)));
      const bool was_stopped = entries_stopped;
      must = !entries_stopped && (entries_paid == 0 || entry_spent + bytes <= entry_budget);
      entries_stopped = !must;
      entry_spent += must ? bytes : 0;
      entries_paid += must ? 1 : 0;
      ++(must ? st->entries_paid : st->entries_deferred);
      if (!must && !was_stopped &&
          entries_paid < std::max<size_t>(1, entry_budget / cost.enter_bytes)) {
        ++st->deferred_by_names;  // nameless entries would have fitted
      }
    }
    const bool may = !full || k < keep_rank || is_relevant;
    if (must || (may && before.count(raw) != 0)) {
      want[raw] = k < b.near_max || is_relevant ? Tier::kNear : Tier::kMid;
      if (!must) ++(k < keep_rank ? st->kept_in_band : st->kept_between);
    }
  }
  if (!full) {  // known, present, out of band: stays (mid) until the next full pass
    const std::unordered_map<uint32_t, uint32_t> present = SlotsOf(o);
    for (const uint32_t raw : before) {
      if (rank_of.count(raw) == 0 && present.count(raw) != 0) {
        want[raw] = Tier::kMid;
        ++st->kept_between;
      }
    }
  }
  for (const auto& [raw, tier] : want) {
    const auto it = tier_of.find(raw);
    const auto r = rank_of.find(raw);
    const std::string where =
        " (rank " + (r != rank_of.end() ? std::to_string(r->second) : std::string("-")) +
        ", distance " +
        (r != rank_of.end() ? std::to_string(std::sqrt(ranked[r->second].dist_sq)) : "-") +
        ", known before " + std::to_string(before.count(raw)) + (full ? ", full pass)" : ")");
    if (it == tier_of.end()) return AssertionFailure() << "entity " << raw << " not known" << where;
    if (it->second != tier) {
      return AssertionFailure() << "entity " << raw << " should be "
                                << (tier == Tier::kNear ? "near" : "mid") << where;
    }
  }
  for (const auto& [raw, tier] : tier_of) {
    if (want.count(raw) == 0) {
      const auto r = rank_of.find(raw);
      return AssertionFailure() << "entity " << raw << " should not be known (rank "
                                << (r != rank_of.end() ? std::to_string(r->second) : "-")
                                << (full ? ", full pass)" : ")");
    }
  }

  // The crowd summary, every summary_interval ticks (staggered by the viewer's entity index):
  // what is in view but not known, counted on a grid of cells around the viewer.
  const uint32_t period_summary = std::max<uint32_t>(1, ic.summary_interval_ticks);
  const bool due = (static_cast<uint32_t>(o.tick) + EntityIndex(v.player)) % period_summary == 0;
  if (v.has_crowd != due)
    return AssertionFailure() << "crowd summary " << (due ? "missing" : "early");
  if (v.has_crowd) {
    const interest::CrowdSummary& c = v.crowd;
    const Vec2 at = o.states[v.self].position;
    const uint32_t grid = std::max<uint32_t>(1, ic.summary_grid);
    const float cell_size = 2 * enter_r / static_cast<float>(grid);
    if (!(c.center == at) || c.grid != grid || c.cell_size != cell_size ||
        c.counts.size() != static_cast<size_t>(grid) * grid) {
      return AssertionFailure() << "crowd summary shape";
    }
    const auto cell = [&](float x, float min) {
      const auto i = static_cast<int64_t>(std::floor((x - min) / cell_size));
      return static_cast<size_t>(std::clamp<int64_t>(i, 0, grid - 1));
    };
    std::vector<uint32_t> counts(c.counts.size(), 0);
    uint32_t total = 0;
    for (const Ranked& r : ranked) {
      if (r.dist_sq > enter_sq || tier_of.count(r.raw) != 0) continue;
      const Vec2 p = o.states[r.slot].position;
      ++counts[cell(p.y, at.y - enter_r) * grid + cell(p.x, at.x - enter_r)];
      ++total;
    }
    if (c.counts != counts || c.total != total) {
      return AssertionFailure() << "crowd summary counts " << c.total << " unknown in view, want "
                                << total;
    }
    ++st->summaries;
    st->summarized += total;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace zs::zone::testing
