// The default interest policy: tiers by distance rank, priority within a byte budget.
//
// Ranks are by centre distance from the viewer, the near tier's (as of the last view) less
// near_band metres, any under rank_floor metres counted as rank_floor (RankDistanceSq), ties by
// ascending id. Every tick, per viewer:
//   - the near tier is exactly the nearest near_max entities by rank within view radius +
//     hysteresis (those within the view radius enter if unknown), plus the relevant ones
//     (attacker, targets, last hit, monsters hunting the viewer); their changes are sent every
//     tick. With a near band, one that is near stays so until another is near_band nearer, so a
//     crowd that shuffles does not bring new ones in (each a whole entry) every tick;
//   - hit events by or on the viewer or a near-tier entity are sent (what happens among the
//     mid tier reaches the client as those entities' hp and alive fields, at the mid tier's
//     rate), and anything known that left the zone is sent as `left`.
// Every mid_period ticks (staggered by viewer id; at once for a new or resynced viewer), a full
// pass also:
//   - ranks the K = near_max + mid_max + tier_margin nearest: a known entity stays known while
//     among them (or relevant), otherwise it is sent as `left`; an unknown one enters when its
//     rank is below near_max + mid_max and its centre is within the view radius. Both thresholds
//     have a band (tier_margin ranks, the view hysteresis), so nothing flickers at an edge;
//   - pays the mid-rank entries from mid_period * bytes_per_tick, each at WireCost::EnterBytes of
//     its name's length, nearest by rank first until one does not fit, at least one a pass (the
//     rest wait for a later pass; a viewer that knew nothing pays nothing);
//   - sends the mid tier's pending changes by priority within what is left of that budget;
//     priority grows with the time since the pair was last sent, faster when nearer (by the ranked
//     distance: under a rank floor, all alike); a pair that
//     could otherwise wait max_staleness ticks is sent whatever the budget.
// Ranking uses one circle query whose radius starts from the last pass's K-th distance (plus
// slack, grown until it holds K or reaches the view edge), plus the near pairs beyond it when
// banded (from their positions), then nth_element partitions: the tiers
// need rank classes, not an order. A pair's pending fields are derived, not accumulated: the
// fields whose last change (Subject::changed_at) is after the pair's last send.
//   - A move whose client copy is exactly the entity's previous position goes in `moved` (a
//     delta), or in `turned` (a delta and the facing) when the facing changed too; any other
//     change goes in `updated` with absolute values;
//   - about once a second (staggered by viewer id), a crowd summary counts what is in view but
//     not known, on a grid around the viewer.
//
// Work follows the tiers, not the whole known set. A viewer keeps its near and its mid pairs
// apart; a tick that does not rank the mid tier walks the near pairs only, and then the mid
// pairs once, lightly, if something asks for them: an entity near and not among the near pairs
// (a mid one to promote, or a new one), or an entity gone from the zone (its `left` is due now).
// That pass tests bits by entity index (a mid pair's slot may be stale). Per-pair state is 16
// bytes; per-worker scratch is indexed by slot and stamped with a per-worker mark, so nothing is
// cleared per viewer. No allocation once warm.
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
  EntityId id = kInvalidEntity;
  float full_hint = 0;     // last full pass's K-th nearest distance (0: unknown)
  float near_hint = 0;     // last tick's near_max-th nearest distance
  std::vector<Pair> near;  // known, near tier as of the last view
  std::vector<Pair> mid;   // known, mid tier: slots may be stale (checked by id before use)

  [[nodiscard]] bool knows_nothing() const { return near.empty() && mid.empty(); }
};

// Fields of `s` changed after the client's copy (as of `sent_tick`).
uint8_t Pending(const Subject& s, uint32_t sent_tick) {
  uint8_t bits = 0;
  for (uint32_t b = 0; b < kChangeFields; ++b) {
    bits |= static_cast<uint8_t>((s.changed_at[b] > sent_tick ? 1u : 0u) << b);
  }
  return bits;
}

