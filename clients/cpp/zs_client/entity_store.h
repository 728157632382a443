// EntityStore: what a game client knows of its zone, built from the ServerMessages it receives
// (proto/zone.proto): the zone, your own entity, every entity you are sent, the newest tick and
// input acknowledgement. It applies every delta kind of the protocol (a resync, left, entered,
// updated with absolute positions, moved and turned with delta-coded ids, self) exactly as
// tests/golden/README.md specifies, which the TypeScript SDK and the Python reference client
// follow too; the golden streams prove the three agree.
//
// A StoreListener, when set, hears each entity entering, changing and leaving as it happens.
// Pure: no sockets, clocks or threads; bytes are parsed by the caller. Not thread-safe: one
// owner (a game loop, a bot).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

namespace zs::zone::v1 {
class ServerMessage;
class Welcome;
class TickUpdate;
class ZoneChanged;
class EntityUpdate;
}  // namespace zs::zone::v1

namespace zs::client {

enum class EntityKind : uint8_t { kPlayer = 0, kMonster = 1 };  // zone.proto's EntityKind

// One entity as the store knows it: centimetres and 1/65536 turn, as on the wire.
struct Entity {
  uint32_t id = 0;
  EntityKind kind = EntityKind::kPlayer;
  uint32_t template_id = 0;  // monsters: Welcome.monster_templates
  std::string name;          // players
  int32_t x = 0;
  int32_t y = 0;
  uint32_t facing = 0;
  uint32_t radius = 0;
  int32_t hp = 0;
  int32_t max_hp = 0;
  bool alive = true;
  // The store's own bookkeeping: its count of TickUpdates applied when one last named this
  // entity in `updated`, `moved_ids` or `turned_ids` (the listed-twice check, Anomaly).
  uint64_t listed_in = 0;
};

// Your own entity (never among entities()).
struct Self {
  uint32_t id = 0;
  int32_t x = 0;
  int32_t y = 0;
  uint32_t facing = 0;
  int32_t hp = 0;
  bool alive = true;
};

struct ZoneInfo {
  uint32_t id = 0;
  std::string name;
  int32_t min_x = 0;
  int32_t min_y = 0;
  int32_t max_x = 0;
  int32_t max_y = 0;
};

// Hears the store's changes while a message is applied. OnChange gets the entity after the
// change; OnLeave the entity as last known (also for each one forgotten by a resync, a zone
// change or a new Welcome).
class StoreListener {
 public:
  virtual ~StoreListener() = default;
  virtual void OnEnter(const Entity& entity) = 0;
  virtual void OnChange(const Entity& entity) = 0;
  virtual void OnLeave(const Entity& entity) = 0;
};

// What a stream does that the protocol promises it never does (proto/zone.proto): an id left,
// updated, moved or turned that the store does not know; an entity entering that it knows
// already, or your own entity entering; one named twice in a tick's `updated`, `moved_ids` and
// `turned_ids`; a delta list whose lists do not match or whose ids are not ascending; a delta
// that puts an entity outside the zone (the deltas do not add up, give or take a centimetre).
// The store still applies what it can (tests/golden/README.md).
enum class Anomaly : uint8_t {
  kUnknownLeave,
  kEnteredTwice,
  kSelfEntered,
  kUnknownUpdate,
  kBadMovedLists,
  kMovedNotAscending,
  kUnknownMove,
  kMovedAndUpdated,
  kMovedOutOfZone,
  kBadTurnedLists,
  kTurnedNotAscending,
  kUnknownTurn,
  kTurnedListedTwice,
  kTurnedOutOfZone,
};

// Hears each Anomaly as the store meets it (a protocol checker such as client_sim; a game's
// debug log). `id`: the entity concerned, 0 for a list as a whole.
class AnomalyListener {
 public:
  virtual ~AnomalyListener() = default;
  virtual void OnAnomaly(Anomaly anomaly, uint32_t id) = 0;
};

class EntityStore {
 public:
  using Entities = std::unordered_map<uint32_t, Entity>;

  // Applies one message: Welcome, TickUpdate and ZoneChanged change the store; the others
  // (Pong, Error, Kick, Notice) do not.
  void Apply(const zone::v1::ServerMessage& message);
  // The same for a message already unwrapped (a caller that switches on the kind itself).
  void ApplyWelcome(const zone::v1::Welcome& welcome);
  void ApplyTick(const zone::v1::TickUpdate& tick);
  void ApplyZoneChanged(const zone::v1::ZoneChanged& changed);
  void set_listener(StoreListener* listener) { listener_ = listener; }
  void set_anomaly_listener(AnomalyListener* listener) { anomalies_ = listener; }

  [[nodiscard]] const std::optional<ZoneInfo>& zone() const { return zone_; }
  [[nodiscard]] const std::optional<Self>& self() const { return self_; }
  [[nodiscard]] std::optional<uint64_t> tick() const { return tick_; }
  [[nodiscard]] uint32_t last_input_seq() const { return last_input_seq_; }
  [[nodiscard]] std::optional<uint32_t> crowd_total() const { return crowd_total_; }
  [[nodiscard]] const Entities& entities() const { return entities_; }
  [[nodiscard]] const Entity* Find(uint32_t id) const {
    const auto it = entities_.find(id);
    return it == entities_.end() ? nullptr : &it->second;
  }

 private:
  void ApplyUpdate(const zone::v1::EntityUpdate& update);
  // Which delta list: the anomalies each names.
  struct DeltaList {
    Anomaly bad_lists, not_ascending, unknown, listed_twice, out_of_zone;
  };
  void ApplyMoves(const zone::v1::TickUpdate& tick);
  void ApplyTurns(const zone::v1::TickUpdate& tick);
  // One entry of a delta list: entity `id` (a running sum, 64 bits wide) moved by (dx, dy), and
  // turned to `facing` when set.
  void ApplyDelta(uint64_t id, int32_t dx, int32_t dy, std::optional<uint32_t> facing,
                  const DeltaList& list);
  void Report(Anomaly anomaly, uint32_t id) const {
    if (anomalies_ != nullptr) anomalies_->OnAnomaly(anomaly, id);
  }
  [[nodiscard]] bool InZone(int32_t x, int32_t y) const;
  void ApplySelf(const zone::v1::EntityUpdate& update);
  // False: not known.
  bool Remove(uint32_t id);
  void ForgetAll();
  void Changed(const Entity& entity) const;

  std::optional<ZoneInfo> zone_;
  std::optional<Self> self_;
  std::optional<uint64_t> tick_;
  uint32_t last_input_seq_ = 0;
  std::optional<uint32_t> crowd_total_;
  Entities entities_;
  uint64_t ticks_applied_ = 0;  // Entity::listed_in counts these
  StoreListener* listener_ = nullptr;
  AnomalyListener* anomalies_ = nullptr;
};

}  // namespace zs::client
