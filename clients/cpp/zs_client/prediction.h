// Prediction of your own movement, as the TypeScript SDK's prediction.ts: the player moves at
// once when the game asks, and the server's word corrects it smoothly.
//
// Model (docs/protocol.md "Inputs and their results"): a MoveInput sets a direction the server
// keeps until the next one (any finite direction normalised, (0, 0) stops); each tick the server
// moves the player at most speed / tick_rate along it and clamps the position to the zone. Every
// move and skill it judged is acknowledged by TickUpdate.last_input_seq (serial-number order,
// RFC 1982, wrapping after 2^32 - 1).
//
// The prediction keeps each unacknowledged MoveInput (seq, direction, when it was sent). For a
// frame of tick T with your position S and last_input_seq L, the predicted position at local
// time t replays from S: the direction of the newest accepted move up to L until the first
// pending move was sent, then each pending move's direction until the next one was sent, the
// last until t; all clamped to the zone. Where tick T falls on the client's own timeline is
// learnt from the acks: a move sent at s and first acknowledged in tick T put the server at the
// end of T one tick into it, so tick T is s + 1 tick on the client's timeline (an EWMA over
// acks); before any, the frame's expected arrival less one round trip.
//
// Correction: when a frame changes the prediction, the difference is kept as an offset that
// decays (time constant correction_ms), so the drawn position glides to the truth; an error
// larger than snap_cm snaps. Dead players are not predicted (the server refuses their moves).
//
// Acknowledgement uses the session's window of seqs (SeqAcked in protocol.h): a last_input_seq
// of 0 in a fresh session's first frames acknowledges nothing, even for seqs in the upper half
// of the number circle.
//
// Pure: times are passed in (ms, one clock throughout). Storage: vectors that keep their
// capacity (no allocation per frame once warm). Not thread-safe: one owner.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "zs_client/entity_store.h"

namespace zs::client {

struct PredictionOptions {
  double correction_ms = 120;  // time constant of the correction's decay
  double snap_cm = 400;        // an error larger than this snaps instead of gliding
};

struct Position {
  double x = 0;
  double y = 0;
};

class Prediction {
 public:
  explicit Prediction(PredictionOptions options = {});

  // What the Welcome says: cm per second, ticks per second, the zone's bounds.
  void Configure(uint32_t speed_cm_per_s, uint32_t tick_rate, std::optional<ZoneInfo> bounds);
  void set_bounds(std::optional<ZoneInfo> bounds) { bounds_ = std::move(bounds); }
  // Standing at (x, y), nothing pending (a Welcome, a zone change: you arrive standing still).
  // `seq_base`: the newest input seq sent before (the next one sent is acknowledged first).
  void Reset(double x, double y, bool alive, uint32_t seq_base);

  // A MoveInput was sent at `sent_ms`; its direction is normalised as the server does.
  void AddMove(uint32_t seq, double dir_x, double dir_y, double sent_ms);
  // Any other input judged in the same sequence (a skill) was sent: it widens the window.
  void AddOtherInput(uint32_t seq);
  // The server refused the move `seq` (InputResult): it never changed the direction.
  void MoveRefused(uint32_t seq);
  // A frame: your position (x, y) at the end of `tick`, with `last_input_seq` judged; `now_ms`
  // the local time it is applied, `expected_arrival_ms` when the frame of `tick` was due and
  // `rtt_ms` the round trip (both for the first frames, before any ack shows the timeline).
  void OnFrame(uint64_t tick, uint32_t last_input_seq, double x, double y, bool alive,
               double now_ms, double expected_arrival_ms, double rtt_ms);

  // Where the server will have the player at `now_ms`, by the inputs sent (no smoothing).
  [[nodiscard]] Position RawAt(double now_ms) const;
  // Where to draw the player at `now_ms`: the prediction plus the decaying correction.
  [[nodiscard]] Position PositionAt(double now_ms);

  [[nodiscard]] size_t pending_count() const { return pending_.size(); }
  // The direction walked by the newest move sent (a unit vector, or 0, 0).
  [[nodiscard]] Position direction() const;
  [[nodiscard]] double correction() const;  // the correction left, cm
  [[nodiscard]] double largest_correction() const { return largest_correction_; }
  [[nodiscard]] uint64_t snaps() const { return snaps_; }
  [[nodiscard]] bool alive() const { return alive_; }

 private:
  struct PendingMove {
    uint32_t seq = 0;
    double dx = 0;  // unit direction, or 0, 0
    double dy = 0;
    double sent_ms = 0;
  };
  [[nodiscard]] bool IsRefused(uint32_t seq) const;
  void Decay(double now_ms);
  void AddCorrection(double dx, double dy, double now_ms);
  [[nodiscard]] Position Clamp(double x, double y) const;

  PredictionOptions options_;
  double speed_ = 0;  // cm per second
  double tick_ms_ = 50;
  std::optional<ZoneInfo> bounds_;
  bool alive_ = true;
  std::vector<PendingMove> pending_;
  std::vector<uint32_t> refused_;
  double acked_dx_ = 0;
  double acked_dy_ = 0;
  double server_x_ = 0;
  double server_y_ = 0;
  double server_tick_;  // NaN: no frame since the reset
  uint32_t seq_base_ = 0;
  uint32_t newest_seq_ = 0;
  double timeline_offset_;  // client time of tick T = T * tick_ms + offset (NaN: no ack yet)
  double fallback_offset_;
  double correction_x_ = 0;
  double correction_y_ = 0;
  double corrected_at_;
  double largest_correction_ = 0;
  uint64_t snaps_ = 0;
};

}  // namespace zs::client
