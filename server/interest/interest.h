// Interest management: of everything a player may see, what is it sent, and how often?
//
// The AOI circle says who *may* be seen; an InterestPolicy decides who *is* sent, so a crowd
// costs O(N*K) instead of O(N^2) (docs/architecture.md "Interest"). The zone owns one policy per
// zone and calls it in two phases each tick:
//   1. BeginTick(frame), on one thread: the policy sizes its scratch for the tick;
//   2. BuildView(frame, viewer, worker, out) once per player, possibly on several threads at once
//      (distinct viewers, distinct `worker` numbers). It reads only the frame and that viewer's own
//      state, writes only that viewer's state, the worker's scratch and `out`. So the views are
//      the same whatever the number of threads.
// Viewers are added and removed between ticks (AddViewer/RemoveViewer/Forget). The policy knows
// nothing of protobuf or sockets: it produces slot lists that the wire layer encodes.
//
// Layering: interest -> spatial -> core. The zone fills a Frame from its entities; the policy
// never sees a zone type.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/entity_id.h"
#include "core/vec2.h"
#include "interest/wire_cost.h"
#include "spatial/quadtree.h"

namespace zs::interest {

// The change bits the policy interprets: the position moved (delta-encodable), and the facing
// changed (sent beside a delta as a turn). Other bits are passed through as "fields to send".
// zone::ChangeBits must agree (static_asserts in the zone).
inline constexpr uint8_t kPositionBit = 1u << 0;
inline constexpr uint8_t kFacingBit = 1u << 1;
inline constexpr uint32_t kChangeFields = 4;  // change bits 0..3 (zone::ChangeBits)

// Per zone, from the zone YAML's `interest:` block (config_loader validates every key).
struct InterestConfig {
  uint32_t near_max = 48;         // nearest entities in view, sent every tick
  uint32_t mid_max = 200;         // up to this many more, sent by priority within the budget
  uint32_t tier_margin = 16;      // a known entity is dropped only beyond rank near+mid+margin
  float rank_floor = 0.0f;        // metres: nearer than this ranks as this, ties by id (nearest.h)
  float near_band = 4.0f;         // metres: last tick's near tier ranks this much nearer
  uint32_t bytes_per_tick = 600;  // per client: budget for mid-tier entries and updates
  uint32_t max_staleness_ticks = 20;     // no pending change of a known entity waits longer
  uint32_t mid_period_ticks = 4;         // the mid tier is ranked and sent every this many ticks
  uint32_t summary_interval_ticks = 20;  // crowd summary period (per viewer, staggered)
  uint32_t summary_grid = 8;             // crowd summary: cells per side
  uint32_t relevant_max = 16;            // relevance overrides per viewer and tick
};

// Overload level -> effective budgets (see overload.h). Level 0 is the configured policy.
struct Budget {
  uint32_t near_max;
  uint32_t mid_max;
  uint32_t bytes_per_tick;
};
[[nodiscard]] Budget BudgetAt(const InterestConfig& config, uint32_t level, uint32_t near_floor);
inline constexpr uint32_t kMaxOverloadLevel = 8;

// One entity, by slot, as the policy sees it this tick.
struct Subject {
  EntityId id = kInvalidEntity;
  Vec2 position;
  uint32_t last_move_tick = 0;  // the last tick *before* this one in which the position changed
  std::array<uint32_t, kChangeFields> changed_at{};  // by change bit: the last tick it changed
  uint8_t changed = 0;      // change bits of this tick (kPositionBit and opaque others)
  uint8_t has_events = 0;   // took part in a hit event this tick
  uint8_t name_length = 0;  // bytes of its name (players; 0 for none), which its entry carries
};

// Hit events of the tick, indexed by slot: the events slot s took part in (as attacker or
// target) are items[start[s] .. start[s + 1]).
struct EventIndex {
  std::span<const uint32_t> start;
  std::span<const uint32_t> items;
  uint32_t event_count = 0;
};

// What the zone hands the policy each tick (read-only during BuildView).
struct Frame {
  uint32_t tick = 0;
  std::span<const Subject> subjects;  // by slot
  std::span<const int32_t> slot_of;   // by EntityIndex; -1 when not in the zone
  // Bit per slot: its occupant changed since the previous tick's views (entities added, removed
  // or moved to another slot). Slots beyond the span count as changed.
  std::span<const uint64_t> churned;
  const spatial::Quadtree* tree = nullptr;
  EventIndex events;
  float hysteresis = 5;  // leave only beyond the viewer's view radius + hysteresis
  uint32_t overload_level = 0;
};

struct Viewer {
  EntityId id = kInvalidEntity;
  uint32_t slot = 0;
  float view_radius = 50;              // enter within this (resolved by the zone: never 0)
  std::span<const EntityId> relevant;  // always near while within view (attackers, targets, ...)
  bool departing = false;              // leaving the zone: everything known is sent as left
};

// A known entity's fields going out this tick (position absolute when kPositionBit is set).
struct UpdateRef {
  uint32_t slot = 0;
  uint8_t fields = 0;
};

struct CrowdSummary {
  Vec2 center;
  float cell_size = 0;
  uint32_t grid = 0;
  std::vector<uint32_t> counts;  // grid * grid, row by row from min y
  uint32_t total = 0;
};

// One viewer's news for the tick. Reused across ticks (cleared, capacity kept).
struct ViewOutput {
  EntityId player = kInvalidEntity;
  uint32_t self = 0;               // slot of the viewer itself
  std::vector<uint32_t> entered;   // slots, full state
  std::vector<UpdateRef> updated;  // slots with the fields to send
  std::vector<uint32_t> moved;     // slots whose only news is a move, as a delta; ascending id
  std::vector<uint32_t> turned;    // slots whose only news is a move (a delta) and the facing;
                                   // ascending id
  std::vector<EntityId> left;      // ids
  std::vector<uint32_t> hits;      // event indices, ascending
  uint32_t near_count = 0;         // how many known entities were in the near tier
  uint32_t known_count = 0;
  bool zone_changed = false;
  bool has_crowd = false;
  CrowdSummary crowd;

