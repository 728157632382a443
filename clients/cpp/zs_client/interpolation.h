// Interpolation of remote entities, as the TypeScript SDK's interpolation.ts: each entity keeps
// a MotionTrack of its recent positions by server tick, and StateAt(id, render_tick) gives where
// to draw it at a (fractional) tick some ticks behind the newest (Client::RenderTick picks it
// from the TickClock: one tick plus the arrival jitter plus a margin behind).
//
// Positions in a tick are where entities stand at its end. Between two samples a track
// interpolates linearly (facing along the shorter turn); a sample after a long silence (an
// entity that stood still, or a far one sent every few ticks) is preceded by a held copy of the
// last position, so a walker that starts again does not slide from long ago; a jump farther
// than kSnapCm (a respawn, a portal) is drawn as a jump. Past the newest sample it extrapolates
// with the last velocity for at most kMaxExtrapolationTicks, then holds.
//
// Interpolation keeps one track per entity the store knows, fed by the store's changes (Enter,
// Change, Leave). A Welcome or a resync forgets every entity and the next frame lists them
// again: Forget() keeps their tracks aside until that frame ends (EndFrame), so an entity that
// comes back with the same kind and template goes on smoothly instead of starting afresh.
//
// Storage: a fixed ring of 16 samples per track (no allocation per frame); one hash-map node
// per entity. Pure: the caller passes ticks. Not thread-safe: one owner.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "zs_client/entity_store.h"

namespace zs::client {

// Where to draw an entity: centimetres and 1/65536 turn, fractional.
struct MotionState {
  double x = 0;
  double y = 0;
  double facing = 0;
};

// Facing between `a` and `b` along the shorter turn, `t` in [0, 1]; in [0, 65536).
[[nodiscard]] double LerpFacing(double a, double b, double t);

class MotionTrack {
 public:
  static constexpr size_t kCapacity = 16;
  // Samples farther apart than this (ticks) are not blended: the older is held until just
  // before the newer.
  static constexpr double kMaxBlendGapTicks = 10;
  // A step longer than this (cm) is drawn as a jump.
  static constexpr double kSnapCm = 2000;
  // How far past its newest sample an entity is extrapolated (ticks).
  static constexpr double kMaxExtrapolationTicks = 2;

  void Reset(double tick, double x, double y, double facing);
  void Push(double tick, double x, double y, double facing);
  // Where the entity stands at `tick`; false when the track is empty.
  bool StateAt(double tick, MotionState* out) const;

  [[nodiscard]] size_t size() const { return count_; }
  [[nodiscard]] double newest_tick() const;

 private:
  struct Sample {
    double tick = 0;
    double x = 0;
    double y = 0;
    double facing = 0;
  };
  void Write(double tick, double x, double y, double facing);
  [[nodiscard]] const Sample& Back(size_t k) const {  // k = 0: the newest
    return ring_[(head_ + kCapacity - k) % kCapacity];
  }

  std::array<Sample, kCapacity> ring_{};
  size_t head_ = 0;  // index of the newest sample
  size_t count_ = 0;
};

class Interpolation {
 public:
  // Every track goes aside until EndFrame (a Welcome or a resync: the next frame lists all).
  void Forget();
  // A tick frame was applied: what was kept aside and did not come back is dropped.
  void EndFrame();
  // Drops everything (a zone change: another zone's entities and ticks).
  void Clear();

  // The store's changes, at `tick` (the frame's tick being applied).
  void Enter(const Entity& entity, uint64_t tick);
  void Change(const Entity& entity, uint64_t tick);
  void Leave(uint32_t id);

  // Where to draw entity `id` at `render_tick`; false when it has no track.
  bool StateAt(uint32_t id, double render_tick, MotionState* out) const;
  [[nodiscard]] const MotionTrack* Find(uint32_t id) const;
  [[nodiscard]] size_t size() const { return tracks_.size(); }

 private:
  struct Tracked {
    EntityKind kind = EntityKind::kPlayer;
    uint32_t template_id = 0;
    MotionTrack track;
  };
  std::unordered_map<uint32_t, Tracked> tracks_;
  std::unordered_map<uint32_t, Tracked> aside_;
};

}  // namespace zs::client
