// WorldModel: one bot's picture of its zone, built from what the server sends, and the checks of
// the protocol's promises (proto/zone.proto, version 10) made on the way.
//
// A verifying bot hands it every TickUpdate fully parsed (ApplyTick). It tracks each entity it
// was told about, from `entered`, through `updated` (absolute positions), `moved` (delta-coded
// ids, two deltas per id) and `turned` (the same, and a facing per id), to `left`, at integer
// centimetres so deltas add up exactly; it applies a tick's lists in that order: left, entered,
// updated, moved, turned. It counts each broken promise in Stats by kind: entered_twice,
// self_entered, unknown_leave, unknown_update, unknown_move, bad_moved_deltas,
// moved_not_ascending, moved_and_updated, moved_out_of_zone (a delta that puts an entity outside
// the zone: the deltas do not add up), the same five for turns (unknown_turn,
// bad_turned_lists, turned_not_ascending, turned_listed_twice: also in `updated` or `moved`,
// turned_out_of_zone), bad_crowd (counts that do not fill the grid or do not add up to the
// total), zone_change_without_leave.
// A non-verifying bot hands it the few fields WireScan read (ApplyTickSummary) and tracks no
// entities. Both kinds check: tick_before_welcome, tick_gap (ticks consecutive unless `resync`),
// missing_self (your entity in every tick), ack_went_back; both count crowd summaries.
// With a ChatCheck, a verifying bot also records, per tick, where it stood and which `say` lines
// it heard (and its own lines as said), for ChatCheck::Check after the run.
// Threads: owned by one Bot, used on its event loop only.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "client_sim/chat_check.h"
#include "client_sim/stats.h"
#include "client_sim/wire_scan.h"
#include "core/vec2.h"

namespace zs::zone::v1 {
class Welcome;
class ZoneChanged;
class TickUpdate;
class CrowdSummary;
}  // namespace zs::zone::v1

namespace zs::sim {

// A position on the wire: centimetres.
struct CmPoint {
  int32_t x = 0;
  int32_t y = 0;
};

class WorldModel {
 public:
  using Clock = std::chrono::steady_clock;

  // `chat`: where to record says heard and said (null: no chat check).
  explicit WorldModel(Stats* stats, ChatCheck* chat = nullptr) : stats_(stats), chat_(chat) {}

  // A new connection: nothing known, no tick seen, not in the world. Hands what this
  // connection heard to the ChatCheck.
  void Reset();
  void FlushChat();  // hands the records to the ChatCheck now (the bot stops)
  void Welcome(const zone::v1::Welcome& w);
  void ZoneChanged(const zone::v1::ZoneChanged& z);
  // A TickUpdate received at `now`, fully parsed (verifying bots).
  void ApplyTick(const zone::v1::TickUpdate& t, Clock::time_point now);
  // A TickUpdate received at `now`, as scanned (other bots).
  void ApplyTickSummary(const TickSummary& t, Clock::time_point now);

  // The nearest living monster this bot knows of (verifying bots only know any).
  [[nodiscard]] std::optional<Vec2> NearestMonster() const;
  [[nodiscard]] Vec2 position() const;
  [[nodiscard]] uint32_t zone_id() const { return zone_id_; }
  [[nodiscard]] Vec2 zone_min() const { return zone_min_; }
  [[nodiscard]] Vec2 zone_max() const { return zone_max_; }
  // Arrival gaps between consecutive TickUpdates (ms), for the caller to move into Stats.
  [[nodiscard]] std::vector<double>* intervals() { return &intervals_; }

 private:
  struct Known {
    CmPoint position;
    uint64_t updated_in = 0;  // the tick message (frame_) that last listed it in `updated`
    uint64_t moved_in = 0;    // ... in `moved` or `turned`
    bool monster = false;
    bool alive = true;
  };

  void Header(const TickSummary& h, Clock::time_point now);
  void ApplyLeft(const zone::v1::TickUpdate& t);
  void ApplyEntered(const zone::v1::TickUpdate& t);
  void ApplyUpdated(const zone::v1::TickUpdate& t);
  // The violations of one delta list (moved or turned).
  struct DeltaChecks {
    const char* bad_lists;
    const char* not_ascending;
    const char* unknown;
    const char* listed_twice;
    const char* out_of_zone;
  };
  // A delta list: ids as gaps, two deltas per id; `facings` per id (-1: the list has none).
  void ApplyDeltas(std::span<const uint32_t> ids, std::span<const int32_t> deltas, int facings,
                   const DeltaChecks& checks);
  void CheckCrowd(const zone::v1::CrowdSummary& c);
  void ApplyChat(const zone::v1::TickUpdate& t);
  void SetZone(uint32_t id, CmPoint min, CmPoint max);
  [[nodiscard]] bool InZone(CmPoint p) const;

  Stats* stats_;
  ChatCheck* chat_;
  Listener listener_;
  uint32_t chat_radius_ = 0;  // centimetres
  bool welcomed_ = false;
  uint32_t self_ = 0;
  uint32_t zone_id_ = 0;
  CmPoint zone_min_cm_, zone_max_cm_;
  Vec2 zone_min_, zone_max_;
  CmPoint self_position_;
  uint64_t last_tick_ = 0;
  uint32_t last_ack_ = 0;
  uint64_t frame_ = 0;  // TickUpdates applied on this connection
  std::unordered_map<uint32_t, Known> known_;
  Clock::time_point last_tick_at_;
  std::vector<double> intervals_;
};

}  // namespace zs::sim
