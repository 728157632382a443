// World: every zone of a world, the entity id allocator, and the routing between them.
//
// Pure like Zone: Tick() advances every zone by one tick with the inputs given, in zone order,
// then moves the players who walked through portals into their target zones (they appear there
// on the next tick; no entity is ever in two zones).
//
// A world may host only some of its zones (the others run on other servers): a player who walks
// into a portal to a zone hosted elsewhere leaves every zone here and waits, with its id and
// state kept, as a departure; the caller hands it over (SendOff) or, when the other side cannot
// take it, puts it back beside the portal (TakeBack). The world never knows how or where. Ids are
// unique across the world and keep their generation check: a player keeps its id when it changes
// zone.
//
// Thread: one at a time. The network layer calls AddPlayer/RemovePlayer/Tick from the thread
// that owns the world.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/entity_id.h"
#include "core/status.h"
#include "core/task_runner.h"
#include "zone/world_config.h"
#include "zone/zone.h"
#include "zone/zone_types.h"

namespace zs::zone {

// Where a world's entity ids come from. Worlds that hand players to each other keeping their
// ids (the zones of one process, each ticking on its own: host::ZoneRunners) share one source;
// the sharing (and any locking it needs) is the caller's business.
class IdSource {
 public:
  virtual ~IdSource() = default;
  // kInvalidEntity when no ids are left.
  [[nodiscard]] virtual EntityId Allocate() = 0;
  // False (nothing done): not one of this source's live ids (another range, or freed already:
  // an older generation).
  virtual bool Free(EntityId id) = 0;
};

// Hands out generational ids: a freed index comes back with the next generation. Only indices
// of `range` (all of them by default; a cell's node: IdsOfCell) are handed out.
class EntityIdAllocator : public IdSource {
 public:
  explicit EntityIdAllocator(IdRange range = {}) : range_(range) {}
  [[nodiscard]] EntityId Allocate() override;
  bool Free(EntityId id) override;
  [[nodiscard]] size_t live() const { return live_; }

 private:
  // Index offset + stride * j is the j-th of the range. j = 0 is never handed out, so no
  // entity's id is 0: on the wire (proto3) a zero id would be indistinguishable from "not set".
  IdRange range_;
  std::vector<uint32_t> generation_ = {0};  // by j
  std::deque<uint32_t> free_;  // j, oldest first, so a freed id is reused as late as possible
  size_t live_ = 0;
};

// One cell of a split zone that a world simulates (zone/cells.h).
using HostedCell = CellRef;

class World {
 public:
  // REQUIRES: a validated config (LoadWorldConfig or equivalent) with at least one zone, and
  // `hosted` (zone ids; empty: every zone) naming at least one of its zones. `ids` (null: the
  // world's own) must outlive the world. A split zone listed in `cells` simulates only that cell
  // (its ids must then come from IdsOfCell); one not listed runs whole.
  explicit World(WorldConfig config, std::span<const uint32_t> hosted = {}, IdSource* ids = nullptr,
                 std::span<const HostedCell> cells = {});
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // A new player in `zone_id` (the first zone when omitted) at that zone's spawn point, called
  // `name` (what other players are told; chat). kNotFound for an unknown zone; kOutOfBounds
  // when no more ids are left.
  Status AddPlayer(std::optional<uint32_t> zone_id, EntityId* id, std::string name = {});
  // A saved player put back in its zone as it was (Zone::RestorePlayer); a zone the world no
  // longer has puts them at the first zone's spawn point. kOutOfBounds as AddPlayer.
  Status RestorePlayer(const PlayerSnapshot& saved, EntityId* id, std::string name);
  // The lasting state of player `id` now (between ticks), departing or not, or kNotFound.
  Status SnapshotPlayer(EntityId id, PlayerSnapshot* out) const;

