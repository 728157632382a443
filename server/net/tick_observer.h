// TickObserver: something that looks at the world after each tick (the zone viewer), called by
// ZoneRunner on its thread once every frame of the tick has been handed out. It must be quick
// and must not block (the tick waits for it) and sees the world read-only.
#pragma once

#include "zone/world.h"

namespace zs::net {

class FrameFanout;

class TickObserver {
 public:
  virtual ~TickObserver() = default;
  // REQUIRES: its zone runner's thread.
  virtual void AfterTick(const zone::World& world, const FrameFanout& fanout) = 0;
};

}  // namespace zs::net
