// WorldModel: one bot's picture of its zone, built from what the server sends, and the checks of
// the protocol's promises (proto/zone.proto, version 10) made on the way.
//
// The picture is the C++ client library's EntityStore (clients/cpp: the store every client of
// ours applies the same way, proven by the golden streams), so every load test exercises it.
// A verifying bot hands it every TickUpdate fully parsed (ApplyTick); the store applies it
// (resync, left, entered, updated, moved, turned, self) and reports each broken promise it meets
// (client::Anomaly), which this counts in Stats by kind: entered_twice, self_entered,
// unknown_leave, unknown_update, unknown_move, bad_moved_deltas, moved_not_ascending,
// moved_and_updated, moved_out_of_zone (a delta that puts an entity outside the zone: the deltas
// do not add up), the same five for turns (unknown_turn, bad_turned_lists, turned_not_ascending,
// turned_listed_twice: also in `updated` or `moved`, turned_out_of_zone), bad_crowd (counts
// that do not fill the grid or do not add up to the total), zone_change_without_leave.
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
#include <vector>

#include "client_sim/chat_check.h"
#include "client_sim/stats.h"
#include "client_sim/wire_scan.h"
#include "core/vec2.h"
#include "zs_client/entity_store.h"

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
  explicit WorldModel(Stats* stats, ChatCheck* chat = nullptr)
      : stats_(stats), chat_(chat), anomalies_(stats) {
    store_.set_anomaly_listener(&anomalies_);
  }
  WorldModel(const WorldModel&) = delete;  // the store points at anomalies_
  WorldModel& operator=(const WorldModel&) = delete;

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
  // The zone the store says this bot is in (0 and the origin before a Welcome).
  [[nodiscard]] uint32_t zone_id() const { return store_.zone() ? store_.zone()->id : 0; }
  [[nodiscard]] Vec2 zone_min() const;
  [[nodiscard]] Vec2 zone_max() const;
  // Arrival gaps between consecutive TickUpdates (ms), for the caller to move into Stats.
  [[nodiscard]] std::vector<double>* intervals() { return &intervals_; }

 private:
  // The store's anomalies, counted as violations (one name per client::Anomaly).
  class AnomalyCount : public client::AnomalyListener {
   public:
    explicit AnomalyCount(Stats* stats) : stats_(stats) {}
    void OnAnomaly(client::Anomaly anomaly, uint32_t id) override;

   private:
    Stats* stats_;
  };

  void Header(const TickSummary& h, Clock::time_point now);
  void CheckCrowd(const zone::v1::CrowdSummary& c);
  void ApplyChat(const zone::v1::TickUpdate& t);

  Stats* stats_;
  ChatCheck* chat_;
  Listener listener_;
  AnomalyCount anomalies_;
  client::EntityStore store_;
  uint32_t self_ = 0;  // the bot's entity: it keeps it from one connection to the next  // Welcome
                       // and ZoneChanged always; ticks of verifying bots only
  uint32_t chat_radius_ = 0;  // centimetres
  CmPoint self_position_;     // from every tick, verifying or not
  uint64_t last_tick_ = 0;
  uint32_t last_ack_ = 0;
  Clock::time_point last_tick_at_;
  std::vector<double> intervals_;
};

}  // namespace zs::sim