  // A player who walked into a portal to a zone this world does not host.
  struct Departure {
    EntityId player = kInvalidEntity;
    uint32_t from_zone = 0;  // zone id
    uint32_t to_zone = 0;    // zone id
    Vec2 arrival;            // where the portal puts it in to_zone
  };
  // This tick's new departures (cleared by the next Tick). Each stays out of every zone, id and
  // state kept, until SendOff or TakeBack.
  [[nodiscard]] const std::vector<Departure>& departures() const { return new_departures_; }
  // The departing player now belongs elsewhere: its id is freed.
  Status SendOff(EntityId id);
  // The departing player could not be handed over: back in its zone where it stood the tick
  // before it stepped into the portal, standing still.
  Status TakeBack(EntityId id);
  // A player passing from one world to another that shares its IdSource (in one process),
  // keeping its id, its state and where its input sequence stands.
  struct HandedPlayer {
    EntityId id = kInvalidEntity;
    std::string name;
    PlayerSnapshot state;  // state.zone: where it goes; state.position: where it arrives
    uint32_t last_input_seq = 0;
    bool input_seq_seen = false;
  };
  // The departing player leaves for a world sharing this world's ids: as SendOff, but its id
  // stays taken (it goes with the player). kNotFound when it is not departing.
  Status HandOver(EntityId id, HandedPlayer* out);
  // A player handed over by a world sharing this world's ids enters state.zone at
  // state.position (repaired as RestorePlayer does). kNotFound when that zone is not hosted
  // here; kAlreadyExists when its id is in use here. On failure the id is still the caller's.
  Status Adopt(const HandedPlayer& player);
  // Any zone of the world's config, hosted here or not (null: no such zone).
  [[nodiscard]] const ZoneConfig* FindZone(uint32_t zone_id) const;
  [[nodiscard]] bool Hosts(uint32_t zone_id) const { return ZoneIndexById(zone_id).has_value(); }
  Status RemovePlayer(EntityId id);
  // The id of a player of this world's id source that left the game while real in another cell
  // (its client left this node, its home, while it was away): freed once kReleaseAfterTicks
  // have passed and no zone here holds it (real, ghost or departing), so its index is not
  // reused while a ghost or a migrant of the old entity may still come. Ids of another source,
  // or freed meanwhile (the player came back and was removed here), are left alone.
  void ReleaseWhenGone(EntityId id);
  static constexpr uint64_t kReleaseAfterTicks = 200;
  [[nodiscard]] size_t releasing() const { return releasing_.size(); }
  // A neighbouring cell's ghosts for the coming tick (Zone::TakeGhosts), for the zone it names
  // (kNotANeighbour when that zone is not hosted here). Each tick's batches for the neighbours
  // are in output(i).border, players' names filled in.
  GhostVerdict TakeGhosts(GhostBatch batch);
  // Another cell's `zone` chat for a split zone hosted here, heard by every player of this cell
  // at the coming tick (the speakers named as their cell names them). kTaken; kNotANeighbour
  // when the zone is not hosted here split, or the cell is this one or beyond the zone's; kStale
  // when not newer (epoch, tick) than the last taken from that cell; kTooMany beyond
  // kMaxZoneLines. The lines' texts and names are checked by the caller (cluster codec).
  GhostVerdict TakeZoneChat(ZoneChat chat);
  // Players cross the borders of the split zones' cells (Zone::SetPlayersCross): for a host
  // that relays a migrated player's connection (off by default: the border holds them).
  void SetPlayersCross(bool on);
  // See Zone::ForgetKnown.
  Status ForgetKnown(EntityId id);

  // One tick of every zone: the players' inputs (each goes to its player's zone; chat is the
  // world's), results decided outside the world (e.g. rate limits) to be told to the players
  // in this tick's frames, and whispers relayed from other worlds of this process. Inputs for
  // unknown players are counted as rejected in the first zone's output. `overload_level`
  // shrinks every zone's interest budgets (interest::BudgetAt). `runner` (null: this thread)
  // runs the zones' simulations side by side, then all their views; the outputs are the same
  // whatever runner is used. The outputs point into the inputs' texts until the next tick.
  struct Inputs {
    std::span<const PlayerInput> inputs;
    std::span<const InputResult> results = {};
    std::span<const RelayedWhisper> relayed = {};
  };
  void Tick(const Inputs& in, uint32_t overload_level = 0, TaskRunner* runner = nullptr);
  // Tests' and tools' shorthand: moves and skills only.
  void Tick(std::span<const MoveInput> moves, std::span<const SkillInput> skills,
            uint32_t overload_level = 0, TaskRunner* runner = nullptr);

