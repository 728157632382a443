// The default interest policy: tiers by distance rank, priority within a byte budget.
//
// Per viewer and tick (all ranks by centre distance, ties by ascending id):
//   - one k-nearest query on the quadtree: K = near_max + mid_max + tier_margin entities within
//     view radius + hysteresis;
//   - a known entity stays known while it is among those K (+ margin) and within view radius +
//     hysteresis, or is relevant to the viewer; otherwise it is sent as `left`;
//   - an unknown entity enters when its rank is below near_max + mid_max and its centre is within
//     the view radius (or it is relevant and within the view radius). The two thresholds (rank and
//     distance) each have a band, so nothing flickers at a tier edge or at the view edge;
//   - the near tier (rank < near_max, or relevant) gets its pending changes every tick; the mid
//     tier accumulates priority while it has pending changes (more when nearer) and the highest
//     are sent within bytes_per_tick; a pending change older than max_staleness is sent whatever
//     the budget. A sent pair's priority resets;
//   - a move whose client copy is exactly the entity's previous position goes in `moved` (a delta);
//     any other change goes in `updated` with absolute values;
//   - about once a second (staggered by viewer id), a crowd summary counts what is in view but not
//     known, on a grid around the viewer.
// Per-pair state is 20 bytes; per-worker scratch is a few arrays indexed by slot, stamped with a
// per-worker mark so nothing is cleared per viewer. No allocation once warm.
#include <algorithm>
#include <bit>
#include <cmath>
#include <unordered_map>

#include "interest/interest.h"

namespace zs::interest {

namespace {

// Byte estimates of the v2 encoding, for the mid-tier budget (protocol documented in zone.proto).
constexpr uint32_t kMovedBytes = 4;     // id delta + dx + dy, packed
constexpr uint32_t kUpdateBytes = 12;   // wrapper + id + absolute x, y
constexpr uint32_t kFieldBytes = 3;     // each further field (facing, hp, alive)
constexpr float kNearWeight = 3.0f;     // priority growth: 1 at the view edge, 1 + this at 0 m

struct Pair {
  EntityId id = kInvalidEntity;
  uint32_t pos_tick = 0;       // the tick whose position the client has
  uint32_t pending_since = 0;  // first tick of the unsent changes (when pending != 0)
  float priority = 0;
  uint8_t pending = 0;  // change bits not yet sent
  uint8_t tier = 0;     // Tier, as of the last BuildView
};

struct ViewerState {
  std::vector<Pair> pairs;
  std::vector<Pair> next;  // scratch: swapped with pairs every tick
};

struct MidCandidate {
  float priority;
  uint32_t raw_id;
  uint32_t pair;  // index into next
  bool forced;
};

struct Scratch {
  spatial::QueryResults query;
  std::vector<uint32_t> result_mark;    // by slot: in this view's query results
  std::vector<uint32_t> rank;           // by slot: rank in the results (valid with result_mark)
  std::vector<uint32_t> relevant_mark;  // by slot
  std::vector<uint32_t> known_mark;     // by slot: known after this view
  std::vector<uint32_t> event_mark;     // by event
  uint32_t mark = 0;
  std::vector<MidCandidate> mid;
};

uint32_t UpdateCost(uint8_t fields, bool as_delta) {
  if (as_delta) return kMovedBytes;
  const auto others = static_cast<uint32_t>(std::popcount(static_cast<unsigned>(fields & ~kPositionBit)));
  return kUpdateBytes + kFieldBytes * others;
}

class TieredInterest final : public InterestPolicy {
 public:
  TieredInterest(const InterestConfig& config, uint32_t near_floor)
      : config_(config), near_floor_(near_floor) {}

  void AddViewer(EntityId viewer) override { viewers_[ToRaw(viewer)]; }
  void RemoveViewer(EntityId viewer) override { viewers_.erase(ToRaw(viewer)); }
  void Forget(EntityId viewer) override {
    if (auto it = viewers_.find(ToRaw(viewer)); it != viewers_.end()) it->second.pairs.clear();
  }

