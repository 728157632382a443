// The default interest policy: tiers by distance rank, priority within a byte budget.
//
// Ranks are by centre distance from the viewer, ties by ascending id. Every tick, per viewer:
//   - the near tier is exactly the nearest near_max entities within view radius + hysteresis
//     (those within the view radius enter if unknown), plus the relevant ones (attacker,
//     targets, last hit, monsters hunting the viewer); their changes are sent every tick;
//   - hit events of anything known are sent.
// Every mid_period ticks (staggered by viewer id; at once for a new or resynced viewer), a full
// pass also:
//   - ranks the K = near_max + mid_max + tier_margin nearest: a known entity stays known while
//     among them (or relevant), otherwise it is sent as `left`; an unknown one enters when its
//     rank is below near_max + mid_max and its centre is within the view radius. Both thresholds
//     have a band (tier_margin ranks, the view hysteresis), so nothing flickers at an edge;
//   - sends the mid tier's pending changes by priority within mid_period * bytes_per_tick;
//     priority grows with the time since the pair was last sent, faster when nearer; a pair that
//     could otherwise wait max_staleness ticks is sent whatever the budget.
// Ranking uses one circle query whose radius starts from the last pass's K-th distance (plus
// slack, grown until it holds K or reaches the view edge), then nth_element partitions: the tiers
// need rank classes, not an order. A pair's pending fields are derived, not accumulated: the
// fields whose last change (Subject::changed_at) is after the pair's last send. So a tick that
// does not rank the mid tier does not touch it beyond one check.
//   - A move whose client copy is exactly the entity's previous position goes in `moved` (a
//     delta); any other change goes in `updated` with absolute values;
//   - about once a second (staggered by viewer id), a crowd summary counts what is in view but
//     not known, on a grid around the viewer.
// Per-pair state is 16 bytes; per-worker scratch is indexed by slot and stamped with a per-worker
// mark, so nothing is cleared per viewer. No allocation once warm.
#include <algorithm>
#include <bit>
#include <cmath>
#include <unordered_map>

#include "interest/interest.h"
#include "interest/nearest.h"

namespace zs::interest {

namespace {

constexpr float kNearWeight = 3.0f;  // priority growth: 1 at the view edge, 1 + this at 0 m

struct Pair {
  EntityId id = kInvalidEntity;
  uint32_t slot = 0;       // where it was last seen (checked against the id before use)
  uint32_t sent_tick = 0;  // the client has every field as of this tick
  uint32_t tier = 0;       // Tier, as of the last BuildView (a full word: no partial copies)
};
static_assert(sizeof(Pair) == 16);

struct ViewerState {
  float full_hint = 0;  // last full pass's K-th nearest distance (0: unknown)
  float near_hint = 0;  // last tick's near_max-th nearest distance
  std::vector<Pair> pairs;
};

// Fields of `s` changed after the client's copy (as of `sent_tick`).
uint8_t Pending(const Subject& s, uint32_t sent_tick) {
  uint8_t bits = 0;
  for (uint32_t b = 0; b < kChangeFields; ++b) {
    bits |= static_cast<uint8_t>((s.changed_at[b] > sent_tick ? 1u : 0u) << b);
  }
  return bits;
}

struct MidCandidate {
  float priority;
  uint32_t raw_id;
  uint32_t pair;   // index into ViewerState::pairs
  uint8_t fields;  // pending
  bool forced;
};

struct Scratch {
  NearestRanker ranker;
  spatial::QueryResults query;
  // By slot, bits one view sets and clears again before the next (a few KB: they stay in L1,
  // so a known entity costs a few bit tests, not a cache miss).
  std::vector<uint64_t> ranked_bits;  // among this view's ranked entities
  std::vector<uint64_t> near_bits;    // near tier: rank < near_max, or relevant
  std::vector<uint64_t> known_bits;   // known after this view
  // By slot: squared distance from the viewer (valid where ranked_bits is set, on full passes).
  std::vector<float> distance_sq;
  std::vector<uint32_t> event_mark;  // by event
  uint32_t mark = 0;
  std::vector<MidCandidate> mid;
};

size_t Words(size_t bits) { return (bits + 63) / 64; }
bool TestBit(std::span<const uint64_t> bits, size_t i) {
  return i / 64 >= bits.size() || ((bits[i / 64] >> (i % 64)) & 1u) != 0;  // beyond: set
}
void SetBit(std::vector<uint64_t>& bits, size_t i) { bits[i / 64] |= uint64_t{1} << (i % 64); }
void ClearBit(std::vector<uint64_t>& bits, size_t i) { bits[i / 64] &= ~(uint64_t{1} << (i % 64)); }

uint32_t UpdateCost(const WireCost& cost, uint8_t fields, bool as_delta) {
  if (as_delta) return cost.moved_bytes;
  const auto others =
      static_cast<uint32_t>(std::popcount(static_cast<unsigned>(fields & ~kPositionBit)));
  return cost.update_bytes + cost.field_bytes * others;
}

class TieredInterest final : public InterestPolicy {
 public:
  TieredInterest(const InterestConfig& config, uint32_t near_floor, WireCost cost)
      : config_(config), near_floor_(near_floor), cost_(cost) {}

