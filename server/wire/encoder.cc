#include "wire/encoder.h"

#include <algorithm>

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

uint32_t Centimetres(float metres) { return static_cast<uint32_t>(ToCentimetres(metres)); }

uint32_t Milliseconds(uint32_t ticks, uint32_t tick_rate) {
  return static_cast<uint32_t>(static_cast<uint64_t>(ticks) * 1000 / std::max(tick_rate, 1u));
}

pb::SkillShape ShapeOf(zone::SkillShape s) {
  switch (s) {
    case zone::SkillShape::kArc:
      return pb::SKILL_SHAPE_ARC;
    case zone::SkillShape::kCircle:
      return pb::SKILL_SHAPE_CIRCLE;
    case zone::SkillShape::kLine:
      return pb::SKILL_SHAPE_LINE;
  }
  return pb::SKILL_SHAPE_UNSPECIFIED;
}

void DescribeSkill(const zone::SkillDef& s, uint32_t tick_rate, pb::SkillInfo* out) {
  out->set_id(s.id);
  out->set_name(s.name);
  out->set_shape(ShapeOf(s.shape));
  out->set_range(Centimetres(s.range));
  out->set_radius(Centimetres(s.radius));
  out->set_half_angle(ToTurn16(s.half_angle));
  out->set_width(Centimetres(s.width));
  out->set_cast_range(Centimetres(s.cast_range));
  out->set_cooldown_ms(Milliseconds(s.cooldown_ticks, tick_rate));
  out->set_damage(s.damage);
  out->set_max_targets(s.max_targets);
}

void DescribeCharacter(const zone::WorldConfig& world, const zone::ZoneConfig& zone,
                       const zone::PlayerSnapshot& state, pb::CharacterInfo* you) {
  const zone::PlayerTemplate& p = world.player;
  you->set_hp(state.hp);
  you->set_dead(!state.alive);
  you->set_respawn_in_ms(state.alive ? 0 : state.respawn_ms);
  you->set_max_hp(p.max_hp);
  you->set_radius(Centimetres(p.radius));
  you->set_speed(Centimetres(p.speed));
  you->set_view_radius(Centimetres(zone.view_radius));
  you->set_respawn_ms(Milliseconds(p.respawn_ticks, world.tick_rate));
  for (const uint32_t id : p.skills) {
    if (const zone::SkillDef* s = world.FindSkill(id)) {
      pb::SkillInfo* info = you->add_skills();
      DescribeSkill(*s, world.tick_rate, info);
      for (uint32_t c = 0; c < state.num_cooldowns; ++c) {
        if (state.cooldowns[c].skill == id) info->set_ready_in_ms(state.cooldowns[c].remaining_ms);
      }
    }
  }
}

}  // namespace

std::string WelcomeFrame(const WelcomeInfo& info) {
  const zone::ZoneConfig& zone = *info.zone;
  const zone::WorldConfig& world = *info.world;
  pb::ServerMessage m;
  pb::Welcome* w = m.mutable_welcome();
  w->set_protocol_version(kProtocolVersion);
  w->set_entity_id(ToRaw(info.player));
  w->set_zone_id(zone.id);
  w->set_zone_name(zone.name);
  SetBounds(zone.bounds, w);
  w->set_tick_rate(world.tick_rate);
  w->set_server_tick(info.server_tick);
  w->set_x(ToCentimetres(info.state->position.x));
  w->set_y(ToCentimetres(info.state->position.y));
  w->set_facing(ToTurn16(info.state->facing));
  w->set_player_name(std::string(info.name));
  w->set_server_time_ms(info.server_time_ms);
  w->set_chat_radius(Centimetres(zone.chat_radius));
  DescribeCharacter(world, zone, *info.state, w->mutable_you());
  for (const zone::MonsterTemplate& t : world.monsters) {
    pb::MonsterTemplate* mt = w->add_monster_templates();
    mt->set_id(t.id);
    mt->set_name(t.name);
    mt->set_radius(Centimetres(t.radius));
    mt->set_max_hp(t.max_hp);
  }
  return Frame(m);
}

