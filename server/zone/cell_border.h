// CellBorder: one cell's border with its neighbours, in a split zone (zone/cells.h,
// docs/seamless.md).
//
// It holds what the cell knows of each neighbour (its rectangle, the batch taken for the coming
// tick, when it was last heard) and what crosses the border in a tick, both ways: the
// neighbours' hits, says and migrants in; this cell's hits on ghosts, says near the border and
// emigrants out. It checks each batch whole when it arrives (Take) and answers the border's
// questions of a tick: which ghosts stay, which hits are applied, who migrates where. It never
// touches an entity: the zone does, through the Entities it passes in or driven by what the
// border returns.
//
// A whole zone (kWholeZone) has no border: no neighbours, every batch kNotANeighbour, every list
// empty.
//
// Pure, as the zone: no clocks, sockets, threads or logging. Not thread-safe.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "core/entity_id.h"
#include "core/shapes.h"
#include "core/vec2.h"
#include "zone/border_types.h"
#include "zone/cells.h"
#include "zone/entity.h"
#include "zone/world_config.h"

namespace zs::zone {

class CellBorder {
 public:
  // What the border asks of the zone's entities: passed to each call that needs them (the zone
  // may move, so the border keeps no pointer to it).
  class Entities {
   public:
    // Some generation of `id`'s index is simulated here (real, not a ghost).
    [[nodiscard]] virtual bool RealHere(EntityId id) const = 0;
    // A neighbour's ghost for the coming tick: added, or brought up to date.
    virtual void Haunt(const GhostState& ghost, uint32_t from_cell) = 0;
    // A neighbour's migrant made real here; false when it was not (real here already: two
    // neighbours sent it, the first one taken stands).
    virtual bool Immigrate(const Migrant& migrant, uint32_t from_cell) = 0;

   protected:
    ~Entities() = default;
  };

  // The border of cell `cell` of the zone `config` of `world` (kWholeZone: none). REQUIRES: both
  // outlive the border; `cell` is kWholeZone or < config.cells.count().
  CellBorder(const WorldConfig& world, const ZoneConfig& config, uint32_t cell);

  [[nodiscard]] uint32_t cell() const { return cell_; }
  // This cell's rectangle (the zone's bounds when whole): real entities stay inside it.
  [[nodiscard]] const Aabb& area() const { return area_; }
  // Players cross the border (migrate) like monsters; off, the border holds them.
  void SetPlayersCross(bool on) { players_cross_ = on; }
  [[nodiscard]] bool players_cross() const { return players_cross_; }
  // `e` leaves with the border it has crossed (a real monster, or player where players cross).
  [[nodiscard]] bool Migrates(const Entity& e) const {
    return !e.is_ghost() && (e.is_monster() || players_cross_);
  }
  // Cell `cell` is this one or touches it: an entity put there is this cell's or migrates to a
  // neighbour at the end of the tick.
  [[nodiscard]] bool Near(uint32_t cell) const;
  // Cell `cell` is a neighbour heard within the ghost timeout: it may take a migrant (one not
  // running yet, gone or cut off would lose it).
  [[nodiscard]] bool Hears(uint32_t cell) const;

  // ---- between ticks ----
  // A neighbour's batch for the coming tick (the newest of each neighbour wins), checked whole:
  // taken whole or refused whole, and the verdict says why.
  GhostVerdict Take(GhostBatch batch, const Entities& here);
  // A `say` by real player `speaker` at `position`, this tick: for the neighbours whose players
  // may hear it (within chat_radius of the speaker, and the speaker within ghost_distance of
  // them); it goes with this tick's batches.
  void SayAcross(EntityId speaker, Vec2 position, std::string_view text);

  // ---- the tick, in its order ----
  // 1. At the start of tick `tick`: each neighbour's batch taken since the last tick, its ghosts
  //    haunted and then its migrants made real, neighbour by neighbour; its says are heard().
  //    A neighbour silent for ghost_timeout_ticks is added to `silent`. True when the ghosts
  //    must be swept (Keeps).
  bool Arrive(uint64_t tick, Entities& here, std::vector<uint32_t>* silent);
  // After Arrive: whether the ghost of cell `ghost_of` last listed at `ghost_seen` stays.
  [[nodiscard]] bool Keeps(uint32_t ghost_of, uint64_t ghost_seen) const;
  // The neighbours' says applied this tick (their speakers are ghosts here), until the next.
  [[nodiscard]] const std::vector<BorderSay>& heard() const { return heard_; }
  // 2. The neighbours' hits of the batches applied, to apply to this cell's entities before its
  //    own attacks (appended to `hits`, in neighbour order).
  void TakeHits(std::vector<RemoteHit>* hits);
  // 3. This cell's hits of the last ticks on the entities that were ghosts then and migrated
  //    here since (Arrive): their owner let them go before it could apply them (appended to
  //    `hits`; each is applied once).
  void TakeHitsOnImmigrants(std::vector<RemoteHit>* hits);
  // 4. A hit of this tick on a ghost of cell `owner`, for its batch.
  void Deal(uint32_t owner, const RemoteHit& hit);
  // 5. At the end of the tick: `migrant` leaves for neighbour `to` with this tick's batch.
  void Emigrate(uint32_t to, Migrant migrant) {
    emigrants_.push_back({.cell = to, .migrant = std::move(migrant)});
  }
  // 6. This tick's batches, one per neighbour in cell order (`border` resized): the hits, says
  //    and migrants of the tick, which are then forgotten (the hits remembered for
  //    TakeHitsOnImmigrants), and no ghosts yet: Show lists them.
  void Export(std::vector<GhostBatch>* border);
  // Lists `e` in the batch of each neighbour within ghost_distance of it: a real entity, or an
  // emigrant of this tick (ghost_seen ahead) for the cells other than its new one, which lists
  // it only from its next batch on.
  void Show(const Entity& e, std::vector<GhostBatch>* border) const;

