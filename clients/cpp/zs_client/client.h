// Client: the sans-I/O core a game embeds, as the TypeScript SDK's ZoneClient. It owns one
// EntityStore, ClockSync, TickClock, Interpolation and Prediction for its whole life (across
// reconnects and hand-offs) and one Connection (the state machine: connection.h); it turns the
// game's calls into inputs (Move, UseSkill, Chat) with every limit checked before sending, and
// the server's messages into listener calls.
//
// Driving: Connect(options, now) starts; the driver (asio_transport.h, or an engine's own
// sockets) carries out TakeActions() (dial, send bytes, close) and reports back with
// OnConnected / OnBytes (TCP) / OnMessage (WebSocket) / OnClosed, and calls Poll(now) from a
// timer or once a frame (NextPollAt() says when it is next needed). No threads, no sockets, no
// clock reads, no logging: every time is passed in, milliseconds of one clock (epoch ms that
// never go back, for ServerTime to mean wall-clock time).
//
// Per frame it allocates nothing once warm beyond the events' own strings and vectors (a hit's
// targets, a chat line) and the map nodes of entities entering; inputs cost one small protobuf
// allocation each.
//
// Threads: one; not thread-safe. Listener calls happen inside the call that caused them; a
// listener may call Move, UseSkill, Chat, Resume and Close, but not the On* methods, Poll or
// TakeActions.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "zs_client/clock.h"
#include "zs_client/connection.h"
#include "zs_client/entity_store.h"
#include "zs_client/errors.h"
#include "zs_client/events.h"
#include "zs_client/interpolation.h"
#include "zs_client/prediction.h"

namespace zs::zone::v1 {
class Welcome;
class TickUpdate;
class SkillInfo;
}  // namespace zs::zone::v1

namespace zs::client {

struct ClientOptions : ConnectionOptions {
  PredictionOptions prediction;
  double interpolation_margin_ticks = 0.25;  // beyond 1 tick + the measured jitter
  double result_timeout_ms = 5000;  // a skill or chat result not back by then: kResultTimeout
  bool resume_movement = true;      // after a reconnect, send the last direction asked again
  uint32_t first_input_seq = 1;     // moves and skills
};

// One input's outcome (TickUpdate.results), or why it will never come (error).
struct InputOutcome {
  int kind = 0;  // zone.proto's InputKind
  uint32_t seq = 0;
  int outcome = 0;  // zone.proto's Outcome (0 with an error)
  bool accepted = false;
  Status error;  // kResultTimeout, kResultLost, kConnectionLost, kClosed, ...
};
using ResultCallback = std::function<void(const InputOutcome&)>;

// What an input call did: sent with `seq`, or refused before sending (status).
struct InputHandle {
  Status status;
  uint32_t seq = 0;
};

struct ClientStats {
  double rtt_last_ms = kNaN;
  double rtt_smoothed_ms = kNaN;
  double rtt_min_ms = kNaN;
  double clock_offset_ms = kNaN;
  double jitter_ms = 0;
  uint64_t bytes_in = 0;
  uint64_t bytes_out = 0;
  double bytes_in_per_sec = 0;
  double bytes_out_per_sec = 0;
  uint64_t frames = 0;  // server messages (every kind)
  uint64_t ticks = 0;
  uint64_t resyncs = 0;
  uint64_t reconnects = 0;
  uint64_t handoffs = 0;
  double prediction_error_cm = 0;  // the correction left
  uint64_t prediction_snaps = 0;
};

// What the game hears. Every method has an empty default.
class ClientListener {
 public:
  virtual ~ClientListener() = default;
  virtual void OnState(State /*to*/, State /*from*/, CloseReason /*reason*/,
                       const Status& /*error*/) {}
  virtual void OnWelcome(const zone::v1::Welcome& /*welcome*/) {}
  virtual void OnEnter(const Entity& /*entity*/) {}
  virtual void OnChange(const Entity& /*entity*/) {}
  virtual void OnLeave(const Entity& /*entity*/) {}
  virtual void OnTick(const zone::v1::TickUpdate& /*tick*/) {}
  // Hits, chat lines, input results, a zone change, a kick, a server error, a notice.
  virtual void OnEvent(const Event& /*event*/) {}
  virtual void OnPong(double /*rtt_ms*/) {}
  virtual void OnClosed(CloseReason /*reason*/, const Status& /*error*/) {}
};

class Client final : private ConnectionHandler, private StoreListener {
 public:
  Client();
  ~Client() override;
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  void set_listener(ClientListener* listener) { listener_ = listener; }

  // Starts the session: kInvalidArgument, kBadName, kTransportUnsupported.
  Status Connect(ClientOptions options, double now_ms);
  // Back in the foreground: ping now; a dead connection reconnects now.
  void Resume(double now_ms) { connection_.Resume(now_ms); }
  // Logs out and closes (closed at most `grace_ms` later).
  void Close(double now_ms, double grace_ms = 2000) { connection_.Close(now_ms, grace_ms); }

  // ---- the transport's side
  void OnConnected(uint64_t link, std::string_view subprotocol, double now_ms);
  void OnBytes(uint64_t link, std::span<const uint8_t> bytes, double now_ms);
  void OnMessage(uint64_t link, std::span<const uint8_t> message, double now_ms);
  void OnClosed(uint64_t link, const CloseInfo& info, double now_ms);
  void Poll(double now_ms);
  [[nodiscard]] std::span<const Action> TakeActions() { return connection_.TakeActions(); }
  [[nodiscard]] double NextPollAt() const;

