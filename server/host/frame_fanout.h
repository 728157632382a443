// FrameFanout: after each tick, every player of a zone gets exactly one frame. The zone's views
// are encoded once (wire::TickEncoder: shared per-entity pieces, one buffer per frame, on the
// worker pool) and each frame is handed to its player's session, which sends it or copies it,
// followed by a ZoneChanged for a player who walked through a portal.
// Thread: its zone runner's only (the encoder spreads its work on the runner it is given).
#pragma once

#include <cstdint>
#include <vector>

#include "core/task_runner.h"
#include "host/player_directory.h"
#include "wire/encoder.h"
#include "zone/world.h"

namespace zs::host {

class FrameFanout {
 public:
  explicit FrameFanout(size_t zones) : zones_(zones) {}

  // Encodes zone `zone`'s last output: one frame per player (resync flags and tick offsets taken
  // from `players`, each in its session's protocol version).
  void Encode(const zone::World& world, size_t zone, PlayerDirectory& players, TaskRunner* runner);
  // Hands every frame of the last Encode of `zone` to its player's session (its tick frame, then
  // any ZoneChanged), spread over `runner` (null: this thread). A session sends a frame on the
  // caller's thread when its socket is free (net::Session), so this is where most of a tick's
  // socket writes happen: in parallel, without a wake-up of the I/O threads per frame.
  void Deliver(const zone::World& world, size_t zone, TaskRunner* runner);
  // Bytes of view `view`'s tick frame in the last Deliver of `zone` (0: none was sent), for the
  // zone viewer's bytes per second of a player.
  [[nodiscard]] size_t FrameBytes(size_t zone, size_t view) const {
    const std::vector<uint32_t>& b = zones_[zone].bytes;
    return view < b.size() ? b[view] : 0;
  }

 private:
  void SendZoneChange(const zone::World& world, const zone::ZoneTickOutput& out, EntityId player,
                      SessionSink& sink) const;

  struct ZoneFrames {
    wire::TickEncoder encoder;
    std::vector<std::weak_ptr<SessionSink>> sink;  // by view, this tick (empty: no session)
    std::vector<wire::ViewFraming> framing;        // by view, this tick
    std::vector<uint32_t> bytes;                   // by view, this tick: the frame's size
  };
  std::vector<ZoneFrames> zones_;
};

}  // namespace zs::host
