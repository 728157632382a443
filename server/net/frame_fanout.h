// FrameFanout: after each tick, every player of a zone gets exactly one frame. The zone's views
// are encoded once (wire::TickEncoder: shared per-entity pieces, one buffer per frame, on the
// worker pool) and each frame is handed to its player's session without a copy, followed by a
// ZoneChanged for a player who walked through a portal.
// Thread: the tick loop's only (the encoder spreads its work on the runner it is given).
#pragma once

#include <cstdint>
#include <vector>

#include "core/task_runner.h"
#include "net/player_directory.h"
#include "wire/encoder.h"
#include "zone/world.h"

namespace zs::net {

class FrameFanout {
 public:
  explicit FrameFanout(size_t zones) : encoders_(zones) {}

  // Encodes zone `zone`'s last output and delivers every frame.
  void Send(const zone::World& world, size_t zone, PlayerDirectory& players, TaskRunner* runner);

 private:
  void SendZoneChange(const zone::World& world, const zone::ZoneTickOutput& out, EntityId player,
                      SessionSink& sink) const;

  std::vector<wire::TickEncoder> encoders_;       // by zone
  std::vector<PlayerDirectory::Player*> player_;  // by view, this tick
  std::vector<uint8_t> resync_;                   // by view, this tick
};

}  // namespace zs::net