// The budget's order as one integer, ascending: forced first, then by priority (highest first),
// ties by ascending id. A priority is finite and >= 0, so its bits order as it does.
uint64_t BudgetOrder(bool forced, float priority, uint32_t raw_id) {
  const uint32_t rank = 0x7FFFFFFFu - (std::bit_cast<uint32_t>(priority) & 0x7FFFFFFFu);
  return (uint64_t{forced ? 0u : 1u} << 63) | (uint64_t{rank} << 32) | raw_id;
}

struct MidCandidate {
  uint64_t order;  // BudgetOrder
  uint32_t pair;   // index into ViewerState::mid
  uint32_t cost;   // bytes, as the budget counts them
  uint8_t fields;  // pending
  bool forced;
};

struct Scratch {
  NearestRanker ranker;
  std::vector<Incumbent> incumbents;  // the near pairs, ranked near_band nearer
  spatial::QueryResults query;
  // By slot, bits one view sets and clears again before the next (a few KB: they stay in L1,
  // so a known entity costs a few bit tests, not a cache miss).
  std::vector<uint64_t> ranked_bits;  // among this view's ranked entities
  std::vector<uint64_t> near_bits;    // near tier: rank < near_max, or relevant
  std::vector<uint64_t> known_bits;   // known after this view (the walked pairs)
  std::vector<uint32_t> known_slots;  // where known_bits is set
  // By slot: squared distance from the viewer as ranked, raised to the rank floor (valid where
  // ranked_bits is set, on full passes).
  std::vector<float> distance_sq;
  std::vector<uint32_t> event_mark;  // by event
  uint32_t mark = 0;
  std::vector<MidCandidate> mid;
  std::vector<RankKey> entries;  // mid-rank entities waiting to enter, on a full pass
  std::vector<Pair> demoted;     // near pairs that are mid after this view
  // By entity index: the near entities not among the near pairs (ScanMid), and their slots.
  std::vector<uint64_t> wanted_bits;
  std::vector<uint32_t> wanted;
};

size_t Words(size_t bits) { return (bits + 63) / 64; }
bool TestBit(std::span<const uint64_t> bits, size_t i) {
  return i / 64 >= bits.size() || ((bits[i / 64] >> (i % 64)) & 1u) != 0;  // beyond: set
}
void SetBit(std::vector<uint64_t>& bits, size_t i) { bits[i / 64] |= uint64_t{1} << (i % 64); }
void ClearBit(std::vector<uint64_t>& bits, size_t i) { bits[i / 64] &= ~(uint64_t{1} << (i % 64)); }

// How a pair's pending fields go out.
enum class Form : uint8_t { kUpdate, kMoved, kTurned };

uint32_t UpdateCost(const WireCost& cost, uint8_t fields, Form form) {
  if (form == Form::kMoved) return cost.moved_bytes;
  if (form == Form::kTurned) return cost.turned_bytes;
  const auto others =
      static_cast<uint32_t>(std::popcount(static_cast<unsigned>(fields & ~kPositionBit)));
  return cost.update_bytes + cost.field_bytes * others;
}

// Slot of a live id, or -1 (gone, or its slot reused by another id).
int64_t SlotOf(const Frame& f, EntityId id) {
  const uint32_t index = EntityIndex(id);
  if (index >= f.slot_of.size() || f.slot_of[index] < 0) return -1;
  const auto s = static_cast<size_t>(f.slot_of[index]);
  return f.subjects[s].id == id ? static_cast<int64_t>(s) : -1;
}

// Whether the pair's slot still holds its entity (a mid pair's may be from any earlier tick).
bool SlotHolds(const Frame& f, const Pair& pair) {
  return pair.slot < f.subjects.size() && f.subjects[pair.slot].id == pair.id;
}

// Looks the pair's entity up again: its slot now, or false when it is gone from the zone.
bool Relocate(const Frame& f, Pair& pair) {
  const int64_t s = SlotOf(f, pair.id);
  if (s < 0) return false;
  pair.slot = static_cast<uint32_t>(s);
  return true;
}

class TieredInterest final : public InterestPolicy {
 public:
  TieredInterest(const InterestConfig& config, uint32_t near_floor, WireCost cost)
      : config_(config), near_floor_(near_floor), cost_(cost) {}

