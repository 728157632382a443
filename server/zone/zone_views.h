// ZoneViews: each player's view of a zone's tick. Owns the zone's interest policy and
// everything the policy reads, reused from tick to tick (no allocation once warm).
//
// After the simulation steps, Prepare (one thread) fills the per-slot tables of the output
// (full states and change bits, encoded once by the wire layer however many players see them),
// indexes the hit events by the entities that took part, gathers what is relevant to each player
// (its attacker, its targets, the entity it hit last, monsters hunting it) and orders the players
// by the Morton code of their position (neighbours see mostly the same entities, so consecutive
// views find them in cache). Build(i) then asks the policy for view i: the views are independent
// of each other, so any number of threads may build them (distinct i, worker < workers). Finish
// ends the tick.
//
// Pure, like the rest of zone/. Threads: the owning zone's, except Build (see above).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "core/entity_id.h"
#include "interest/interest.h"
#include "spatial/quadtree.h"
#include "zone/entity.h"
#include "zone/world_config.h"
#include "zone/zone_types.h"

namespace zs::zone {

// What the views read of their zone this tick: the zone's own state, lent from Prepare until
// Finish.
struct ViewSource {
  std::span<Entity> entities;                // by slot; each one's changed_at is stamped
  std::span<const int32_t> slot_of;          // by EntityIndex: the slot, or -1
  std::span<const Portal* const> portal_of;  // by slot: the portal taken this tick, or null
  const spatial::Quadtree* tree = nullptr;
  const ZoneConfig* config = nullptr;
  uint64_t tick = 0;
};

class ZoneViews {
 public:
  ZoneViews(const interest::InterestConfig& config, uint32_t near_floor, interest::WireCost cost);

  [[nodiscard]] const interest::InterestPolicy& policy() const { return *policy_; }
  void AddViewer(EntityId player) { policy_->AddViewer(player); }
  void RemoveViewer(EntityId player) { policy_->RemoveViewer(player); }
  void Forget(EntityId player) { policy_->Forget(player); }
  // A player migrated here goes on from what its client knows (`known`: ids and their slots
  // here, 0 for the ones not here, which it is then told left); marks those slots churned.
  void Adopt(EntityId player, std::span<const std::pair<EntityId, uint32_t>> known);
  // Slot `slot` changed occupant (an entity added, removed or moved to another slot) since the
  // last views.
  void MarkChurned(size_t slot);

  // REQUIRES: `source`'s spans stay valid until Finish.
  void Prepare(const ViewSource& source, uint32_t overload_level, size_t workers,
               ZoneTickOutput* out);
  void Build(size_t view, size_t worker, ZoneTickOutput* out);
  void Finish();  // the views have seen every change so far

 private:
  [[nodiscard]] size_t SlotOf(EntityId id) const {
    return static_cast<size_t>(source_.slot_of[EntityIndex(id)]);
  }
  [[nodiscard]] const Entity* Find(EntityId id) const;
  void FillSubjects(ZoneTickOutput* out);
  void IndexEvents(const ZoneTickOutput& out);
  void CollectRelevance(const ZoneTickOutput& out);
  void OrderViewers();

  std::unique_ptr<interest::InterestPolicy> policy_;
  ViewSource source_;
  interest::Frame frame_;
  std::vector<interest::Subject> subjects_;  // by slot
  std::vector<uint32_t> involvement_start_;  // CSR: hit events each slot is part of
  std::vector<uint32_t> involvement_;
  std::vector<uint32_t> involvement_cursor_;
  std::vector<std::pair<uint32_t, uint32_t>> relevance_;  // (player slot, raw id), sorted
  std::vector<uint32_t> relevance_start_;                 // CSR by slot into relevance_ids_
  std::vector<EntityId> relevance_ids_;
  std::vector<uint32_t> view_slot_;  // by view index: the player's slot (Morton order)
  std::vector<uint64_t> churned_;    // bit per slot: occupant changed since the last views
  std::vector<uint64_t> view_order_;
};

}  // namespace zs::zone