  void Clear() {
    entered.clear();
    updated.clear();
    moved.clear();
    turned.clear();
    left.clear();
    hits.clear();
    near_count = known_count = 0;
    zone_changed = has_crowd = false;
  }
};

// Tier of a known entity after BuildView, for tests and the viewer tool.
enum class Tier : uint8_t { kNear, kMid };

struct KnownEntity {
  EntityId id;
  Tier tier;
};

class InterestPolicy {
 public:
  virtual ~InterestPolicy() = default;

  virtual void AddViewer(EntityId viewer) = 0;
  virtual void RemoveViewer(EntityId viewer) = 0;
  // The viewer's client lost its state (resync): everything in view is entered again.
  virtual void Forget(EntityId viewer) = 0;
  // The viewer's client knows `known` (ids and their slots, as of the frame of the coming
  // BuildView, which must see each of those slots as churned): its next view goes on from
  // there, every field of each sent again as an update (never an enter), and a leave for those
  // no longer in view. Its previous state here is replaced. For a player migrated from another
  // cell (docs/seamless.md).
  virtual void Adopt(EntityId viewer, std::span<const std::pair<EntityId, uint32_t>> known) = 0;

  // REQUIRES: one thread; before any BuildView of the tick. `workers` bounds the worker numbers.
  virtual void BeginTick(const Frame& frame, size_t workers) = 0;
  // REQUIRES: viewer was added; distinct viewers and workers when called concurrently.
  virtual void BuildView(const Frame& frame, const Viewer& viewer, size_t worker,
                         ViewOutput* out) = 0;

  // What the viewer knows after the last BuildView (ascending id), for tests and tools.
  virtual void Known(EntityId viewer, std::vector<KnownEntity>* out) const = 0;
};

// The default policy (tiered_interest.cc): near tier, mid tier by priority within a byte budget
// (counted in `cost`), relevance overrides, crowd summary.
std::unique_ptr<InterestPolicy> MakeTieredInterest(const InterestConfig& config,
                                                   uint32_t near_floor, WireCost cost);

}  // namespace zs::interest
