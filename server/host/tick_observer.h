// TickObserver: something that looks at the world after each tick (the zone viewer), called by
// ZoneRunner on its thread once every frame of the tick has been handed out. It must be quick
// and must not block (the tick waits for it) and sees the world read-only.
//
// The runner also passes what it measured of its own ticks (TickTiming): with one runner per
// zone, each observer reports its own zone's tick time, never a process-wide "last tick" that
// whichever runner ticked last has written. The zone core stays pure: timing is taken here, in
// net, by the runner.
#pragma once

#include "zone/world.h"

namespace zs::host {

class FrameFanout;

struct TickTiming {
  // The work of this runner's last completed tick (Step, from its start to its end), in seconds:
  // the previous tick's, since the current one is still running while its observer runs. 0
  // before the first tick completes (and when a test steps the runner by hand).
  double last_tick_seconds = 0;
};

class TickObserver {
 public:
  virtual ~TickObserver() = default;
  // REQUIRES: its zone runner's thread.
  virtual void AfterTick(const zone::World& world, const FrameFanout& fanout,
                         const TickTiming& timing) = 0;
};

}  // namespace zs::host