  void BeginTick(const Frame& frame, size_t workers) override {
    scratch_.resize(std::max<size_t>(1, workers));
    for (Scratch& s : scratch_) {
      const size_t n = frame.subjects.size();
      if (s.mark > 0xFFFFFF00u) {  // marks wrap after ~4e9 views: start over
        s.mark = 0;
        std::fill(s.result_mark.begin(), s.result_mark.end(), 0);
        std::fill(s.relevant_mark.begin(), s.relevant_mark.end(), 0);
        std::fill(s.known_mark.begin(), s.known_mark.end(), 0);
      }
      s.result_mark.resize(n, 0);
      s.rank.resize(n, 0);
      s.relevant_mark.resize(n, 0);
      s.known_mark.resize(n, 0);
      s.event_mark.assign(frame.events.event_count, 0);
    }
  }

  void BuildView(const Frame& frame, const Viewer& viewer, size_t worker,
                 ViewOutput* out) override;

  void Known(EntityId viewer, std::vector<KnownEntity>* out) const override {
    out->clear();
    const auto it = viewers_.find(ToRaw(viewer));
    if (it == viewers_.end()) return;
    for (const Pair& p : it->second.pairs) out->push_back({p.id, static_cast<Tier>(p.tier)});
    std::sort(out->begin(), out->end(),
              [](const KnownEntity& a, const KnownEntity& b) { return ToRaw(a.id) < ToRaw(b.id); });
  }

 private:
  // Slot of a live id, or -1 (gone, or its slot reused by another id).
  static int64_t SlotOf(const Frame& f, EntityId id) {
    const uint32_t index = EntityIndex(id);
    if (index >= f.slot_of.size() || f.slot_of[index] < 0) return -1;
    const auto s = static_cast<size_t>(f.slot_of[index]);
    return f.subjects[s].id == id ? static_cast<int64_t>(s) : -1;
  }
  void Send(const Frame& f, uint32_t slot, Pair& p, ViewOutput* out) const;
  void AddEvents(const Frame& f, uint32_t slot, uint32_t mark, Scratch& sc, ViewOutput* out) const;
  void SelectMid(const Frame& f, const Budget& b, Vec2 at, float leave_r, Scratch& sc,
                 ViewerState& st, ViewOutput* out) const;
  void Summarize(const Frame& f, Vec2 at, float radius, EntityId self, uint32_t mark, Scratch& sc,
                 ViewOutput* out) const;