  [[nodiscard]] uint64_t tick() const { return tick_; }
  [[nodiscard]] const WorldConfig& config() const { return config_; }
  [[nodiscard]] size_t zone_count() const { return zones_.size(); }
  [[nodiscard]] const Zone& zone(size_t i) const { return zones_[i]; }
  [[nodiscard]] Zone& mutable_zone(size_t i) { return zones_[i]; }
  // The last tick's output of zone i.
  [[nodiscard]] const ZoneTickOutput& output(size_t i) const { return outputs_[i]; }
  // Index (not id) of the zone a player is in.
  [[nodiscard]] std::optional<size_t> ZoneIndexOf(EntityId player) const;
  [[nodiscard]] std::optional<size_t> ZoneIndexById(uint32_t zone_id) const;
  // A player's name ("" for none or an unknown id).
  [[nodiscard]] const std::string& NameOf(EntityId player) const;

 private:
  WorldConfig config_;
  EntityIdAllocator own_ids_;
  IdSource* ids_;
  std::vector<Zone> zones_;
  std::vector<ZoneTickOutput> outputs_;
  // Chat (world_chat.cc): each line goes into the output that holds its recipients' views.
  // Each input to its player's zone (zone_inputs_), chat aside; returns those of unknown players.
  uint32_t RouteInputs(std::span<const PlayerInput> inputs);
  void DeliverChat(std::span<const PlayerInput> inputs);
  void DeliverWhisper(size_t z, const ChatInput& c);
  void DeliverRelayed(std::span<const RelayedWhisper> relayed);
  void DeliverSay(size_t z, const ChatInput& c);
  void DeliverHeard(size_t z);  // the neighbouring cells' says (CellBorder::heard)
  void DeliverTo(size_t z, uint32_t line, EntityId recipient);
  void AddResults(std::span<const InputResult> results);
  void ShareNames();
  // Names the players in the border batches; a player migrating away is no longer filed here.
  void NameBorderPlayers(ZoneTickOutput* out);
  // Files a new player under zone index z (ids, zone_of_, names_) after `place` put it there.
  template <typename Place>
  Status Enter(size_t z, EntityId* id, std::string name,
               Place place);  // the outputs point at names_ (the encoder reads players' names)
  // Files player `id` under zone index z (zone_of_, names_).
  void File(size_t z, EntityId id, std::string name);

  void Depart(size_t z, Entity leaving, const Transfer& t);
  struct Away {
    Entity entity;
    Departure departure;
  };
  std::unordered_map<uint32_t, Away> away_;  // departing players, by EntityIndex
  // Other cells' zone chat: taken between ticks (pending), heard at the next (heard_, whose
  // strings the tick's chat lines point at until the one after); the newest (epoch, tick) taken
  // from each (zone, cell).
  std::vector<ZoneChat> pending_chat_;
  std::vector<ZoneChat> heard_chat_;
  std::map<std::pair<uint32_t, uint32_t>, std::pair<uint64_t, uint64_t>> chat_from_;
  void DeliverZoneChat();
  // Ids to free (ReleaseWhenGone) and the tick they were last found held, oldest first.
  struct Releasing {
    EntityId id = kInvalidEntity;
    uint64_t since = 0;
  };
  std::deque<Releasing> releasing_;
  void ReleaseDue();
  [[nodiscard]] bool Holds(EntityId id) const;
  std::vector<Departure> new_departures_;

  std::vector<int32_t> zone_of_;                       // by EntityIndex, players only; -1 when none
  std::vector<std::string> names_;                     // by EntityIndex, players only
  std::vector<EntityId> near_;                         // chat scratch
  std::vector<std::vector<PlayerInput>> zone_inputs_;  // per zone, reused
  std::vector<PlayerInput> shorthand_;                 // Tick(moves, skills)'s inputs
  std::vector<size_t> view_start_;  // prefix sums of the zones' view counts, this tick
  uint64_t tick_ = 0;
};

}  // namespace zs::zone