  void AddViewer(EntityId viewer) override {
    const auto [it, added] = viewers_.try_emplace(ToRaw(viewer));
    if (!added) return;
    it->second.id = viewer;
    const uint32_t index = EntityIndex(viewer);
    if (index >= by_entity_.size()) by_entity_.resize(static_cast<size_t>(index) + 1, nullptr);
    by_entity_[index] = &it->second;
  }
  void RemoveViewer(EntityId viewer) override {
    const auto it = viewers_.find(ToRaw(viewer));
    if (it == viewers_.end()) return;
    if (by_entity_[EntityIndex(viewer)] == &it->second) by_entity_[EntityIndex(viewer)] = nullptr;
    viewers_.erase(it);
  }
  void Forget(EntityId viewer) override {
    if (auto it = viewers_.find(ToRaw(viewer)); it != viewers_.end()) Reset(it->second);
  }
  // Everything adopted is near at first (so, for its first view, banded as an incumbent).
  void Adopt(EntityId viewer, std::span<const std::pair<EntityId, uint32_t>> known) override {
    AddViewer(viewer);
    ViewerState& st = viewers_.at(ToRaw(viewer));
    Reset(st);
    for (const auto& [id, slot] : known) {
      // sent_tick 0: every field the frame has seen change is pending, so the client's copy is
      // brought up to date field by field; the slot is looked up again (churned) before use.
      st.near.push_back(
          {.id = id, .slot = slot, .sent_tick = 0, .tier = static_cast<uint32_t>(Tier::kNear)});
    }
  }

  void BeginTick(const Frame& frame, size_t workers) override;
  void BuildView(const Frame& frame, const Viewer& viewer, size_t worker, ViewOutput* out) override;

  void Known(EntityId viewer, std::vector<KnownEntity>* out) const override {
    out->clear();
    const auto it = viewers_.find(ToRaw(viewer));
    if (it == viewers_.end()) return;
    for (const auto* pairs : {&it->second.near, &it->second.mid}) {
      for (const Pair& p : *pairs) out->push_back({p.id, static_cast<Tier>(p.tier)});
    }
    std::sort(out->begin(), out->end(),
              [](const KnownEntity& a, const KnownEntity& b) { return ToRaw(a.id) < ToRaw(b.id); });
  }

 private:
  // BuildView's steps, in order, over one Pass.
  struct Pass;
  void Rank(Pass& p) const;
  void WalkNear(Pass& p) const;
  void WalkMid(Pass& p) const;
  void ScanMid(Pass& p) const;
  void EnterNew(Pass& p) const;
  template <typename Enter>
  void EnterWithinBudget(Pass& p, Enter enter) const;
  void Finish(Pass& p) const;
  void ClearMarks(Pass& p) const;
  void MarkMid(Pass& p) const;
  static void Send(const Frame& f, uint8_t fields, Pair& p, ViewOutput* out);
  static void AddEvents(const Frame& f, uint32_t slot, uint32_t mark, Scratch& sc, ViewOutput* out);
  void SelectMid(const Frame& f, uint32_t budget, Scratch& sc, ViewerState& st,
                 ViewOutput* out) const;
  void Summarize(const Frame& f, Vec2 at, float radius, EntityId self, Scratch& sc,
                 ViewOutput* out) const;
  // REQUIRES: the viewer was added.
  ViewerState& StateOf(EntityId viewer) {
    const uint32_t index = EntityIndex(viewer);
    ViewerState* st = index < by_entity_.size() ? by_entity_[index] : nullptr;
    return st != nullptr && st->id == viewer ? *st : viewers_.at(ToRaw(viewer));
  }
  static void Reset(ViewerState& st);
  void MarkGone(const Frame& f);

  InterestConfig config_;
  uint32_t near_floor_;
  WireCost cost_;
  std::unordered_map<uint32_t, ViewerState> viewers_;  // by raw id; no insert during BuildView
  std::vector<ViewerState*> by_entity_;                // by EntityIndex of the viewer
  std::vector<EntityId> last_ids_;                     // by slot, as of the last BeginTick
  std::vector<Scratch> scratch_;                       // by worker
  std::vector<uint64_t> event_bits_;                   // by slot: took part in a hit event
  // By EntityIndex (a mid pair's slot may be stale): was in the last tick's frame and is gone
  // from this one. Any such entity, anywhere in the zone, makes every view pass over its mid
  // pairs that tick (the policy does not know who knows it).
  std::vector<uint64_t> gone_bits_;
  bool any_gone_ = false;
};

