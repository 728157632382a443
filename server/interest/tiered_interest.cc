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

// Byte estimates of the v2 encoding, for the mid-tier budget (protocol documented in zone.proto).
constexpr uint32_t kMovedBytes = 4;    // id delta + dx + dy, packed
constexpr uint32_t kUpdateBytes = 12;  // wrapper + id + absolute x, y
constexpr uint32_t kFieldBytes = 3;    // each further field (facing, hp, alive)
constexpr float kNearWeight = 3.0f;    // priority growth: 1 at the view edge, 1 + this at 0 m

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

uint32_t UpdateCost(uint8_t fields, bool as_delta) {
  if (as_delta) return kMovedBytes;
  const auto others =
      static_cast<uint32_t>(std::popcount(static_cast<unsigned>(fields & ~kPositionBit)));
  return kUpdateBytes + kFieldBytes * others;
}

class TieredInterest final : public InterestPolicy {
 public:
  TieredInterest(const InterestConfig& config, uint32_t near_floor)
      : config_(config), near_floor_(near_floor) {}

  void AddViewer(EntityId viewer) override { viewers_[ToRaw(viewer)]; }
  void RemoveViewer(EntityId viewer) override { viewers_.erase(ToRaw(viewer)); }
  void Forget(EntityId viewer) override {
    if (auto it = viewers_.find(ToRaw(viewer)); it != viewers_.end()) it->second = ViewerState{};
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
  static void Send(const Frame& f, uint8_t fields, Pair& p, ViewOutput* out);
  void AddEvents(const Frame& f, uint32_t slot, uint32_t mark, Scratch& sc, ViewOutput* out) const;
  void SelectMid(const Frame& f, uint32_t budget, Scratch& sc, ViewerState& st,
                 ViewOutput* out) const;
  void Summarize(const Frame& f, Vec2 at, float radius, EntityId self, Scratch& sc,
                 ViewOutput* out) const;

  InterestConfig config_;
  uint32_t near_floor_;
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

// One pass per tier over shared scratch, 137 lines: over the 80-line limit (.clang-tidy), kept
// whole until the tiers change again.
// NOLINTNEXTLINE(readability-function-size)
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
  const uint32_t period = std::max<uint32_t>(1, config_.mid_period_ticks);
  const bool full = st.pairs.empty() || (f.tick + EntityIndex(viewer.id)) % period == 0;
  const float enter_r = viewer.view_radius;
  const float leave_r = enter_r + f.hysteresis;
  const Vec2 at = f.subjects[viewer.slot].position;
  const uint32_t keep = full ? enter_rank + config_.tier_margin : b.near_max;
  sc.ranker.Rank(*f.tree, at, viewer.id, keep, leave_r, {b.near_max, enter_rank},
                 full ? &st.full_hint : &st.near_hint);
  const std::vector<RankKey>& keys = sc.ranker.keys();
  const auto slot_of_key = [&f](RankKey k) {
    return static_cast<uint32_t>(f.slot_of[KeyRawId(k) & kMaxEntityIndex]);
  };
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint32_t s = slot_of_key(keys[i]);
    SetBit(sc.ranked_bits, s);
    if (i < b.near_max) SetBit(sc.near_bits, s);
    if (full) sc.distance_sq[s] = KeyDistanceSq(keys[i]);
  }
  const size_t relevant = std::min<size_t>(viewer.relevant.size(), config_.relevant_max);
  for (size_t i = 0; i < relevant; ++i) {
    const int64_t s = SlotOf(f, viewer.relevant[i]);
    if (s >= 0 && viewer.relevant[i] != viewer.id &&
        DistanceSq(f.subjects[static_cast<size_t>(s)].position, at) <= leave_r * leave_r) {
      SetBit(sc.near_bits, static_cast<size_t>(s));
    }
  }