  InterestConfig config_;
  uint32_t near_floor_;
  std::unordered_map<uint32_t, ViewerState> viewers_;  // by raw id; no insert during BuildView
  std::vector<Scratch> scratch_;                        // by worker
};

void TieredInterest::Send(const Frame& f, uint32_t slot, Pair& p, ViewOutput* out) const {
  const Subject& s = f.subjects[slot];
  const bool delta = p.pending == kPositionBit && p.pos_tick >= s.last_move_tick;
  if (delta) {
    out->moved.push_back(slot);
  } else {
    out->updated.push_back({.slot = slot, .fields = p.pending});
  }
  if ((p.pending & kPositionBit) != 0) p.pos_tick = f.tick;
  p.pending = 0;
  p.priority = 0;
}

void TieredInterest::AddEvents(const Frame& f, uint32_t slot, uint32_t mark, Scratch& sc,
                               ViewOutput* out) const {
  for (uint32_t k = f.events.start[slot]; k < f.events.start[slot + 1]; ++k) {
    const uint32_t e = f.events.items[k];
    if (sc.event_mark[e] != mark) {
      sc.event_mark[e] = mark;
      out->hits.push_back(e);
    }
  }
}

void TieredInterest::BuildView(const Frame& f, const Viewer& viewer, size_t worker,
                               ViewOutput* out) {
  Scratch& sc = scratch_[worker];
  ViewerState& st = viewers_.at(ToRaw(viewer.id));
  out->Clear();
  out->player = viewer.id;
  out->self = viewer.slot;
  const uint32_t m = ++sc.mark;
  if (!f.events.start.empty()) AddEvents(f, viewer.slot, m, sc, out);
  if (viewer.departing) {  // through a portal: forget everything here
    for (const Pair& p : st.pairs) out->left.push_back(p.id);
    st.pairs.clear();
    out->zone_changed = true;
    return;
  }

  const Budget b = BudgetAt(config_, f.overload_level, near_floor_);
  const uint32_t enter_rank = b.near_max + b.mid_max;
  const float enter_r = viewer.view_radius > 0 ? viewer.view_radius : f.view_radius;
  const float leave_r = enter_r + f.hysteresis;
  const Vec2 at = f.subjects[viewer.slot].position;
  f.tree->QueryNearest(at, enter_rank + config_.tier_margin, leave_r, {.exclude = viewer.id},
                       &sc.query);
  uint32_t r = 0;
  for (const EntityId id : sc.query.ids) {
    const auto s = static_cast<size_t>(f.slot_of[EntityIndex(id)]);
    sc.result_mark[s] = m;
    sc.rank[s] = r++;
  }
  const size_t relevant = std::min<size_t>(viewer.relevant.size(), config_.relevant_max);
  for (size_t i = 0; i < relevant; ++i) {
    const int64_t s = SlotOf(f, viewer.relevant[i]);
    if (s >= 0 && viewer.relevant[i] != viewer.id &&
        DistanceSq(f.subjects[static_cast<size_t>(s)].position, at) <= leave_r * leave_r) {
      sc.relevant_mark[static_cast<size_t>(s)] = m;
    }
  }

  // Known entities: stay (and collect changes) or leave.
  st.next.clear();
  for (Pair p : st.pairs) {
    const int64_t s64 = SlotOf(f, p.id);
    const auto s = static_cast<size_t>(s64);
    if (s64 < 0 || (sc.result_mark[s] != m && sc.relevant_mark[s] != m)) {
      out->left.push_back(p.id);
      continue;
    }
    const Subject& subj = f.subjects[s];
    if (subj.changed != 0) {
      if (p.pending == 0) p.pending_since = f.tick;
      p.pending |= subj.changed;
    }
    const bool near = sc.relevant_mark[s] == m || sc.rank[s] < b.near_max;
    p.tier = static_cast<uint8_t>(near ? Tier::kNear : Tier::kMid);
    sc.known_mark[s] = m;
    st.next.push_back(p);
  }
  // New entities: by rank, then relevant ones the ranks missed.
  const float enter_sq = enter_r * enter_r;
  const auto try_enter = [&](size_t s, bool near) {
    if (sc.known_mark[s] == m || DistanceSq(f.subjects[s].position, at) > enter_sq) return;
    sc.known_mark[s] = m;
    out->entered.push_back(static_cast<uint32_t>(s));
    st.next.push_back({.id = f.subjects[s].id,
                       .pos_tick = f.tick,
                       .tier = static_cast<uint8_t>(near ? Tier::kNear : Tier::kMid)});
  };
  for (uint32_t k = 0; k < sc.query.ids.size() && k < enter_rank; ++k) {
    const auto s = static_cast<size_t>(f.slot_of[EntityIndex(sc.query.ids[k])]);
    try_enter(s, k < b.near_max || sc.relevant_mark[s] == m);
  }
  for (size_t i = 0; i < relevant; ++i) {
    const int64_t s = SlotOf(f, viewer.relevant[i]);
    if (s >= 0 && sc.relevant_mark[static_cast<size_t>(s)] == m) {
      try_enter(static_cast<size_t>(s), true);
    }
  }
  const auto entered_end = st.next.size();
  const auto kept_end = entered_end - out->entered.size();

  // Near tier: everything pending, now. Mid tier: by priority, within the budget.
  for (size_t i = 0; i < kept_end; ++i) {
    Pair& p = st.next[i];
    if (p.tier == static_cast<uint8_t>(Tier::kNear)) {
      ++out->near_count;
      if (p.pending != 0) {
        Send(f, static_cast<uint32_t>(f.slot_of[EntityIndex(p.id)]), p, out);
      }
    }
  }
  for (size_t i = kept_end; i < entered_end; ++i) {
    out->near_count += st.next[i].tier == static_cast<uint8_t>(Tier::kNear) ? 1 : 0;
  }
  SelectMid(f, b, at, std::max(1e-3f, leave_r), sc, st, out);
  std::sort(out->moved.begin(), out->moved.end(), [&f](uint32_t a, uint32_t c) {
    return ToRaw(f.subjects[a].id) < ToRaw(f.subjects[c].id);
  });

  // Hit events: those of any entity the viewer knows.
  if (!f.events.start.empty()) {
    for (const Pair& p : st.next) {
      const auto s = static_cast<uint32_t>(f.slot_of[EntityIndex(p.id)]);
      if (f.subjects[s].has_events != 0) AddEvents(f, s, m, sc, out);
    }
    std::sort(out->hits.begin(), out->hits.end());
  }
  out->known_count = static_cast<uint32_t>(st.next.size());
  st.pairs.swap(st.next);

  const uint32_t period = std::max<uint32_t>(1, config_.summary_interval_ticks);
  if ((f.tick + EntityIndex(viewer.id)) % period == 0) {
    Summarize(f, at, enter_r, viewer.id, m, sc, out);
  }
}

void TieredInterest::SelectMid(const Frame& f, const Budget& b, Vec2 at, float leave_r,
                               Scratch& sc, ViewerState& st, ViewOutput* out) const {
  sc.mid.clear();
  const size_t kept_end = st.next.size() - out->entered.size();
  for (uint32_t i = 0; i < kept_end; ++i) {
    Pair& p = st.next[i];
    if (p.tier != static_cast<uint8_t>(Tier::kMid) || p.pending == 0) continue;
    const auto s = static_cast<size_t>(f.slot_of[EntityIndex(p.id)]);
    const float d = std::sqrt(DistanceSq(f.subjects[s].position, at));
    p.priority += 1.0f + kNearWeight * std::max(0.0f, 1.0f - d / leave_r);
    const bool forced = f.tick - p.pending_since + 1 >= config_.max_staleness_ticks;
    sc.mid.push_back({.priority = p.priority, .raw_id = ToRaw(p.id), .pair = i, .forced = forced});
  }
  // Forced first, then by priority, ties by id: deterministic.
  std::sort(sc.mid.begin(), sc.mid.end(), [](const MidCandidate& a, const MidCandidate& c) {
    if (a.forced != c.forced) return a.forced;
    if (a.priority != c.priority) return a.priority > c.priority;
    return a.raw_id < c.raw_id;
  });
  uint32_t spent = 0;
  for (const MidCandidate& c : sc.mid) {
    Pair& p = st.next[c.pair];
    const auto s = static_cast<uint32_t>(f.slot_of[EntityIndex(p.id)]);
    const bool delta = p.pending == kPositionBit && p.pos_tick >= f.subjects[s].last_move_tick;
    const uint32_t cost = UpdateCost(p.pending, delta);
    if (!c.forced && spent + cost > b.bytes_per_tick) break;
    spent += cost;
    Send(f, s, p, out);
  }
}

void TieredInterest::Summarize(const Frame& f, Vec2 at, float radius, EntityId self,
                               uint32_t mark, Scratch& sc, ViewOutput* out) const {
  CrowdSummary& c = out->crowd;
  c.center = at;
  c.grid = std::max<uint32_t>(1, config_.summary_grid);
  c.cell_size = 2 * radius / static_cast<float>(c.grid);
  c.counts.assign(static_cast<size_t>(c.grid) * c.grid, 0);
  c.total = 0;
  f.tree->QueryCircle({at, radius}, {.exclude = self}, spatial::QueryOrder::kAny, &sc.query);
  const float r_sq = radius * radius;
  const auto cell = [&](float v, float min) {
    const auto i = static_cast<int64_t>(std::floor((v - min) / c.cell_size));
    return static_cast<uint32_t>(std::clamp<int64_t>(i, 0, c.grid - 1));
  };
  for (const EntityId id : sc.query.ids) {
    const auto s = static_cast<size_t>(f.slot_of[EntityIndex(id)]);
    const Vec2 p = f.subjects[s].position;
    if (sc.known_mark[s] == mark || DistanceSq(p, at) > r_sq) continue;
    ++c.counts[cell(p.y, at.y - radius) * c.grid + cell(p.x, at.x - radius)];
    ++c.total;
  }
  out->has_crowd = true;
}

}  // namespace

Budget BudgetAt(const InterestConfig& config, uint32_t level, uint32_t near_floor) {
  // Mid rate first (levels 1-3 halve the byte budget), then the mid tier's size (4-5), then the
  // near tier down to its floor (6-8).
  level = std::min(level, kMaxOverloadLevel);
  Budget b{.near_max = config.near_max, .mid_max = config.mid_max,
           .bytes_per_tick = config.bytes_per_tick};
  b.bytes_per_tick >>= std::min<uint32_t>(level, 3);
  if (level >= 4) b.mid_max >>= std::min<uint32_t>(level - 3, 2);
  if (level >= 6) {
    b.near_max = std::max(std::min(near_floor, config.near_max), config.near_max >> (level - 5));
  }
  return b;
}

std::unique_ptr<InterestPolicy> MakeTieredInterest(const InterestConfig& config,
                                                   uint32_t near_floor) {
  return std::make_unique<TieredInterest>(config, near_floor);
}

}  // namespace zs::interest