// Knows nothing, as a new viewer.
void TieredInterest::Reset(ViewerState& st) {
  st.full_hint = st.near_hint = 0;
  st.near.clear();
  st.mid.clear();
}

void TieredInterest::BeginTick(const Frame& frame, size_t workers) {
  scratch_.resize(std::max<size_t>(1, workers));
  const size_t n = frame.subjects.size();
  for (Scratch& s : scratch_) {
    if (s.mark > 0xFFFFFF00u) s.mark = 0;  // event marks wrap after ~4e9 views: start over
    s.distance_sq.resize(n);
    s.ranked_bits.resize(Words(n), 0);
    s.near_bits.resize(Words(n), 0);
    s.known_bits.resize(Words(n), 0);
    s.wanted_bits.resize(Words(frame.slot_of.size()), 0);
    s.event_mark.assign(frame.events.event_count, 0);
  }
  event_bits_.assign(Words(n), 0);
  for (size_t s = 0; s < n; ++s) {
    if (frame.subjects[s].has_events == 0) continue;
    SetBit(event_bits_, s);
  }
  MarkGone(frame);
  last_ids_.resize(n);
  for (size_t s = 0; s < n; ++s) last_ids_[s] = frame.subjects[s].id;
}

// The entities of the last tick's frame that are gone from this one: every slot whose occupant
// changed, or that is no more, is looked at.
void TieredInterest::MarkGone(const Frame& f) {
  gone_bits_.assign(Words(f.slot_of.size()), 0);
  any_gone_ = false;
  for (size_t s = 0; s < last_ids_.size(); ++s) {
    const EntityId id = last_ids_[s];
    if (s < f.subjects.size() && !TestBit(f.churned, s)) continue;  // the same occupant
    if (id == kInvalidEntity || SlotOf(f, id) >= 0) continue;       // moved, not gone
    if (EntityIndex(id) / 64 >= gone_bits_.size()) gone_bits_.resize(EntityIndex(id) / 64 + 1, 0);
    SetBit(gone_bits_, EntityIndex(id));
    any_gone_ = true;
  }
}

// A move from the position the client has (its copy is as of sent_tick and the entity did not
// move between then and this tick) is a delta from the previous position: alone (`moved`) or
// with the new facing (`turned`). Anything else is an update with absolute values.
Form FormOf(const Subject& s, uint8_t fields, uint32_t sent_tick) {
  if ((fields & kPositionBit) == 0 || s.last_move_tick > sent_tick) return Form::kUpdate;
  if (fields == kPositionBit) return Form::kMoved;
  if (fields == (kPositionBit | kFacingBit)) return Form::kTurned;
  return Form::kUpdate;
}

void TieredInterest::Send(const Frame& f, uint8_t fields, Pair& p, ViewOutput* out) {
  switch (FormOf(f.subjects[p.slot], fields, p.sent_tick)) {
    case Form::kMoved:
      out->moved.push_back(p.slot);
      break;
    case Form::kTurned:
      out->turned.push_back(p.slot);
      break;
    case Form::kUpdate:
      out->updated.push_back({.slot = p.slot, .fields = fields});
      break;
  }
  p.sent_tick = f.tick;
}