  // One pass over what is known. Near: send what is pending. Mid: on a full pass, leave if no
  // longer ranked, else become a candidate for the budget; otherwise a few bit tests.
  const bool events = !f.events.start.empty();
  const float inv_leave = 1.0f / std::max(1e-3f, leave_r);
  sc.mid.clear();
  size_t kept = 0;
  for (size_t i = 0; i < st.pairs.size(); ++i) {
    Pair& p = st.pairs[i];  // in place (a by-value copy here costs a store-forwarding stall)
    if (TestBit(f.churned, p.slot)) {  // its slot changed hands since last tick: look it up
      const int64_t s64 = SlotOf(f, p.id);
      if (s64 < 0) {
        out->left.push_back(p.id);
        continue;
      }
      p.slot = static_cast<uint32_t>(s64);
    }
    const bool near = TestBit(sc.near_bits, p.slot);
    const bool ranked = TestBit(sc.ranked_bits, p.slot);
    if (full && !ranked && !near) {
      out->left.push_back(p.id);
      continue;
    }
    SetBit(sc.known_bits, p.slot);
    if (events && TestBit(event_bits_, p.slot)) AddEvents(f, p.slot, m, sc, out);
    p.tier = static_cast<uint32_t>(near ? Tier::kNear : Tier::kMid);
    if (near) ++out->near_count;
    if (near || full) {
      const uint8_t pending = Pending(f.subjects[p.slot], p.sent_tick);
      if (pending != 0 && near) {
        Send(f, pending, p, out);
      } else if (pending != 0) {
        const auto waited = static_cast<float>(f.tick - p.sent_tick);
        const float d = std::sqrt(sc.distance_sq[p.slot]);
        const float closeness = std::max(0.0f, 1.0f - d * inv_leave);
        // Sent now whatever the budget if the next full pass would be too late.
        const bool forced = f.tick + period - p.sent_tick > config_.max_staleness_ticks;
        sc.mid.push_back({.priority = waited * (1.0f + kNearWeight * closeness),
                          .raw_id = ToRaw(p.id),
                          .pair = static_cast<uint32_t>(kept),
                          .fields = pending,
                          .forced = forced});
      }
    }
    if (kept != i) st.pairs[kept] = p;  // compact over the ones that left
    ++kept;
  }
  st.pairs.resize(kept);

  // New entities: by rank, then relevant ones the ranks missed.
  const float enter_sq = enter_r * enter_r;
  const auto try_enter = [&](uint32_t s, bool near) {
    if (TestBit(sc.known_bits, s) || DistanceSq(f.subjects[s].position, at) > enter_sq) return;
    SetBit(sc.known_bits, s);
    out->entered.push_back(s);
    out->near_count += near ? 1 : 0;
    if (events && TestBit(event_bits_, s)) AddEvents(f, s, m, sc, out);
    st.pairs.push_back({.id = f.subjects[s].id,
                        .slot = s,
                        .sent_tick = f.tick,
                        .tier = static_cast<uint32_t>(near ? Tier::kNear : Tier::kMid)});
  };
  for (size_t k = 0; k < keys.size() && k < enter_rank; ++k) {
    const uint32_t s = slot_of_key(keys[k]);
    try_enter(s, TestBit(sc.near_bits, s));
  }
  for (size_t i = 0; i < relevant; ++i) {
    const int64_t s = SlotOf(f, viewer.relevant[i]);
    if (s >= 0 && TestBit(sc.near_bits, static_cast<size_t>(s))) {
      try_enter(static_cast<uint32_t>(s), true);
    }
  }

  if (full) SelectMid(f, b.bytes_per_tick * period, sc, st, out);
  std::sort(out->moved.begin(), out->moved.end(), [&f](uint32_t a, uint32_t c) {
    return ToRaw(f.subjects[a].id) < ToRaw(f.subjects[c].id);
  });
  if (events) std::sort(out->hits.begin(), out->hits.end());
  out->known_count = static_cast<uint32_t>(st.pairs.size());

  const uint32_t summary = std::max<uint32_t>(1, config_.summary_interval_ticks);
  if ((f.tick + EntityIndex(viewer.id)) % summary == 0)
    Summarize(f, at, enter_r, viewer.id, sc, out);

  // Leave the bits clear for the next view (cheaper than clearing whole bitsets).
  for (const RankKey k : keys) {
    ClearBit(sc.ranked_bits, slot_of_key(k));
    ClearBit(sc.near_bits, slot_of_key(k));
  }
  for (size_t i = 0; i < relevant; ++i) {
    const int64_t s = SlotOf(f, viewer.relevant[i]);
    if (s >= 0) ClearBit(sc.near_bits, static_cast<size_t>(s));
  }
  for (const Pair& p : st.pairs) ClearBit(sc.known_bits, p.slot);
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
  const size_t chunk = forced + budget / kUpdateBytes + 8;
  uint32_t spent = 0;
  for (size_t begin = 0; begin < sc.mid.size();) {
    const size_t end = std::min(sc.mid.size(), begin + chunk);
    const auto first = sc.mid.begin() + static_cast<ptrdiff_t>(begin);
    std::partial_sort(first, sc.mid.begin() + static_cast<ptrdiff_t>(end), sc.mid.end(), before);
    for (size_t i = begin; i < end; ++i) {
      const MidCandidate& c = sc.mid[i];
      Pair& p = st.pairs[c.pair];
      const uint32_t cost =
          UpdateCost(c.fields, AsDelta(f.subjects[p.slot], c.fields, p.sent_tick));
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
                                                   uint32_t near_floor) {
  return std::make_unique<TieredInterest>(config, near_floor);
}

}  // namespace zs::interest
