#include "zs_client/interpolation.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "zs_client/protocol.h"

namespace zs::client {

double LerpFacing(double a, double b, double t) {
  constexpr double kFullTurn = kTurn;
  double d = b - a;
  if (d > kFullTurn / 2) {
    d -= kFullTurn;
  } else if (d < -kFullTurn / 2) {
    d += kFullTurn;
  }
  const double f = std::fmod(a + d * t, kFullTurn);
  return f < 0 ? f + kFullTurn : f;
}

double MotionTrack::newest_tick() const {
  return count_ == 0 ? std::numeric_limits<double>::quiet_NaN() : Back(0).tick;
}

void MotionTrack::Reset(double tick, double x, double y, double facing) {
  count_ = 0;
  Write(tick, x, y, facing);
}

void MotionTrack::Push(double tick, double x, double y, double facing) {
  if (count_ == 0) return Write(tick, x, y, facing);
  Sample& last = ring_[head_];
  if (tick == last.tick) {
    last = Sample{.tick = tick, .x = x, .y = y, .facing = facing};
    return;
  }
  if (tick < last.tick || std::hypot(x - last.x, y - last.y) > kSnapCm) {
    if (tick < last.tick) return Reset(tick, x, y, facing);  // time went back: afresh
    // A teleport: the old position is held until just before the new one's tick.
    if (tick - 1e-3 > last.tick) Write(tick - 1e-3, last.x, last.y, last.facing);
    return Write(tick, x, y, facing);
  }
  if (tick - last.tick > kMaxBlendGapTicks) Write(tick - 1, last.x, last.y, last.facing);
  Write(tick, x, y, facing);
}

void MotionTrack::Write(double tick, double x, double y, double facing) {
  head_ = count_ == 0 ? 0 : (head_ + 1) % kCapacity;
  ring_[head_] = Sample{.tick = tick, .x = x, .y = y, .facing = facing};
  count_ = std::min(count_ + 1, kCapacity);
}

bool MotionTrack::StateAt(double tick, MotionState* out) const {
  if (count_ == 0) return false;
  const Sample* newer = &Back(0);
  if (tick >= newer->tick) {  // past the newest: extrapolate a little with the last velocity
    *out = MotionState{.x = newer->x, .y = newer->y, .facing = newer->facing};
    if (count_ >= 2) {
      const Sample& older = Back(1);
      const double dt = newer->tick - older.tick;
      const double ahead = std::min(tick - newer->tick, kMaxExtrapolationTicks);
      if (dt > 0 && dt <= 2 && ahead > 0) {
        out->x += (newer->x - older.x) / dt * ahead;
        out->y += (newer->y - older.y) / dt * ahead;
      }
    }
    return true;
  }
  for (size_t k = 1; k < count_; ++k) {
    const Sample& older = Back(k);
    if (older.tick <= tick) {
      const double a = (tick - older.tick) / (newer->tick - older.tick);
      *out = MotionState{.x = older.x + (newer->x - older.x) * a,
                         .y = older.y + (newer->y - older.y) * a,
                         .facing = LerpFacing(older.facing, newer->facing, a)};
      return true;
    }
    newer = &older;
  }
  *out = MotionState{.x = newer->x, .y = newer->y, .facing = newer->facing};  // the oldest kept
  return true;
}

void Interpolation::Forget() {
  for (auto& [id, tracked] : tracks_) aside_.insert_or_assign(id, tracked);
  tracks_.clear();
}

void Interpolation::EndFrame() { aside_.clear(); }

void Interpolation::Clear() {
  tracks_.clear();
  aside_.clear();
}

void Interpolation::Enter(const Entity& e, uint64_t tick) {
  const auto t = static_cast<double>(tick);
  const auto kept = aside_.find(e.id);
  if (kept != aside_.end() && kept->second.kind == e.kind &&
      kept->second.template_id == e.template_id) {
    Tracked& tracked = tracks_.insert_or_assign(e.id, kept->second).first->second;
    aside_.erase(kept);
    tracked.track.Push(t, e.x, e.y, e.facing);
    return;
  }
  Tracked& tracked =
      tracks_
          .insert_or_assign(e.id,
                            Tracked{.kind = e.kind, .template_id = e.template_id, .track = {}})
          .first->second;
  tracked.track.Reset(t, e.x, e.y, e.facing);
}

void Interpolation::Change(const Entity& e, uint64_t tick) {
  const auto it = tracks_.find(e.id);
  if (it == tracks_.end()) return Enter(e, tick);
  MotionTrack& track = it->second.track;
  MotionState newest;
  // Only a move or a turn is news for the track (an hp change is not a sample).
  if (track.StateAt(track.newest_tick(), &newest) && newest.x == e.x && newest.y == e.y &&
      newest.facing == e.facing) {
    return;
  }
  track.Push(static_cast<double>(tick), e.x, e.y, e.facing);
}

void Interpolation::Leave(uint32_t id) { tracks_.erase(id); }

bool Interpolation::StateAt(uint32_t id, double render_tick, MotionState* out) const {
  const MotionTrack* track = Find(id);
  return track != nullptr && track->StateAt(render_tick, out);
}

const MotionTrack* Interpolation::Find(uint32_t id) const {
  const auto it = tracks_.find(id);
  return it == tracks_.end() ? nullptr : &it->second.track;
}

}  // namespace zs::client