void TieredInterest::AddEvents(const Frame& f, uint32_t slot, uint32_t mark, Scratch& sc,
                               ViewOutput* out) {
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
  uint32_t enter_rank;                   // near_max + mid_max
  uint32_t period;                       // ticks between full passes
  bool full;                             // this tick re-ranks the mid tier
  bool first;                            // the viewer knew nothing: everything enters at once
  uint32_t spent = 0;                    // of the mid tier's budget, on entries
  bool events;                           // hit events this tick
  uint32_t mark;                         // this view's event mark
  std::span<const uint64_t> event_bits;  // by slot: took part in a hit event
  float enter_r;
  float leave_r;
  float inv_leave;
  Vec2 at;              // the viewer's position
  size_t relevant = 0;  // how many of viewer.relevant count
  // The mid tier's bytes for this full pass: its entries, then its updates.
  [[nodiscard]] uint32_t MidBudget() const { return budget.bytes_per_tick * period; }
  [[nodiscard]] uint32_t SlotOfKey(RankKey k) const {
    return static_cast<uint32_t>(f.slot_of[KeyRawId(k) & kMaxEntityIndex]);
  }
  void Leave(EntityId id) const { out->left.push_back(id); }
  void MarkKnown(uint32_t slot) const {
    SetBit(sc.known_bits, slot);
    sc.known_slots.push_back(slot);
  }
  // The hit events a near entity took part in (the mid tier's reach a client only as their hp
  // and alive fields).
  void NearEvents(uint32_t slot) const {
    if (events && TestBit(event_bits, slot)) AddEvents(f, slot, mark, sc, out);
  }
  // A pair that is near now: counted, its hit events, and what is pending sent.
  void KeepNear(Pair& pair) const {
    ++out->near_count;
    NearEvents(pair.slot);
    pair.tier = static_cast<uint32_t>(Tier::kNear);
    const uint8_t pending = Pending(f.subjects[pair.slot], pair.sent_tick);
    if (pending != 0) Send(f, pending, pair, out);
  }
  // A pair that is mid now; on a full pass what is pending is a candidate for the budget.
  void KeepMid(Pair& pair, uint32_t index, uint32_t max_staleness, const WireCost& cost) const {
    pair.tier = static_cast<uint32_t>(Tier::kMid);
    if (!full) return;
    const Subject& s = f.subjects[pair.slot];
    const uint8_t pending = Pending(s, pair.sent_tick);
    if (pending == 0) return;
    const auto waited = static_cast<float>(f.tick - pair.sent_tick);
    const float d = std::sqrt(sc.distance_sq[pair.slot]);
    const float closeness = std::max(0.0f, 1.0f - d * inv_leave);
    // Sent now whatever the budget if the next full pass would be too late.
    const bool forced = f.tick + period - pair.sent_tick > max_staleness;
    sc.mid.push_back(
        {.order = BudgetOrder(forced, waited * (1.0f + kNearWeight * closeness), ToRaw(pair.id)),
         .pair = index,
         .cost = UpdateCost(cost, pending, FormOf(s, pending, pair.sent_tick)),
         .fields = pending,
         .forced = forced});
  }
};

void TieredInterest::BuildView(const Frame& f, const Viewer& viewer, size_t worker,
                               ViewOutput* out) {
  Scratch& sc = scratch_[worker];
  ViewerState& st = StateOf(viewer.id);
  out->Clear();
  out->player = viewer.id;
  out->self = viewer.slot;
  const uint32_t mark = ++sc.mark;
  if (!f.events.start.empty()) AddEvents(f, viewer.slot, mark, sc, out);
  if (viewer.departing) {  // through a portal: forget everything here
    for (const auto* pairs : {&st.near, &st.mid}) {
      for (const Pair& p : *pairs) {
        out->left.push_back(p.id);
      }
    }
    st.near.clear();
    st.mid.clear();
    out->zone_changed = true;
    return;
  }
  const Budget b = BudgetAt(config_, f.overload_level, near_floor_);
  const uint32_t period = std::max<uint32_t>(1, config_.mid_period_ticks);
  const float leave_r = viewer.view_radius + f.hysteresis;
  Pass pass{.f = f,
            .viewer = viewer,
            .sc = sc,
            .st = st,
            .out = out,
            .budget = b,
            .enter_rank = b.near_max + b.mid_max,
            .period = period,
            .full = st.knows_nothing() || (f.tick + EntityIndex(viewer.id)) % period == 0,
            .first = st.knows_nothing(),
            .events = !f.events.start.empty(),
            .mark = mark,
            .event_bits = event_bits_,
            .enter_r = viewer.view_radius,
            .leave_r = leave_r,
            .inv_leave = 1.0f / std::max(1e-3f, leave_r),
            .at = f.subjects[viewer.slot].position};
  Rank(pass);
  sc.mid.clear();
  sc.demoted.clear();
  WalkNear(pass);
  if (pass.full) {
    WalkMid(pass);
  } else {
    ScanMid(pass);
  }
  for (Pair& d : sc.demoted) {  // after the mid pairs: they were walked as near ones
    pass.KeepMid(d, static_cast<uint32_t>(st.mid.size()), config_.max_staleness_ticks, cost_);
    st.mid.push_back(d);
  }
  EnterNew(pass);
  Finish(pass);
  ClearMarks(pass);
}