  void AddViewer(EntityId viewer) override { viewers_[ToRaw(viewer)]; }
  void RemoveViewer(EntityId viewer) override { viewers_.erase(ToRaw(viewer)); }
  void Forget(EntityId viewer) override {
    if (auto it = viewers_.find(ToRaw(viewer)); it != viewers_.end()) it->second = ViewerState{};
  }
  void Adopt(EntityId viewer, std::span<const std::pair<EntityId, uint32_t>> known) override {
    ViewerState& st = viewers_[ToRaw(viewer)];
    st = ViewerState{};
    for (const auto& [id, slot] : known) {
      // sent_tick 0: every field the frame has seen change is pending, so the client's copy is
      // brought up to date field by field; the slot is looked up again (churned) before use.
      st.pairs.push_back(
          {.id = id, .slot = slot, .sent_tick = 0, .tier = static_cast<uint32_t>(Tier::kNear)});
    }
  }

  void BeginTick(const Frame& frame, size_t workers) override {
    scratch_.resize(std::max<size_t>(1, workers));
    for (Scratch& s : scratch_) {
      const size_t n = frame.subjects.size();
      if (s.mark > 0xFFFFFF00u) s.mark = 0;  // event marks wrap after ~4e9 views: start over
      s.distance_sq.resize(n);
      s.ranked_bits.resize(Words(n), 0);
      s.near_bits.resize(Words(n), 0);
      s.known_bits.resize(Words(n), 0);
      s.event_mark.assign(frame.events.event_count, 0);
    }
    event_bits_.assign(Words(frame.subjects.size()), 0);
    for (size_t s = 0; s < frame.subjects.size(); ++s) {
      if (frame.subjects[s].has_events != 0) SetBit(event_bits_, s);
    }
  }

  void BuildView(const Frame& frame, const Viewer& viewer, size_t worker, ViewOutput* out) override;

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
  // BuildView's steps, in order, over one Pass.
  struct Pass;
  void Rank(Pass& p) const;
  void UpdateKnown(Pass& p) const;
  void EnterNew(Pass& p) const;
  void Finish(Pass& p) const;
  void ClearMarks(Pass& p) const;
  static void Send(const Frame& f, uint8_t fields, Pair& p, ViewOutput* out);
  void AddEvents(const Frame& f, uint32_t slot, uint32_t mark, Scratch& sc, ViewOutput* out) const;
  void SelectMid(const Frame& f, uint32_t budget, Scratch& sc, ViewerState& st,
                 ViewOutput* out) const;
  void Summarize(const Frame& f, Vec2 at, float radius, EntityId self, Scratch& sc,
                 ViewOutput* out) const;