std::string ZoneChangedFrame(const zone::ZoneConfig& zone, Vec2 arrival, const OtherServer& there) {
  pb::ServerMessage m;
  pb::ZoneChanged* z = m.mutable_zone_changed();
  z->set_zone_id(zone.id);
  z->set_zone_name(zone.name);
  z->set_zone_min_x(ToCentimetres(zone.bounds.min.x));
  z->set_zone_min_y(ToCentimetres(zone.bounds.min.y));
  z->set_zone_max_x(ToCentimetres(zone.bounds.max.x));
  z->set_zone_max_y(ToCentimetres(zone.bounds.max.y));
  z->set_chat_radius(static_cast<uint32_t>(ToCentimetres(zone.chat_radius)));
  z->set_view_radius(static_cast<uint32_t>(ToCentimetres(zone.view_radius)));
  z->set_x(ToCentimetres(arrival.x));
  z->set_y(ToCentimetres(arrival.y));
  z->set_server_address(std::string(there.address));
  z->set_ticket(std::string(there.ticket));
  z->set_websocket_url(std::string(there.websocket_url));
  return Frame(m);
}

std::string NoticeFrame(NoticeCode code, std::string_view text) {
  pb::ServerMessage m;
  m.mutable_notice()->set_code(static_cast<pb::NoticeCode>(code));
  m.mutable_notice()->set_text(std::string(text));
  return Frame(m);
}