// Ranks what is in view (the nearest `keep`), marking ranked and near slots; relevant entities
// within the leave radius are near whatever their rank.
void TieredInterest::Rank(Pass& p) const {
  const uint32_t keep = p.full ? p.enter_rank + config_.tier_margin : p.budget.near_max;
  p.sc.incumbents.clear();
  if (config_.near_band > 0) {
    for (Pair& pair : p.st.near) {
      if (TestBit(p.f.churned, pair.slot) && !Relocate(p.f, pair)) continue;  // gone: WalkNear
      p.sc.incumbents.push_back({.id = pair.id, .position = p.f.subjects[pair.slot].position});
    }
  }
  p.sc.ranker.Rank(
      *p.f.tree, p.at, p.viewer.id, keep, p.leave_r,
      {.floor = config_.rank_floor, .band = config_.near_band, .incumbents = p.sc.incumbents},
      {p.budget.near_max, p.enter_rank}, p.full ? &p.st.full_hint : &p.st.near_hint);
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

// The near pairs, every tick. Gone: leave. Near: send what is pending. Otherwise mid from now on
// (demoted); on a full pass, one no longer ranked leaves.
void TieredInterest::WalkNear(Pass& p) const {
  const Frame& f = p.f;
  Scratch& sc = p.sc;
  size_t kept = 0;
  for (size_t i = 0; i < p.st.near.size(); ++i) {
    Pair& pair = p.st.near[i];  // in place (a by-value copy here costs a store-forwarding stall)
    // Its slot changed hands since last tick: look it up.
    if (TestBit(f.churned, pair.slot) && !Relocate(f, pair)) {
      p.Leave(pair.id);
      continue;
    }
    const bool near = TestBit(sc.near_bits, pair.slot);
    if (p.full && !near && !TestBit(sc.ranked_bits, pair.slot)) {
      p.Leave(pair.id);
      continue;
    }
    p.MarkKnown(pair.slot);
    if (!near) {
      sc.demoted.push_back(pair);
      continue;
    }
    p.KeepNear(pair);
    if (kept != i) p.st.near[kept] = pair;  // compact over the ones that left
    ++kept;
  }
  p.st.near.resize(kept);
}

// The mid pairs, on a full pass: as the near ones, and those that are near now join them; what
// is pending of the rest is a candidate for the budget. A mid pair's slot may be from any earlier
// tick, so it is checked by id.
void TieredInterest::WalkMid(Pass& p) const {
  const Frame& f = p.f;
  Scratch& sc = p.sc;
  size_t kept = 0;
  for (size_t i = 0; i < p.st.mid.size(); ++i) {
    Pair& pair = p.st.mid[i];
    if (!SlotHolds(f, pair) && !Relocate(f, pair)) {
      p.Leave(pair.id);
      continue;
    }
    const bool near = TestBit(sc.near_bits, pair.slot);
    if (!near && !TestBit(sc.ranked_bits, pair.slot)) {
      p.Leave(pair.id);
      continue;
    }
    p.MarkKnown(pair.slot);
    if (near) {
      p.KeepNear(pair);
      p.st.near.push_back(pair);
      continue;
    }
    p.KeepMid(pair, static_cast<uint32_t>(kept), config_.max_staleness_ticks, cost_);
    if (kept != i) p.st.mid[kept] = pair;
    ++kept;
  }
  p.st.mid.resize(kept);
}

// Between full passes, one light pass over the mid pairs, by entity index (a mid pair's slot may
// be stale): one gone from the zone leaves, one that is near now (ranked near, or relevant)
// joins the near pairs. Skipped when nothing is near and unknown and nothing is gone. What is
// near and not found here is not known (EnterNew).
void TieredInterest::ScanMid(Pass& p) const {
  const Frame& f = p.f;
  Scratch& sc = p.sc;
  sc.wanted.clear();
  const auto want = [&](uint32_t s) {
    if (TestBit(sc.known_bits, s)) return;
    SetBit(sc.wanted_bits, EntityIndex(f.subjects[s].id));
    sc.wanted.push_back(s);
  };
  for (const RankKey k : sc.ranker.keys()) want(p.SlotOfKey(k));
  for (size_t i = 0; i < p.relevant; ++i) {
    const int64_t s = SlotOf(f, p.viewer.relevant[i]);
    if (s >= 0 && TestBit(sc.near_bits, static_cast<size_t>(s))) want(static_cast<uint32_t>(s));
  }
  if (sc.wanted.empty() && !any_gone_) return;
  const auto has = [](std::span<const uint64_t> bits, uint32_t i) {
    return i / 64 < bits.size() && ((bits[i / 64] >> (i % 64)) & 1u) != 0;
  };
  std::vector<Pair>& mid = p.st.mid;
  size_t kept = 0;
  for (size_t i = 0; i < mid.size(); ++i) {
    Pair& pair = mid[i];
    const uint32_t index = EntityIndex(pair.id);
    if (any_gone_ && has(gone_bits_, index) && SlotOf(f, pair.id) < 0) {
      p.Leave(pair.id);
      continue;
    }
    const bool wanted = !sc.wanted.empty() && has(sc.wanted_bits, index);
    if (wanted) {
      const int64_t s64 = SlotOf(f, pair.id);
      const auto s = static_cast<uint32_t>(s64);
      if (s64 >= 0 && TestBit(sc.near_bits, s) && !TestBit(sc.known_bits, s)) {
        pair.slot = s;
        p.MarkKnown(s);
        p.KeepNear(pair);
        p.st.near.push_back(pair);
        continue;
      }
    }
    if (kept != i) mid[kept] = pair;
    ++kept;
  }
  mid.resize(kept);
  for (const uint32_t s : sc.wanted) ClearBit(sc.wanted_bits, EntityIndex(f.subjects[s].id));
}

// New entities: by rank, then relevant ones the ranks missed.
void TieredInterest::EnterNew(Pass& p) const {
  const Frame& f = p.f;
  Scratch& sc = p.sc;
  const float enter_sq = p.enter_r * p.enter_r;
  const auto may_enter = [&](uint32_t s) {
    return !TestBit(sc.known_bits, s) && DistanceSq(f.subjects[s].position, p.at) <= enter_sq;
  };
  const auto enter = [&](uint32_t s, bool near) {
    p.MarkKnown(s);
    p.out->entered.push_back(s);
    p.out->near_count += near ? 1 : 0;
    if (near) p.NearEvents(s);
    const Pair pair{.id = f.subjects[s].id,
                    .slot = s,
                    .sent_tick = f.tick,
                    .tier = static_cast<uint32_t>(near ? Tier::kNear : Tier::kMid)};
    (near ? p.st.near : p.st.mid).push_back(pair);
  };
  // A mid-rank entity's entry is paid from the mid tier's byte budget (unless this is the
  // viewer's first frame, or no cost is stated): they wait in rank order.
  const bool budgeted = !p.first && cost_.stated() && cost_.enter_bytes > 0;
  sc.entries.clear();
  const std::vector<RankKey>& keys = sc.ranker.keys();
  for (size_t k = 0; k < keys.size() && k < p.enter_rank; ++k) {
    const uint32_t s = p.SlotOfKey(keys[k]);
    if (!may_enter(s)) continue;
    const bool near = TestBit(sc.near_bits, s);
    if (near || !budgeted) {
      enter(s, near);
    } else {
      sc.entries.push_back(keys[k]);
    }
  }
  EnterWithinBudget(p, enter);
  for (size_t i = 0; i < p.relevant; ++i) {
    const int64_t s = SlotOf(f, p.viewer.relevant[i]);
    if (s >= 0 && TestBit(sc.near_bits, static_cast<size_t>(s)) &&
        may_enter(static_cast<uint32_t>(s))) {
      enter(static_cast<uint32_t>(s), true);
    }
  }
}

// The mid-rank entities waiting to enter: nearest by rank first, as long as the mid tier's budget
// pays for each one's entry, and at least one (a budget smaller than one entry, or shrunk by
// overload, still lets the tier fill); the rest try again on the next full pass. Only as many as
// the budget could pay for at the cheapest entry are put in order.
template <typename Enter>
void TieredInterest::EnterWithinBudget(Pass& p, Enter enter) const {
  std::vector<RankKey>& entries = p.sc.entries;
  if (entries.empty()) return;
  const uint32_t budget = p.MidBudget();
  const size_t most = std::min(entries.size(), std::max<size_t>(1, budget / cost_.enter_bytes));
  std::partial_sort(entries.begin(), entries.begin() + static_cast<ptrdiff_t>(most), entries.end());
  for (size_t i = 0; i < most; ++i) {
    const uint32_t s = p.SlotOfKey(entries[i]);
    const uint32_t bytes = cost_.EnterBytes(p.f.subjects[s].name_length);
    if (i > 0 && p.spent + bytes > budget) return;
    p.spent += bytes;
    enter(s, false);
  }
}

// Between full passes the mid pairs are not walked; the crowd summary needs all that is known.
void TieredInterest::MarkMid(Pass& p) const {
  for (Pair& pair : p.st.mid) {
    if (!SlotHolds(p.f, pair) && !Relocate(p.f, pair)) continue;
    if (!TestBit(p.sc.known_bits, pair.slot)) p.MarkKnown(pair.slot);
  }
}

// The mid tier's budget on a full pass, the output's order, the crowd summary when due.
void TieredInterest::Finish(Pass& p) const {
  const Frame& f = p.f;
  if (p.full) SelectMid(f, p.MidBudget() - std::min(p.MidBudget(), p.spent), p.sc, p.st, p.out);
  const auto by_id = [&f](uint32_t a, uint32_t c) {
    return ToRaw(f.subjects[a].id) < ToRaw(f.subjects[c].id);
  };
  std::sort(p.out->moved.begin(), p.out->moved.end(), by_id);
  std::sort(p.out->turned.begin(), p.out->turned.end(), by_id);
  if (p.events) std::sort(p.out->hits.begin(), p.out->hits.end());
  p.out->known_count = static_cast<uint32_t>(p.st.near.size() + p.st.mid.size());
  const uint32_t summary = std::max<uint32_t>(1, config_.summary_interval_ticks);
  if ((f.tick + EntityIndex(p.viewer.id)) % summary == 0) {
    if (!p.full) MarkMid(p);
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
  for (const uint32_t s : p.sc.known_slots) ClearBit(p.sc.known_bits, s);
  p.sc.known_slots.clear();
}

void TieredInterest::SelectMid(const Frame& f, uint32_t budget, Scratch& sc, ViewerState& st,
                               ViewOutput* out) const {
  // Everything pending fits (a quiet mid tier, or no stated cost): all of it, in no order.
  uint64_t total = 0;
  for (const MidCandidate& c : sc.mid) total += c.cost;
  if (total <= budget) {
    for (const MidCandidate& c : sc.mid) Send(f, c.fields, st.mid[c.pair], out);
    return;
  }
  // In BudgetOrder: deterministic. The budget fits only some, so sort just the head (what the
  // budget could hold at the cheapest update, plus the forced), chunk by chunk.
  const auto before = [](const MidCandidate& a, const MidCandidate& c) {
    return a.order < c.order;
  };
  const auto forced = static_cast<size_t>(
      std::count_if(sc.mid.begin(), sc.mid.end(), [](const MidCandidate& c) { return c.forced; }));
  // Sorted in chunks: most of the time the first chunk exhausts the budget.
  const size_t chunk = forced + budget / std::max<uint32_t>(cost_.update_bytes, 1) + 8;
  uint32_t spent = 0;
  for (size_t begin = 0; begin < sc.mid.size();) {
    const size_t end = std::min(sc.mid.size(), begin + chunk);
    const auto first = sc.mid.begin() + static_cast<ptrdiff_t>(begin);
    const auto last = sc.mid.begin() + static_cast<ptrdiff_t>(end);
    if (last != sc.mid.end()) std::nth_element(first, last, sc.mid.end(), before);
    std::sort(first, last, before);
    for (size_t i = begin; i < end; ++i) {
      const MidCandidate& c = sc.mid[i];
      if (!c.forced && spent + c.cost > budget) return;
      spent += c.cost;
      Send(f, c.fields, st.mid[c.pair], out);
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