  InterestConfig config_;
  uint32_t near_floor_;
  WireCost cost_;
  std::unordered_map<uint32_t, ViewerState> viewers_;  // by raw id; no insert during BuildView
  std::vector<Scratch> scratch_;                       // by worker
  std::vector<uint64_t> event_bits_;                   // by slot: took part in a hit event
};

// A move only, from the position the client has (its copy is as of sent_tick and the entity did
// not move between then and this tick): a delta from the previous position.
bool AsDelta(const Subject& s, uint8_t fields, uint32_t sent_tick) {
  return fields == kPositionBit && s.last_move_tick <= sent_tick;
}

void TieredInterest::Send(const Frame& f, uint8_t fields, Pair& p, ViewOutput* out) {
  if (AsDelta(f.subjects[p.slot], fields, p.sent_tick)) {
    out->moved.push_back(p.slot);
  } else {
    out->updated.push_back({.slot = p.slot, .fields = fields});
  }
  p.sent_tick = f.tick;
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

// The state of one BuildView, shared by its steps.
struct TieredInterest::Pass {
  const Frame& f;
  const Viewer& viewer;
  Scratch& sc;
  ViewerState& st;
  ViewOutput* out;
  Budget budget;
  uint32_t enter_rank;  // near_max + mid_max
  uint32_t period;      // ticks between full passes
  bool full;            // this tick re-ranks the mid tier
  bool events;          // hit events this tick
  uint32_t mark;        // this view's event mark
  float enter_r;
  float leave_r;
  Vec2 at;              // the viewer's position
  size_t relevant = 0;  // how many of viewer.relevant count
  [[nodiscard]] uint32_t SlotOfKey(RankKey k) const {
    return static_cast<uint32_t>(f.slot_of[KeyRawId(k) & kMaxEntityIndex]);
  }
};

void TieredInterest::BuildView(const Frame& f, const Viewer& viewer, size_t worker,
                               ViewOutput* out) {
  Scratch& sc = scratch_[worker];
  ViewerState& st = viewers_.at(ToRaw(viewer.id));
  out->Clear();
  out->player = viewer.id;
  out->self = viewer.slot;
  const uint32_t mark = ++sc.mark;
  if (!f.events.start.empty()) AddEvents(f, viewer.slot, mark, sc, out);
  if (viewer.departing) {  // through a portal: forget everything here
    for (const Pair& p : st.pairs) out->left.push_back(p.id);
    st.pairs.clear();
    out->zone_changed = true;
    return;
  }
  const Budget b = BudgetAt(config_, f.overload_level, near_floor_);
  const uint32_t period = std::max<uint32_t>(1, config_.mid_period_ticks);
  Pass pass{.f = f,
            .viewer = viewer,
            .sc = sc,
            .st = st,
            .out = out,
            .budget = b,
            .enter_rank = b.near_max + b.mid_max,
            .period = period,
            .full = st.pairs.empty() || (f.tick + EntityIndex(viewer.id)) % period == 0,
            .events = !f.events.start.empty(),
            .mark = mark,
            .enter_r = viewer.view_radius,
            .leave_r = viewer.view_radius + f.hysteresis,
            .at = f.subjects[viewer.slot].position};
  Rank(pass);
  UpdateKnown(pass);
  EnterNew(pass);
  Finish(pass);
  ClearMarks(pass);
}

// Ranks what is in view (the nearest `keep`), marking ranked and near slots; relevant entities
// within the leave radius are near whatever their rank.
void TieredInterest::Rank(Pass& p) const {
  const uint32_t keep = p.full ? p.enter_rank + config_.tier_margin : p.budget.near_max;
  p.sc.ranker.Rank(*p.f.tree, p.at, p.viewer.id, keep, p.leave_r, {p.budget.near_max, p.enter_rank},
                   p.full ? &p.st.full_hint : &p.st.near_hint);
  const std::vector<RankKey>& keys = p.sc.ranker.keys();
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint32_t s = p.SlotOfKey(keys[i]);
    SetBit(p.sc.ranked_bits, s);
    if (i < p.budget.near_max) SetBit(p.sc.near_bits, s);
    if (p.full) p.sc.distance_sq[s] = KeyDistanceSq(keys[i]);
  }
  p.relevant = std::min<size_t>(p.viewer.relevant.size(), config_.relevant_max);
  for (size_t i = 0; i < p.relevant; ++i) {
    const int64_t s = SlotOf(p.f, p.viewer.relevant[i]);
    if (s >= 0 && p.viewer.relevant[i] != p.viewer.id &&
        DistanceSq(p.f.subjects[static_cast<size_t>(s)].position, p.at) <= p.leave_r * p.leave_r) {
      SetBit(p.sc.near_bits, static_cast<size_t>(s));
    }
  }
}

// One pass over what is known. Near: send what is pending. Mid: on a full pass, leave if no
// longer ranked, else become a candidate for the budget; otherwise a few bit tests.
void TieredInterest::UpdateKnown(Pass& p) const {
  const Frame& f = p.f;
  Scratch& sc = p.sc;
  const float inv_leave = 1.0f / std::max(1e-3f, p.leave_r);
  sc.mid.clear();
  size_t kept = 0;
  for (size_t i = 0; i < p.st.pairs.size(); ++i) {
    Pair& pair = p.st.pairs[i];  // in place (a by-value copy here costs a store-forwarding stall)
    if (TestBit(f.churned, pair.slot)) {  // its slot changed hands since last tick: look it up
      const int64_t s64 = SlotOf(f, pair.id);
      if (s64 < 0) {
        p.out->left.push_back(pair.id);
        continue;
      }
      pair.slot = static_cast<uint32_t>(s64);
    }
    const bool near = TestBit(sc.near_bits, pair.slot);
    const bool ranked = TestBit(sc.ranked_bits, pair.slot);
    if (p.full && !ranked && !near) {
      p.out->left.push_back(pair.id);
      continue;
    }
    SetBit(sc.known_bits, pair.slot);
    if (p.events && TestBit(event_bits_, pair.slot)) AddEvents(f, pair.slot, p.mark, sc, p.out);
    pair.tier = static_cast<uint32_t>(near ? Tier::kNear : Tier::kMid);
    if (near) ++p.out->near_count;
    if (near || p.full) {
      const uint8_t pending = Pending(f.subjects[pair.slot], pair.sent_tick);
      if (pending != 0 && near) {
        Send(f, pending, pair, p.out);
      } else if (pending != 0) {
        const auto waited = static_cast<float>(f.tick - pair.sent_tick);
        const float d = std::sqrt(sc.distance_sq[pair.slot]);
        const float closeness = std::max(0.0f, 1.0f - d * inv_leave);
        // Sent now whatever the budget if the next full pass would be too late.
        const bool forced = f.tick + p.period - pair.sent_tick > config_.max_staleness_ticks;
        sc.mid.push_back({.priority = waited * (1.0f + kNearWeight * closeness),
                          .raw_id = ToRaw(pair.id),
                          .pair = static_cast<uint32_t>(kept),
                          .fields = pending,
                          .forced = forced});
      }
    }
    if (kept != i) p.st.pairs[kept] = pair;  // compact over the ones that left
    ++kept;
  }
  p.st.pairs.resize(kept);
}

// New entities: by rank, then relevant ones the ranks missed.
void TieredInterest::EnterNew(Pass& p) const {
  const Frame& f = p.f;
  Scratch& sc = p.sc;
  const float enter_sq = p.enter_r * p.enter_r;
  const auto try_enter = [&](uint32_t s, bool near) {
    if (TestBit(sc.known_bits, s) || DistanceSq(f.subjects[s].position, p.at) > enter_sq) return;
    SetBit(sc.known_bits, s);
    p.out->entered.push_back(s);
    p.out->near_count += near ? 1 : 0;
    if (p.events && TestBit(event_bits_, s)) AddEvents(f, s, p.mark, sc, p.out);
    p.st.pairs.push_back({.id = f.subjects[s].id,
                          .slot = s,
                          .sent_tick = f.tick,
                          .tier = static_cast<uint32_t>(near ? Tier::kNear : Tier::kMid)});
  };
  const std::vector<RankKey>& keys = sc.ranker.keys();
  for (size_t k = 0; k < keys.size() && k < p.enter_rank; ++k) {
    const uint32_t s = p.SlotOfKey(keys[k]);
    try_enter(s, TestBit(sc.near_bits, s));
  }
  for (size_t i = 0; i < p.relevant; ++i) {
    const int64_t s = SlotOf(f, p.viewer.relevant[i]);
    if (s >= 0 && TestBit(sc.near_bits, static_cast<size_t>(s))) {
      try_enter(static_cast<uint32_t>(s), true);
    }
  }
}

// The mid tier's budget on a full pass, the output's order, the crowd summary when due.
void TieredInterest::Finish(Pass& p) const {
  const Frame& f = p.f;
  if (p.full) SelectMid(f, p.budget.bytes_per_tick * p.period, p.sc, p.st, p.out);
  std::sort(p.out->moved.begin(), p.out->moved.end(), [&f](uint32_t a, uint32_t c) {
    return ToRaw(f.subjects[a].id) < ToRaw(f.subjects[c].id);
  });
  if (p.events) std::sort(p.out->hits.begin(), p.out->hits.end());
  p.out->known_count = static_cast<uint32_t>(p.st.pairs.size());
  const uint32_t summary = std::max<uint32_t>(1, config_.summary_interval_ticks);
  if ((f.tick + EntityIndex(p.viewer.id)) % summary == 0) {
    Summarize(f, p.at, p.enter_r, p.viewer.id, p.sc, p.out);
  }
}

// Leaves the bits clear for the next view (cheaper than clearing whole bitsets).
void TieredInterest::ClearMarks(Pass& p) const {
  for (const RankKey k : p.sc.ranker.keys()) {
    ClearBit(p.sc.ranked_bits, p.SlotOfKey(k));
    ClearBit(p.sc.near_bits, p.SlotOfKey(k));
  }
  for (size_t i = 0; i < p.relevant; ++i) {
    const int64_t s = SlotOf(p.f, p.viewer.relevant[i]);
    if (s >= 0) ClearBit(p.sc.near_bits, static_cast<size_t>(s));
  }
  for (const Pair& pair : p.st.pairs) ClearBit(p.sc.known_bits, pair.slot);
}

void TieredInterest::SelectMid(const Frame& f, uint32_t budget, Scratch& sc, ViewerState& st,
                               ViewOutput* out) const {
  // Forced first, then by priority, ties by id: deterministic. The budget fits only a few, so
  // sort just the head (what the budget could hold at the cheapest update, plus the forced).
  const auto before = [](const MidCandidate& a, const MidCandidate& c) {
    if (a.forced != c.forced) return a.forced;
    if (a.priority != c.priority) return a.priority > c.priority;
    return a.raw_id < c.raw_id;
  };
  const auto forced = static_cast<size_t>(
      std::count_if(sc.mid.begin(), sc.mid.end(), [](const MidCandidate& c) { return c.forced; }));
  // Sorted in chunks: most of the time the first chunk exhausts the budget.
  const size_t chunk = forced + budget / std::max<uint32_t>(cost_.update_bytes, 1) + 8;
  uint32_t spent = 0;
  for (size_t begin = 0; begin < sc.mid.size();) {
    const size_t end = std::min(sc.mid.size(), begin + chunk);
    const auto first = sc.mid.begin() + static_cast<ptrdiff_t>(begin);
    std::partial_sort(first, sc.mid.begin() + static_cast<ptrdiff_t>(end), sc.mid.end(), before);
    for (size_t i = begin; i < end; ++i) {
      const MidCandidate& c = sc.mid[i];
      Pair& p = st.pairs[c.pair];
      const uint32_t cost =
          UpdateCost(cost_, c.fields, AsDelta(f.subjects[p.slot], c.fields, p.sent_tick));
      if (!c.forced && spent + cost > budget) return;
      spent += cost;
      Send(f, c.fields, p, out);
    }
    begin = end;
  }
}

void TieredInterest::Summarize(const Frame& f, Vec2 at, float radius, EntityId self, Scratch& sc,
                               ViewOutput* out) const {
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
    if (TestBit(sc.known_bits, s) || DistanceSq(p, at) > r_sq) continue;
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
  Budget b{.near_max = config.near_max,
           .mid_max = config.mid_max,
           .bytes_per_tick = config.bytes_per_tick};
  b.bytes_per_tick >>= std::min<uint32_t>(level, 3);
  if (level >= 4) b.mid_max >>= std::min<uint32_t>(level - 3, 2);
  if (level >= 6) {
    b.near_max = std::max(std::min(near_floor, config.near_max), config.near_max >> (level - 5));
  }
  return b;
}

std::unique_ptr<InterestPolicy> MakeTieredInterest(const InterestConfig& config,
                                                   uint32_t near_floor, WireCost cost) {
  return std::make_unique<TieredInterest>(config, near_floor, cost);
}

}  // namespace zs::interest