std::string PongFrame(uint64_t client_time, uint64_t server_tick, uint64_t server_time_ms) {
  pb::ServerMessage m;
  m.mutable_pong()->set_client_time(client_time);
  m.mutable_pong()->set_server_tick(server_tick);
  m.mutable_pong()->set_server_time_ms(server_time_ms);
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

namespace {

void PutVarint(uint64_t v, Piece* p) {
  while (v >= 0x80) {
    p->bytes[p->size++] = static_cast<char>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  p->bytes[p->size++] = static_cast<char>(v);
}
void PutTag(int field, uint32_t wire_type, Piece* p) {
  PutVarint((static_cast<uint32_t>(field) << 3) | wire_type, p);
}
uint32_t ZigZag(int32_t v) {
  return (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31);
}
size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}
// A non-zero varint field, as proto3 writes it (zero is the default and is left out).
void PutField(int field, uint64_t v, std::string* out) {
  if (v == 0) return;
  Tag(static_cast<uint32_t>(field), 0, out);
  AppendVarint(v, out);
}
void PutPacked(int field, std::string_view bytes, std::string* out) {
  if (!bytes.empty()) LengthDelimited(static_cast<uint32_t>(field), bytes, out);
}

// Appends e's EntityEnter to *out.
void EncodeEnter(const zone::EntityState& e, std::string_view name, std::string* out) {
  using M = pb::EntityEnter;
  std::string& m = *out;
  PutField(M::kIdFieldNumber, ToRaw(e.id), &m);
  PutField(M::kKindFieldNumber,
           e.kind == zone::EntityKind::kPlayer ? pb::ENTITY_KIND_PLAYER : pb::ENTITY_KIND_MONSTER,
           &m);
  PutField(M::kTemplateIdFieldNumber, e.template_id, &m);
  PutField(M::kXFieldNumber, ZigZag(ToCentimetres(e.position.x)), &m);
  PutField(M::kYFieldNumber, ZigZag(ToCentimetres(e.position.y)), &m);
  PutField(M::kFacingFieldNumber, ToTurn16(e.facing), &m);
  PutField(M::kRadiusFieldNumber, static_cast<uint32_t>(ToCentimetres(e.radius)), &m);
  PutField(M::kHpFieldNumber, static_cast<uint64_t>(static_cast<int64_t>(e.hp)), &m);
  PutField(M::kMaxHpFieldNumber, static_cast<uint64_t>(static_cast<int64_t>(e.max_hp)), &m);
  PutField(M::kAliveFieldNumber, e.alive ? 1 : 0, &m);
  if (!name.empty()) LengthDelimited(M::kNameFieldNumber, name, &m);
}

}  // namespace

void TickEncoder::EncodeEntities(const zone::ZoneTickOutput& out, TaskRunner& runner) {
  using U = pb::EntityUpdate;
  const size_t n = out.states.size();
  fields_.resize(n);
  constexpr size_t kChunk = 1024;
  runner.ForEach((n + kChunk - 1) / kChunk, [&](size_t chunk, size_t) {
    for (size_t s = chunk * kChunk; s < std::min(n, (chunk + 1) * kChunk); ++s) {
      const zone::EntityState& e = out.states[s];
      Fields& f = fields_[s];
      f = Fields{};
      f.raw_id = ToRaw(e.id);
      PutTag(U::kIdFieldNumber, 0, &f.id);
      PutVarint(f.raw_id, &f.id);
      const int32_t x = ToCentimetres(e.position.x);
      const int32_t y = ToCentimetres(e.position.y);
      PutTag(U::kXFieldNumber, 0, &f.position);
      PutVarint(ZigZag(x), &f.position);
      PutTag(U::kYFieldNumber, 0, &f.position);
      PutVarint(ZigZag(y), &f.position);
      PutTag(U::kFacingFieldNumber, 0, &f.facing);
      PutVarint(ToTurn16(e.facing), &f.facing);
      PutVarint(ToTurn16(e.facing), &f.turn);
      PutTag(U::kHpFieldNumber, 0, &f.hp);
      PutVarint(static_cast<uint64_t>(static_cast<int64_t>(e.hp)), &f.hp);
      PutTag(U::kAliveFieldNumber, 0, &f.alive);
      PutVarint(e.alive ? 1 : 0, &f.alive);
      PutVarint(ZigZag(x - ToCentimetres(e.prev_position.x)), &f.delta);
      PutVarint(ZigZag(y - ToCentimetres(e.prev_position.y)), &f.delta);
    }
  });
  // Full states only for the entities someone sees enter this tick.
  need_enter_.assign(n, 0);
  for (const zone::PlayerView& v : out.views) {
    for (const uint32_t s : v.entered) need_enter_[s] = 1;
  }
  enter_.resize(n);
  for (size_t s = 0; s < n; ++s) {
    enter_[s].clear();
    if (need_enter_[s] == 0) continue;
    EncodeEnter(out.states[s], zone::NameOf(out.names, out.states[s]), &enter_[s]);
  }
}

void TickEncoder::EncodeHits(const zone::ZoneTickOutput& out) {
  hits_.resize(out.events.size());
  for (size_t i = 0; i < out.events.size(); ++i) {
    const zone::HitEvent& ev = out.events[i];
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
    hits_[i].clear();
    m.SerializeToString(&hits_[i]);
  }
}

void TickEncoder::EncodeChat(const zone::ZoneTickOutput& out) {
  chat_.resize(out.chat_lines.size());
  const auto name_of = [&out](EntityId id) -> std::string_view {
    if (out.names == nullptr || EntityIndex(id) >= out.names->size()) return {};
    return (*out.names)[EntityIndex(id)];
  };
  for (size_t i = 0; i < out.chat_lines.size(); ++i) {
    const zone::ChatLine& line = out.chat_lines[i];
    using C = pb::ChatLine;
    std::string body;
    PutField(C::kChannelFieldNumber, static_cast<uint32_t>(line.channel), &body);
    PutField(C::kFromIdFieldNumber, ToRaw(line.from), &body);
    const std::string_view from = line.from_name.empty() ? name_of(line.from) : line.from_name;
    LengthDelimited(C::kFromNameFieldNumber, from, &body);
    LengthDelimited(C::kTextFieldNumber, line.text, &body);
    if (line.to != kInvalidEntity) LengthDelimited(C::kToFieldNumber, name_of(line.to), &body);
    if (!line.to_name.empty()) LengthDelimited(C::kToFieldNumber, line.to_name, &body);
    chat_[i].clear();
    LengthDelimited(pb::TickUpdate::kChatFieldNumber, body, &chat_[i]);
  }
}

void TickEncoder::AppendChatAndResults(const zone::ZoneTickOutput& out, EntityId player,
                                       std::string* body) const {
  const auto by_recipient = [](const zone::ChatDelivery& d, uint32_t raw) {
    return ToRaw(d.recipient) < raw;
  };
  for (auto d = std::lower_bound(out.chat_deliveries.begin(), out.chat_deliveries.end(),
                                 ToRaw(player), by_recipient);
       d != out.chat_deliveries.end() && d->recipient == player; ++d) {
    body->append(chat_[d->line]);
  }
  const auto by_player = [](const zone::InputResult& r, uint32_t raw) {
    return ToRaw(r.player) < raw;
  };
  for (auto r = std::lower_bound(out.results.begin(), out.results.end(), ToRaw(player), by_player);
       r != out.results.end() && r->player == player; ++r) {
    using R = pb::InputResult;
    Piece p;
    PutTag(R::kKindFieldNumber, 0, &p);
    PutVarint(static_cast<uint32_t>(r->kind), &p);
    if (r->seq != 0) {
      PutTag(R::kSeqFieldNumber, 0, &p);
      PutVarint(r->seq, &p);
    }
    PutTag(R::kOutcomeFieldNumber, 0, &p);
    PutVarint(static_cast<uint32_t>(r->outcome), &p);
    LengthDelimited(pb::TickUpdate::kResultsFieldNumber, p.view(), body);
  }
}

size_t TickEncoder::UpdateBytes(uint32_t slot, uint8_t fields) const {
  std::string s;
  AppendUpdate(slot, fields, &s);
  return 1 + VarintSize(s.size()) + s.size();
}

size_t TickEncoder::MovedBytes(uint32_t slot, uint32_t prev_raw_id) const {
  return VarintSize(fields_[slot].raw_id - prev_raw_id) + fields_[slot].delta.size;
}

size_t TickEncoder::TurnedBytes(uint32_t slot, uint32_t prev_raw_id) const {
  return MovedBytes(slot, prev_raw_id) + fields_[slot].turn.size;
}

void TickEncoder::PutDeltas(std::span<const uint32_t> slots, int ids_field, int deltas_field,
                            std::string* packed, std::string* body) const {
  if (slots.empty()) return;
  packed->clear();
  uint32_t prev = 0;
  for (const uint32_t s : slots) {
    AppendVarint(fields_[s].raw_id - prev, packed);
    prev = fields_[s].raw_id;
  }
  PutPacked(ids_field, *packed, body);
  packed->clear();
  for (const uint32_t s : slots) packed->append(fields_[s].delta.view());
  PutPacked(deltas_field, *packed, body);
}

void TickEncoder::AppendUpdate(uint32_t slot, uint8_t fields, std::string* out) const {
  const Fields& f = fields_[slot];
  out->append(f.id.view());
  if (fields & zone::kChangedPosition) out->append(f.position.view());
  if (fields & zone::kChangedFacing) out->append(f.facing.view());
  if (fields & zone::kChangedHp) out->append(f.hp.view());
  if (fields & zone::kChangedAlive) out->append(f.alive.view());
}

std::optional<uint64_t> TickOfFrame(std::string_view frame) {
  size_t at = 0;
  uint64_t length = 0, tag = 0, body = 0, tick = 0;
  if (!ReadVarint(frame, &at, &length) || !ReadVarint(frame, &at, &tag) ||
      tag != ((pb::ServerMessage::kTickFieldNumber << 3) | 2) || !ReadVarint(frame, &at, &body) ||
      !ReadVarint(frame, &at, &tag) || tag != (pb::TickUpdate::kTickFieldNumber << 3) ||
      !ReadVarint(frame, &at, &tick)) {
    return std::nullopt;
  }
  return tick;
}

void TickEncoder::EncodeView(const zone::ZoneTickOutput& out, size_t view,
                             const ViewFraming& framing, Scratch& sc) {
  using T = pb::TickUpdate;
  const zone::PlayerView& v = out.views[view];
  std::string& body = sc.body;
  std::string& packed = sc.packed;
  body.clear();
  Tag(T::kTickFieldNumber, 0, &body);
  AppendVarint(out.tick + framing.tick_offset, &body);
  PutField(T::kLastInputSeqFieldNumber, v.last_input_seq, &body);
  packed.clear();
  AppendUpdate(v.self, out.changed[v.self], &packed);
  LengthDelimited(T::kSelfFieldNumber, packed, &body);
  for (const uint32_t s : v.entered) LengthDelimited(T::kEnteredFieldNumber, enter_[s], &body);
  for (const interest::UpdateRef& u : v.updated) {
    packed.clear();
    AppendUpdate(u.slot, u.fields, &packed);
    LengthDelimited(T::kUpdatedFieldNumber, packed, &body);
  }
  if (!framing.turned) {  // a client before kTurnedVersion: turns as absolute updates
    for (const uint32_t s : v.turned) {
      packed.clear();
      AppendUpdate(s, zone::kChangedPosition | zone::kChangedFacing, &packed);
      LengthDelimited(T::kUpdatedFieldNumber, packed, &body);
    }
  }
  packed.clear();
  for (const EntityId id : v.left) AppendVarint(ToRaw(id), &packed);
  PutPacked(T::kLeftFieldNumber, packed, &body);
  for (const uint32_t e : v.hits) LengthDelimited(T::kHitsFieldNumber, hits_[e], &body);
  if (framing.resync) PutField(T::kResyncFieldNumber, 1, &body);
  PutDeltas(v.moved, T::kMovedIdsFieldNumber, T::kMovedDeltasFieldNumber, &packed, &body);
  AppendChatAndResults(out, v.player, &body);
  if (framing.turned && !v.turned.empty()) {
    PutDeltas(v.turned, T::kTurnedIdsFieldNumber, T::kTurnedDeltasFieldNumber, &packed, &body);
    packed.clear();
    for (const uint32_t s : v.turned) packed.append(fields_[s].turn.view());
    PutPacked(T::kTurnedFacingsFieldNumber, packed, &body);
  }
  if (v.has_crowd) {
    using C = pb::CrowdSummary;
    const interest::CrowdSummary& c = v.crowd;
    std::string& crowd = sc.crowd;
    crowd.clear();
    PutField(C::kCenterXFieldNumber, ZigZag(ToCentimetres(c.center.x)), &crowd);
    PutField(C::kCenterYFieldNumber, ZigZag(ToCentimetres(c.center.y)), &crowd);
    PutField(C::kCellSizeFieldNumber, static_cast<uint32_t>(ToCentimetres(c.cell_size)), &crowd);
    PutField(C::kGridFieldNumber, c.grid, &crowd);
    packed.clear();
    for (const uint32_t count : c.counts) AppendVarint(count, &packed);
    PutPacked(C::kCountsFieldNumber, packed, &crowd);
    PutField(C::kTotalFieldNumber, c.total, &crowd);
    LengthDelimited(T::kCrowdFieldNumber, crowd, &body);
  }
  // Frame = varint(length of ServerMessage) + ServerMessage{tick: TickUpdate}.
  const size_t header = 1 + VarintSize(body.size());
  std::string& frame = frames_[view];
  frame.clear();
  AppendVarint(header + body.size(), &frame);
  Tag(pb::ServerMessage::kTickFieldNumber, 2, &frame);
  AppendVarint(body.size(), &frame);
  frame.append(body);
}

void TickEncoder::Encode(const zone::ZoneTickOutput& out, std::span<const ViewFraming> framing,
                         TaskRunner* runner) {
  InlineRunner inline_runner;
  TaskRunner& r = runner != nullptr ? *runner : inline_runner;
  scratch_.resize(r.workers());
  EncodeEntities(out, r);
  EncodeHits(out);
  EncodeChat(out);
  frames_.resize(out.views.size());
  r.ForEach(out.views.size(), [&](size_t view, size_t worker) {
    EncodeView(out, view, view < framing.size() ? framing[view] : ViewFraming{}, scratch_[worker]);
  });
}

}  // namespace zs::wire
