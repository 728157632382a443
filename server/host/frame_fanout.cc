#include "host/frame_fanout.h"

#include <memory>

#include "wire/protocol.h"

namespace zs::host {

void FrameFanout::Encode(const zone::World& world, size_t zone, PlayerDirectory& players,
                         TaskRunner* runner) {
  const zone::ZoneTickOutput& out = world.output(zone);
  ZoneFrames& z = zones_[zone];
  z.sink.assign(out.views.size(), {});
  z.framing.assign(out.views.size(), {});
  for (size_t v = 0; v < out.views.size(); ++v) {  // each view's player, looked up once
    PlayerDirectory::Player* p = players.ByEntity(out.views[v].player);
    if (p == nullptr) continue;
    z.sink[v] = p->sink;
    const std::shared_ptr<SessionSink> sink = p->sink.lock();
    z.framing[v] = {.resync = p->resync,
                    .turned = sink && sink->ProtocolVersion() >= wire::kTurnedVersion,
                    .tick_offset = p->tick_offset};
    p->resync = false;
  }
  z.encoder.Encode(out, z.framing, runner);
}

void FrameFanout::Deliver(const zone::World& world, size_t zone, TaskRunner* runner) {
  const zone::ZoneTickOutput& out = world.output(zone);
  ZoneFrames& z = zones_[zone];
  z.bytes.assign(out.views.size(), 0);
  InlineRunner inline_runner;
  TaskRunner& r = runner != nullptr ? *runner : inline_runner;
  r.ForEach(out.views.size(), [&](size_t v, size_t /*worker*/) {
    const std::shared_ptr<SessionSink> sink = z.sink[v].lock();
    if (!sink) return;
    const std::string& frame = z.encoder.Frame(v);
    z.bytes[v] = static_cast<uint32_t>(frame.size());
    sink->DeliverFrame(frame, z.framing[v].resync ? FrameKind::kResyncTick : FrameKind::kTick);
    if (out.views[v].zone_changed) SendZoneChange(world, out, out.views[v].player, *sink);
  });
}

void FrameFanout::SendZoneChange(const zone::World& world, const zone::ZoneTickOutput& out,
                                 EntityId player, SessionSink& sink) const {
  for (const zone::Transfer& t : out.transfers) {
    if (t.player != player) continue;
    const std::optional<size_t> dest = world.ZoneIndexById(t.target_zone);
    if (!dest) continue;
    const zone::Entity* arrived = world.zone(*dest).store().Find(player);
    sink.DeliverFrame(wire::ZoneChangedFrame(world.zone(*dest).config(),
                                             arrived ? arrived->position : t.target_position),
                      FrameKind::kControl);
  }
}

}  // namespace zs::host
