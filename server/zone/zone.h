// Zone: one area of the world and everything in it, advanced one tick at a time.
//
// Pure simulation: no sockets, threads, clocks or logging. Time is the tick number passed to
// Tick(); randomness comes from the zone's own seeded Rng; the same seed and the same inputs
// give the same outputs, bit for bit. Not thread-safe: one thread at a time (different zones
// may tick on different threads: they share only the read-only WorldConfig).
//
// One tick (docs/architecture.md "One tick"); the border steps (B) do something only in a split
// zone, whose cell's border with its neighbours is a CellBorder (zone/cell_border.h):
//   B1. the neighbours' batches taken since the last tick: their ghosts added, updated or swept,
//       their migrants made real, their says heard; a neighbour silent too long loses its ghosts;
//   1. respawn what is due;
//   2. validate inputs (moves set a direction, skills are queued);
//   3. move players (speed cap, zone bounds), update the quadtree, detect portals;
//   4. monsters think (idle/wander, aggro, chase, attack, leash home) and move;
//   B2. the neighbours' hits on this cell's entities, then this cell's hits on the entities that
//       migrated here before their owner could apply them;
//   5. resolve attacks: cooldown, shape query on the quadtree, exact hitbox test, damage,
//      deaths, respawn timers, hit events (a hit on a ghost goes to its owner with B4's batch);
//   6. each player's view of the tick, chosen by the zone's interest policy (interest/), which may
//      run on several threads through a TaskRunner: see Tick and the three-phase API below;
//   7. players who walked into a portal leave the zone (World moves them on);
//   B3. real entities past the migration margin outside the cell migrate to their new cell;
//   B4. one batch per neighbour: the real entities near it, the hits on its entities, the says
//       it may hear, the migrants for it (ZoneTickOutput::border).
//
// Entities live in an EntityStore (zone/entity_store.h: a dense array of slots and the quadtree,
// kept in step). Monsters are created once, at construction, and keep their id through death
// and respawn. Players are added and removed between ticks.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/entity_id.h"
#include "core/rng.h"
#include "core/status.h"
#include "core/task_runner.h"
#include "interest/interest.h"
#include "spatial/quadtree.h"
#include "zone/cell_border.h"
#include "zone/combat.h"
#include "zone/entity.h"
#include "zone/entity_store.h"
#include "zone/world_config.h"
#include "zone/zone_types.h"
#include "zone/zone_views.h"

namespace zs::zone {

// The lasting state of `player` (a player entity, in a zone or between zones) as of tick `now`,
// as if it stood in zone `zone_id` (player_state.cc).
[[nodiscard]] PlayerSnapshot SnapshotOf(const Entity& player, uint32_t zone_id, uint64_t now,
                                        uint32_t tick_rate);

class Zone final : private CellBorder::Entities {
 public:
  // Spawns every monster of every spawn group, with ids from `allocate_id` (called only here).
  // A split zone (config.cells) simulates only cell `cell` (kWholeZone: all of it, as one
  // process would): it spawns the groups whose area's centre is in that cell, keeps its real
  // entities inside the cell, and shows its neighbours' entities near the border as ghosts.
  // REQUIRES: `world` outlives the zone; `config` is one of world.zones (validated config);
  // `cell` is kWholeZone or < config.cells.count().
  template <typename AllocateId>
  Zone(const WorldConfig& world, const ZoneConfig& config, uint64_t seed, AllocateId allocate_id,
       uint32_t cell = kWholeZone)
      : Zone(world, config, seed, cell) {
    SpawnMonsters([&] { return allocate_id(); });
  }

  Zone(const Zone&) = delete;
  Zone& operator=(const Zone&) = delete;
  Zone(Zone&&) noexcept = default;

