#include "zs_client/events.h"

#include "zone.pb.h"

namespace zs::client {
namespace pb = zone::v1;
namespace {

void CollectTick(const pb::TickUpdate& t, std::vector<Event>* out) {
  for (const pb::HitEvent& h : t.hits()) {
    HitEvent hit{.attacker = h.attacker(),
                 .skill_id = h.skill_id(),
                 .origin_x = h.origin_x(),
                 .origin_y = h.origin_y(),
                 .facing = h.facing(),
                 .targets = {}};
    for (const pb::HitTarget& target : h.targets()) {
      hit.targets.push_back(
          HitTarget{.id = target.id(), .damage = target.damage(), .killed = target.killed()});
    }
    out->emplace_back(std::move(hit));
  }
  for (const pb::ChatLine& c : t.chat()) {
    out->emplace_back(ChatEvent{.channel = c.channel(),
                                .from_id = c.from_id(),
                                .from_name = c.from_name(),
                                .text = c.text(),
                                .to = c.to()});
  }
  for (const pb::InputResult& r : t.results()) {
    out->emplace_back(ResultEvent{.kind = r.kind(), .seq = r.seq(), .outcome = r.outcome()});
  }
}

}  // namespace

void CollectEvents(const pb::ServerMessage& m, std::vector<Event>* out) {
  switch (m.kind_case()) {
    case pb::ServerMessage::kTick:
      CollectTick(m.tick(), out);
      break;
    case pb::ServerMessage::kZoneChanged:
      out->emplace_back(ZoneChangedEvent{.zone_id = m.zone_changed().zone_id(),
                                         .zone_name = m.zone_changed().zone_name(),
                                         .server_address = m.zone_changed().server_address(),
                                         .ticket = m.zone_changed().ticket(),
                                         .websocket_url = m.zone_changed().websocket_url()});
      break;
    case pb::ServerMessage::kKick:
      out->emplace_back(KickEvent{.reason = m.kick().reason()});
      break;
    case pb::ServerMessage::kError:
      out->emplace_back(ErrorEvent{.code = m.error().code(), .message = m.error().message()});
      break;
    case pb::ServerMessage::kNotice:
      out->emplace_back(NoticeEvent{.code = m.notice().code(), .text = m.notice().text()});
      break;
    default:
      break;  // Welcome, Pong: read by their own owners (the store, the clock)
  }
}

}  // namespace zs::client