  // ---- inputs
  // Walk in direction (x, y) (any length; (0, 0) stops) until told otherwise. Sent only when it
  // differs from the last direction sent (or `force`); remembered while not in the world and
  // sent again after a reconnect. kInvalidArgument for NaN/inf; ok with seq 0 when not sent.
  InputHandle Move(double x, double y, double now_ms, bool force = false);
  InputHandle Stop(double now_ms) { return Move(0, 0, now_ms); }
  // Use a skill facing `facing` (0..65535), at ground point `target` (cm) for ground-targeted
  // skills. `on_result` hears its InputResult, or the error that ended the wait. Refused before
  // sending: kNotInWorld, kInvalidArgument, kUnknownSkill, kSkillOnCooldown, kFrameTooLarge.
  InputHandle UseSkill(uint32_t skill_id, uint32_t facing, std::optional<Position> target,
                       double now_ms, ResultCallback on_result = {});
  // Say `text` (1..256 bytes of UTF-8, no control characters) on `channel` (zone.proto's
  // ChatChannel; a whisper needs `to`). Refused before sending: kChatTooLong, kBadText,
  // kInvalidArgument, kNotInWorld, kFrameTooLarge.
  InputHandle Chat(std::string_view text, int channel, std::string_view to, double now_ms,
                   ResultCallback on_result = {});
  // Milliseconds until `skill_id` is ready (0: ready); nullopt for a skill not in the Welcome.
  [[nodiscard]] std::optional<double> CooldownLeft(uint32_t skill_id, double now_ms) const;

  // ---- rendering
  // Where to draw your own entity: the prediction, smoothly corrected (cm).
  [[nodiscard]] Position SelfPosition(double now_ms) { return prediction_.PositionAt(now_ms); }
  // The (fractional) tick to draw remote entities at.
  [[nodiscard]] double RenderTick(double now_ms) const;
  // Where to draw entity `id` (interpolated); false when unknown.
  bool StateAt(uint32_t id, double now_ms, MotionState* out) const;
  // The server's wall clock at local time `now_ms`.
  [[nodiscard]] double ServerTime(double now_ms) const { return clock_.ServerNow(now_ms); }

  // ---- state
  [[nodiscard]] State state() const { return connection_.state(); }
  [[nodiscard]] uint32_t self_id() const;
  [[nodiscard]] const EntityStore& store() const { return store_; }
  [[nodiscard]] const ClockSync& clock() const { return clock_; }
  [[nodiscard]] const TickClock& ticks() const { return ticks_; }
  [[nodiscard]] const Interpolation& interpolation() const { return interpolation_; }
  [[nodiscard]] const Prediction& prediction() const { return prediction_; }
  [[nodiscard]] const Connection& connection() const { return connection_; }
  // The last Welcome (your character, skills, zone, tick rate); nullptr before one.
  [[nodiscard]] const zone::v1::Welcome* welcome() const { return welcome_.get(); }
  [[nodiscard]] const ClientStats& stats() const { return stats_; }
  [[nodiscard]] CloseReason close_reason() const { return connection_.close_reason(); }
  [[nodiscard]] const Status& close_error() const { return connection_.close_error(); }

 private:
  struct PendingResult {
    int kind = 0;
    uint32_t seq = 0;
    uint32_t skill_id = 0;
    double sent_ms = 0;
    double deadline_ms = 0;
    ResultCallback callback;
  };
  struct Cooldown {
    uint32_t skill_id = 0;
    uint32_t cooldown_ms = 0;
    double ready_at_ms = 0;
  };

  // ConnectionHandler
  void OnServerMessage(const zone::v1::ServerMessage& m, double now_ms) override;
  void OnStateChange(State to, State from, CloseReason reason, const Status& error) override;
  void OnHelloSent(double now_ms) override { hello_sent_at_ = now_ms; }
  // StoreListener
  void OnEnter(const Entity& entity) override;
  void OnChange(const Entity& entity) override;
  void OnLeave(const Entity& entity) override;

  void ApplyWelcome(const zone::v1::ServerMessage& m, double now_ms);
  void ApplyTick(const zone::v1::ServerMessage& m, double now_ms);
  void ApplyZoneChanged(const zone::v1::ServerMessage& m);
  void Dispatch(double now_ms);
  void ResolveResult(const ResultEvent& r, double now_ms);
  void RejectLostSkills(uint32_t last_input_seq);
  void RejectAll(const Status& error);
  void ExpireResults(double now_ms);
  void UpdateStats(double now_ms);
  uint32_t NextSeq();
  Cooldown* FindCooldown(uint32_t skill_id);
  [[nodiscard]] const Cooldown* FindCooldown(uint32_t skill_id) const;

  ClientOptions options_;
  ClientListener* listener_ = nullptr;
  Connection connection_;
  EntityStore store_;
  ClockSync clock_;
  TickClock ticks_;
  Interpolation interpolation_;
  Prediction prediction_;
  std::unique_ptr<zone::v1::Welcome> welcome_;
  ClientStats stats_;
  uint64_t applying_tick_ = 0;  // the tick of the frame being applied (store changes)
  uint32_t input_seq_ = 0;
  uint32_t session_seq_base_ = 0;  // input_seq_ at the Welcome
  uint32_t chat_seq_ = 0;
  std::vector<PendingResult> pending_;
  std::vector<Cooldown> cooldowns_;
  std::vector<Event> events_;
  Position desired_;
  std::optional<Position> last_sent_dir_;
  double hello_sent_at_ = kNaN;
  double last_now_ms_ = 0;  // the time of the message or poll being handled
  double rate_at_ = kNaN;
  uint64_t rate_bytes_in_ = 0;
  uint64_t rate_bytes_out_ = 0;
};

}  // namespace zs::client