  // Adds a player with a fresh state at `position` (clamped into the zone), or moves an
  // existing player's state in (zone transfer). kAlreadyExists if the id is here already.
  // Every field counts as changed at the coming tick and the position as a jump, not a step:
  // a player taken back between two ticks is known to viewers that never saw it leave.
  Status AddPlayer(EntityId id, Vec2 position);
  Status AdoptPlayer(Entity player, Vec2 position);
  // Puts a saved player back (player_state.cc): position (clamped into the zone), facing, hp
  // (clamped to the template's range), dead or alive with its respawn timer, and the cooldowns
  // of the skills the player still has, counted from tick `now`. Values that cannot be valid
  // (NaN, a dead player with hp) are repaired, never trusted. kAlreadyExists as AddPlayer.
  Status RestorePlayer(EntityId id, const PlayerSnapshot& saved, uint64_t now);
  // Player `id` goes on from input sequence `last_input_seq` (a player handed over from another
  // world: its client's inputs keep their numbers). kNotFound for no such player.
  Status ContinueInputs(EntityId id, uint32_t last_input_seq);
  // A move or skill of player `id` judged outside the zone (refused before it: rate limits) is
  // acknowledged like the zone's own (last_input_seq). kNotFound for no such player.
  Status Acknowledge(EntityId id, uint32_t seq);
  // The lasting state of player `id` as of tick `now`, or kNotFound.
  Status SnapshotPlayer(EntityId id, uint64_t now, PlayerSnapshot* out) const;
  // Removes a player (disconnect). Viewers see it leave on the next tick.
  Status RemovePlayer(EntityId id);
  // Players who walked into a portal during the last Tick(), already removed from this zone,
  // with their state, in the order of out->transfers. The World moves them on and clears this.
  std::vector<Entity>& departures() { return departures_; }

  // Advances one tick. `tick` must grow by one per call. `overload_level` shrinks the interest
  // budgets (interest::BudgetAt); `runner` (may be null: this thread) builds the views.
  // `inputs`: this zone's players' (chat is the World's and is not expected here).
  void Tick(uint64_t tick, std::span<const PlayerInput> inputs, ZoneTickOutput* out,
            uint32_t overload_level = 0, TaskRunner* runner = nullptr);

  // Tick() in three phases, for a World that runs the views of all zones on one pool:
  //   Simulate (one thread) -> BuildView(i) for i < out->views.size() (any threads, distinct i and
  //   worker, worker < workers) -> FinishTick (one thread).
  void Simulate(uint64_t tick, std::span<const PlayerInput> inputs, uint32_t overload_level,
                size_t workers, ZoneTickOutput* out);
  void BuildView(size_t view, size_t worker, ZoneTickOutput* out) {
    views_.Build(view, worker, out);
  }
  void FinishTick(ZoneTickOutput* out);
  [[nodiscard]] const interest::InterestPolicy& interest() const { return views_.policy(); }

  [[nodiscard]] const ZoneConfig& config() const { return config_; }
  // The entities and their quadtree, read (EntityStore: Find, entities, tree, the counts of
  // real players and ghosts, the players in a circle for chat).
  [[nodiscard]] const EntityStore& store() const { return store_; }
  // This cell's border with its neighbours, read (CellBorder: the cell simulated here, or
  // kWholeZone, and its area, where real entities stay; the neighbours' says heard this tick).
  [[nodiscard]] const CellBorder& border() const { return border_; }
  // Players cross cell borders (migrate) like monsters; off, the border holds them (a host that
  // cannot relay a client's connection to another node keeps it off).
  void SetPlayersCross(bool on) { border_.SetPlayersCross(on); }
  // A neighbouring cell's ghosts for the coming tick (between ticks; the newest batch of each
  // neighbour wins). Every field is checked: a batch is taken whole or refused whole, and the
  // verdict says why (GhostVerdict). Each tick's own batches for the neighbours are in
  // ZoneTickOutput::border; a neighbour silent for ghost_timeout_ticks loses its ghosts here.
  GhostVerdict TakeGhosts(GhostBatch batch) { return border_.Take(std::move(batch), *this); }
  // A `say` by real player `speaker` this tick, for the neighbouring cells whose players may
  // hear it (within chat_radius of the speaker, and the speaker within ghost_distance of them):
  // it goes with this tick's batches (the World calls this as it delivers chat).
  void SayAcross(EntityId speaker, std::string_view text);
  // Forgets what the player knows: the next tick lists everything in view as entered (a resync
  // after the client's state was lost, e.g. dropped frames).
  Status ForgetKnown(EntityId player);
  // Per-player view radius override (0 restores the zone default; zone::ViewRadiusOf reads it).
  Status SetViewRadius(EntityId player, float radius);

 private:
  Zone(const WorldConfig& world, const ZoneConfig& config, uint64_t seed, uint32_t cell);
  [[nodiscard]] Entity NewPlayer(EntityId id) const;  // a fresh player from the template