 private:
  struct Neighbour {
    uint32_t cell = 0;
    Aabb bounds;
    bool pending = false;  // `batch` (its ghosts and hits) is to be applied at the coming tick
    GhostBatch batch;
    std::vector<RemoteHit> hits;  // taken with the batch, applied by TakeHits
    std::vector<BorderSay> says;  // taken with the batch, heard at the coming tick
    // Taken with the batch, made real at the coming tick, each with its batch's hits_applied.
    std::vector<std::pair<Migrant, uint64_t>> migrants;
    uint64_t hits_applied = 0;  // our hits: the newest of its batches' ticks applied here
    bool taken_any = false;     // a batch was ever taken: (epoch, tick) below are its
    uint64_t epoch = 0;
    uint64_t tick = 0;
    bool heard = false;     // its last batch came within the timeout: its ghosts are kept
    uint64_t heard_at = 0;  // our tick when its last batch was applied
  };
  struct Dealt {
    uint32_t cell;  // the target's owner
    uint64_t tick;  // ours, when it was dealt (and sent)
    RemoteHit hit;
  };
  struct Emigrant {
    uint32_t cell;  // where it went
    Migrant migrant;
  };
  struct Immigrant {
    EntityId id;
    uint32_t from;          // the cell it came from
    uint64_t hits_applied;  // of our hits, those sent up to this tick were applied there
  };
  struct Said {
    uint32_t cell;  // the neighbour that hears it
    BorderSay say;
  };
  // The hits sent in the last kHitMemoryTicks ticks: those the owner had not applied when it
  // let their target migrate here are applied as it arrives (TakeHitsOnImmigrants).
  static constexpr uint64_t kHitMemoryTicks = 32;

  [[nodiscard]] const Neighbour* NeighbourOf(uint32_t cell) const;
  Neighbour* NeighbourOf(uint32_t cell);
  [[nodiscard]] GhostVerdict Check(const GhostBatch& batch, const Entities& here);
  [[nodiscard]] GhostVerdict CheckGhosts(const GhostBatch& batch, const Entities& here);
  [[nodiscard]] GhostVerdict CheckMigrants(const GhostBatch& batch, const Entities& here) const;
  [[nodiscard]] GhostVerdict CheckHitsAndSays(const GhostBatch& batch) const;
  // The ghost or migrant of the batch being checked with id `id` (after CheckGhosts sorted
  // ghost_ids_), or null.
  [[nodiscard]] const GhostState* Listed(const GhostBatch& batch, EntityId id) const;
  [[nodiscard]] bool Plausible(const GhostState& g) const;
  [[nodiscard]] bool Plausible(const Migrant& m) const;
  [[nodiscard]] bool PlausiblePlayer(const Migrant& m) const;
  [[nodiscard]] bool PlausibleMonster(const Migrant& m) const;
  // The attacker (one of the batch's ghosts) has the skill, and the hit is that skill's damage.
  [[nodiscard]] bool MayDeal(const GhostState& attacker, const RemoteHit& hit) const;

  const WorldConfig* world_;
  const ZoneConfig* config_;
  uint32_t cell_ = kWholeZone;
  Aabb area_;
  bool players_cross_ = false;
  uint64_t tick_ = 0;                  // the tick of the last Arrive
  std::vector<Neighbour> neighbours_;  // the cells touching this one, in cell order
  // Scratch: one batch's ghosts and migrants as (raw id, index in the batch), sorted by id.
  std::vector<std::pair<uint32_t, uint32_t>> ghost_ids_;
  std::vector<Dealt> dealt_;  // this tick's hits on ghosts, for their owners' batches
  std::vector<Dealt> dealt_history_;
  std::vector<Emigrant> emigrants_;    // this tick's, for the batches
  std::vector<Immigrant> immigrants_;  // made real here this tick
  std::vector<Said> said_;             // this tick's says near the border, for the batches
  std::vector<BorderSay> heard_;       // the neighbours' says applied this tick
};

}  // namespace zs::zone
