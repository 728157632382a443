#include "wire/encoder.h"

#include "wire/frame_codec.h"
#include "wire/protocol.h"
#include "zone.pb.h"

namespace zs::wire {

namespace pb = ::zs::zone::v1;  // the generated protocol types

namespace {

std::string Frame(const pb::ServerMessage& msg) {
  std::string body;
  msg.SerializeToString(&body);
  std::string out;
  AppendFrame(body, &out);
  return out;
}

void SetBounds(const Aabb& b, pb::Welcome* w) {
  w->set_zone_min_x(ToCentimetres(b.min.x));
  w->set_zone_min_y(ToCentimetres(b.min.y));
  w->set_zone_max_x(ToCentimetres(b.max.x));
  w->set_zone_max_y(ToCentimetres(b.max.y));
}

// Protobuf wire format, by hand, for assembling TickUpdate from pre-encoded pieces.
void Tag(uint32_t field, uint32_t wire_type, std::string* out) {
  AppendVarint((field << 3) | wire_type, out);
}
void LengthDelimited(uint32_t field, std::string_view bytes, std::string* out) {
  Tag(field, 2, out);
  AppendVarint(bytes.size(), out);
  out->append(bytes);
}

void EncodeUpdate(const zone::EntityState& e, uint8_t changed, std::string* scratch,
                  std::string* out) {
  pb::EntityUpdate u;
  u.set_id(ToRaw(e.id));
  if (changed & zone::kChangedPosition) {
    u.set_x(ToCentimetres(e.position.x));
    u.set_y(ToCentimetres(e.position.y));
  }
  if (changed & zone::kChangedFacing) u.set_facing(ToTurn16(e.facing));
  if (changed & zone::kChangedHp) u.set_hp(e.hp);
  if (changed & zone::kChangedAlive) u.set_alive(e.alive);
  scratch->clear();
  u.SerializeToString(scratch);
  out->append(*scratch);
}

}  // namespace

std::string WelcomeFrame(EntityId player, Vec2 position, const zone::ZoneConfig& zone,
                         uint32_t tick_rate, uint64_t server_tick) {
  pb::ServerMessage m;
  pb::Welcome* w = m.mutable_welcome();
  w->set_protocol_version(kProtocolVersion);
  w->set_entity_id(ToRaw(player));
  w->set_zone_id(zone.id);
  w->set_zone_name(zone.name);
  SetBounds(zone.bounds, w);
  w->set_tick_rate(tick_rate);
  w->set_server_tick(server_tick);
  w->set_x(ToCentimetres(position.x));
  w->set_y(ToCentimetres(position.y));
  return Frame(m);
}

std::string ZoneChangedFrame(const zone::ZoneConfig& zone, Vec2 arrival) {
  pb::ServerMessage m;
  pb::ZoneChanged* z = m.mutable_zone_changed();
  z->set_zone_id(zone.id);
  z->set_zone_name(zone.name);
  z->set_zone_min_x(ToCentimetres(zone.bounds.min.x));
  z->set_zone_min_y(ToCentimetres(zone.bounds.min.y));
  z->set_zone_max_x(ToCentimetres(zone.bounds.max.x));
  z->set_zone_max_y(ToCentimetres(zone.bounds.max.y));
  z->set_x(ToCentimetres(arrival.x));
  z->set_y(ToCentimetres(arrival.y));
  return Frame(m);
}

std::string PongFrame(uint64_t client_time, uint64_t server_tick) {
  pb::ServerMessage m;
  m.mutable_pong()->set_client_time(client_time);
  m.mutable_pong()->set_server_tick(server_tick);
  return Frame(m);
}

std::string ErrorFrame(ErrorCode code, std::string_view message) {
  pb::ServerMessage m;
  m.mutable_error()->set_code(static_cast<pb::ErrorCode>(code));
  m.mutable_error()->set_message(std::string(message));
  return Frame(m);
}

std::string KickFrame(std::string_view reason) {
  pb::ServerMessage m;
  m.mutable_kick()->set_reason(std::string(reason));
  return Frame(m);
}

void TickEncoder::Encode(const zone::ZoneTickOutput& out, std::span<const uint8_t> resync) {
  // 1. Each entity, once: its full state, its changes, its "self" update.
  enter_.Clear();
  update_.Clear();
  self_.Clear();
  for (size_t s = 0; s < out.states.size(); ++s) {
    const zone::EntityState& e = out.states[s];
    pb::EntityEnter m;
    m.set_id(ToRaw(e.id));
    m.set_kind(e.kind == zone::EntityKind::kPlayer ? pb::ENTITY_KIND_PLAYER
                                                   : pb::ENTITY_KIND_MONSTER);
    m.set_template_id(e.template_id);
    m.set_x(ToCentimetres(e.position.x));
    m.set_y(ToCentimetres(e.position.y));
    m.set_facing(ToTurn16(e.facing));
    m.set_radius(static_cast<uint32_t>(ToCentimetres(e.radius)));
    m.set_hp(e.hp);
    m.set_max_hp(e.max_hp);
    m.set_alive(e.alive);
    scratch_.clear();
    m.SerializeToString(&scratch_);
    enter_.bytes.append(scratch_);
    enter_.Close();
    if (out.changed[s] != 0) EncodeUpdate(e, out.changed[s], &scratch_, &update_.bytes);
    update_.Close();
    if (e.kind == zone::EntityKind::kPlayer) {
      EncodeUpdate(e, out.changed[s], &scratch_, &self_.bytes);
    }
    self_.Close();
  }
  // 2. Each hit event, once.
  hits_.Clear();
  for (const zone::HitEvent& ev : out.events) {
    pb::HitEvent m;
    m.set_attacker(ToRaw(ev.attacker));
    m.set_skill_id(ev.skill);
    m.set_origin_x(ToCentimetres(ev.origin.x));
    m.set_origin_y(ToCentimetres(ev.origin.y));
    m.set_facing(ToTurn16(ev.facing));
    for (uint32_t t = 0; t < ev.num_targets; ++t) {
      const zone::HitTarget& h = out.targets[ev.first_target + t];
      pb::HitTarget* target = m.add_targets();
      target->set_id(ToRaw(h.target));
      target->set_damage(h.damage);
      target->set_killed(h.killed);
    }
    scratch_.clear();
    m.SerializeToString(&scratch_);
    hits_.bytes.append(scratch_);
    hits_.Close();
  }
  // 3. Each view: copy pieces into a TickUpdate, wrap it as ServerMessage.tick, frame it.
  frames_.clear();
  frame_off_.assign(1, 0);
  for (size_t vi = 0; vi < out.views.size(); ++vi) {
    const zone::PlayerView& v = out.views[vi];
    body_.clear();
    Tag(1, 0, &body_);
    AppendVarint(out.tick, &body_);
    if (v.last_input_seq != 0) {
      Tag(2, 0, &body_);
      AppendVarint(v.last_input_seq, &body_);
    }
    LengthDelimited(3, self_.Get(v.self), &body_);
    for (uint32_t k = v.entered.begin; k < v.entered.end; ++k) {
      LengthDelimited(4, enter_.Get(out.slot_refs[k]), &body_);
    }
    for (uint32_t k = v.updated.begin; k < v.updated.end; ++k) {
      LengthDelimited(5, update_.Get(out.slot_refs[k]), &body_);
    }
    if (v.left.size() > 0) {
      scratch_.clear();
      for (uint32_t k = v.left.begin; k < v.left.end; ++k) {
        AppendVarint(ToRaw(out.left_ids[k]), &scratch_);
      }
      LengthDelimited(6, scratch_, &body_);  // packed repeated uint32
    }
    for (uint32_t k = v.hits.begin; k < v.hits.end; ++k) {
      LengthDelimited(7, hits_.Get(out.hit_refs[k]), &body_);
    }
    if (vi < resync.size() && resync[vi] != 0) {
      Tag(8, 0, &body_);
      AppendVarint(1, &body_);
    }
    // Frame = varint(length of ServerMessage) + ServerMessage{tick = 2: TickUpdate}. Write the
    // two headers, then copy the body once.
    scratch_.clear();
    Tag(2, 2, &scratch_);
    AppendVarint(body_.size(), &scratch_);
    AppendVarint(scratch_.size() + body_.size(), &frames_);
    frames_.append(scratch_);
    frames_.append(body_);
    frame_off_.push_back(static_cast<uint32_t>(frames_.size()));
  }
}

}  // namespace zs::wire