  template <typename AllocateId>
  void SpawnMonsters(AllocateId allocate_id);
  void SpawnMonster(EntityId id, const MonsterTemplate& t, uint32_t group);
  Vec2 Clamp(Vec2 p) const;    // into the zone's bounds
  Vec2 Confine(Vec2 p) const;  // into the cell's area: where a real entity may be
  // Where a player put at `p` (a login's saved position, a respawn, an arrival) is placed:
  // there when players cross and `p` is in this cell or one next to it (in a neighbour's, it
  // migrates there at the end of the tick), else the nearest point of this cell.
  Vec2 PlayerPlace(Vec2 p);
  Vec2 RandomPointIn(const Aabb& area);                      // clamped into the zone
  [[nodiscard]] bool Spawns(const SpawnGroup& group) const;  // this cell spawns the group

  // Tick steps.
  void Respawn(uint64_t tick);
  // Each input by its kind (Apply); a new kind of input gets an Apply of its own.
  void ApplyInputs(std::span<const PlayerInput> inputs, ZoneTickOutput* out);
  // The player an input names, if it may act now (alive, a player of this zone, sane values:
  // `valid`); else the rejection is counted and, where the client should know, told.
  Entity* Actor(EntityId id, InputKind kind, uint32_t seq, bool valid, ZoneTickOutput* out);
  void Apply(const MoveInput& in, ZoneTickOutput* out);
  void Apply(const SkillInput& in, ZoneTickOutput* out);
  void Apply(const ChatInput& in, ZoneTickOutput* out);
  void MovePlayers();
  void ThinkMonsters(uint64_t tick);
  void StepToward(Entity& e, Vec2 goal, float speed, float stop_distance);
  void LeaveForPortals(ZoneTickOutput* out);
  [[nodiscard]] Combat::Rules CombatRules() const { return {.world = *world_, .zone = config_}; }

  // The cell border's entity side (zone_border.cc): CellBorder decides, these apply it to the
  // entities. Ghosts: a neighbour's batch adds, updates (Haunt) and sweeps them; migration:
  // real entities past migration_margin outside this cell become ghosts of the cell they are
  // in and go to it whole (Emigrate), a neighbour's migrants become real here (Immigrate).
  [[nodiscard]] bool RealHere(EntityId id) const override;
  void Haunt(const GhostState& g, uint32_t from_cell) override;
  bool Immigrate(const Migrant& m, uint32_t from_cell) override;
  void ApplyGhosts(ZoneTickOutput* out);  // the batches taken since the last tick
  // The neighbours' hits on this cell's entities, before this tick's own attacks, then this
  // cell's own hits of the last ticks on the entities that migrated here since.
  void ApplyRemoteHits(uint64_t tick, ZoneTickOutput* out);
  void ApplyHitsOnImmigrants(uint64_t tick, ZoneTickOutput* out);
  void Emigrate();
  [[nodiscard]] Migrant MigrantOf(const Entity& e) const;
  void BecomeReal(Entity& e, const Migrant& m);  // Immigrate's part by kind
  void ExportBorder(ZoneTickOutput* out);

  const WorldConfig* world_;
  ZoneConfig config_;
  CellBorder border_;  // a whole zone's has no neighbours
  Rng rng_;
  EntityStore store_;  // the entities and their quadtree

  // Per-tick scratch, reused (no allocation once warm).
  Combat combat_;  // this tick's attacks (players' and monsters'), resolved in step 5
  std::vector<uint32_t> portal_slots_;    // players who stepped into a portal this tick
  std::vector<const Portal*> portal_of_;  // by slot, the portal taken (nullptr: none)
  std::vector<Entity> departures_;
  std::vector<RemoteHit> remote_hits_;  // the neighbours' hits to apply this tick
  spatial::QueryResults query_;
  uint64_t tick_ = 0;  // the tick being simulated (a move records it as the move tick)

  // Each player's view of the tick: the interest policy and what it reads.
  ZoneViews views_;
};

template <typename AllocateId>
void Zone::SpawnMonsters(AllocateId allocate_id) {
  for (uint32_t g = 0; g < config_.spawns.size(); ++g) {
    const SpawnGroup& group = config_.spawns[g];
    if (!Spawns(group)) continue;
    const MonsterTemplate* t = world_->FindMonster(group.monster);
    for (uint32_t i = 0; t != nullptr && i < group.count; ++i) {
      const EntityId id = allocate_id();
      if (id == kInvalidEntity) return;  // out of ids: the loader caps monsters well below
      SpawnMonster(id, *t, g);
    }
  }
}

}  // namespace zs::zone
