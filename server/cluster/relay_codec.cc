#include "cluster/relay_codec.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <variant>

#include "cluster/cell_message.h"
#include "cluster/cluster_protocol.h"
#include "wire/chat_text.h"
#include "wire/encoder.h"
#include "wire/frame_codec.h"

namespace zs::cluster {

namespace {

v1::RelayFrameKind KindToProto(host::FrameKind kind) {
  switch (kind) {
    case host::FrameKind::kControl:
      return v1::RELAY_FRAME_KIND_CONTROL;
    case host::FrameKind::kTick:
      return v1::RELAY_FRAME_KIND_TICK;
    case host::FrameKind::kResyncTick:
      return v1::RELAY_FRAME_KIND_RESYNC;
  }
  return v1::RELAY_FRAME_KIND_UNSPECIFIED;
}

bool KindFromProto(v1::RelayFrameKind kind, host::FrameKind* out) {
  switch (kind) {
    case v1::RELAY_FRAME_KIND_CONTROL:
      *out = host::FrameKind::kControl;
      return true;
    case v1::RELAY_FRAME_KIND_TICK:
      *out = host::FrameKind::kTick;
      return true;
    case v1::RELAY_FRAME_KIND_RESYNC:
      *out = host::FrameKind::kResyncTick;
      return true;
    default:
      return false;
  }
}

void InputToProto(const host::ClientInput& input, v1::RelayInput* out) {
  out->Clear();
  if (std::holds_alternative<host::ResyncRequest>(input)) {
    out->set_resync(true);
  } else if (const auto* refused = std::get_if<host::RefusedInput>(&input)) {
    out->set_seq(refused->seq);
    out->mutable_refused()->set_kind(static_cast<uint32_t>(refused->kind));
    out->mutable_refused()->set_outcome(static_cast<uint32_t>(refused->outcome));
  } else if (const auto* in = std::get_if<zone::PlayerInput>(&input)) {
    out->set_seq(zone::SeqOf(*in));
    if (const auto* move = std::get_if<zone::MoveInput>(in)) {
      out->mutable_move()->set_x(move->direction.x);
      out->mutable_move()->set_y(move->direction.y);
    } else if (const auto* skill = std::get_if<zone::SkillInput>(in)) {
      v1::RelaySkill* s = out->mutable_skill();
      s->set_skill(skill->skill);
      s->set_facing(skill->facing);
      s->set_target_x(skill->target.x);
      s->set_target_y(skill->target.y);
    } else if (const auto* chat = std::get_if<zone::ChatInput>(in)) {
      v1::RelayChat* c = out->mutable_chat();
      c->set_channel(static_cast<uint32_t>(chat->channel));
      c->set_text(chat->text_ok ? chat->text : std::string());
      c->set_text_ok(chat->text_ok);
      c->set_to_name(chat->to_name);
    }
  }
}

bool Finite(float a, float b) { return std::isfinite(a) && std::isfinite(b); }

// The input, or false when a field is out of its range.
bool InputFromProto(const v1::RelayInput& in, host::ClientInput* out) {
  switch (in.what_case()) {
    case v1::RelayInput::kMove:
      if (!Finite(in.move().x(), in.move().y())) return false;
      *out = zone::PlayerInput{
          zone::MoveInput{.seq = in.seq(), .direction = {in.move().x(), in.move().y()}}};
      return true;
    case v1::RelayInput::kSkill: {
      const v1::RelaySkill& s = in.skill();
      if (!Finite(s.facing(), 0) || !Finite(s.target_x(), s.target_y())) return false;
      *out = zone::PlayerInput{zone::SkillInput{.seq = in.seq(),
                                                .skill = s.skill(),
                                                .facing = s.facing(),
                                                .target = {s.target_x(), s.target_y()}}};
      return true;
    }
    case v1::RelayInput::kChat: {
      const v1::RelayChat& c = in.chat();
      if (c.channel() < 1 || c.channel() > 3 || c.to_name().size() > kMaxRelayedName) return false;
      if (c.text_ok() ? !wire::IsChatText(c.text()) : !c.text().empty()) return false;
      *out =
          zone::PlayerInput{zone::ChatInput{.seq = in.seq(),
                                            .channel = static_cast<zone::ChatChannel>(c.channel()),
                                            .text = c.text(),
                                            .text_ok = c.text_ok(),
                                            .to_name = c.to_name()}};
      return true;
    }
    case v1::RelayInput::kResync:
      *out = host::ResyncRequest{};
      return true;
    case v1::RelayInput::kRefused: {
      const uint32_t kind = in.refused().kind();
      const uint32_t outcome = in.refused().outcome();
      if (kind < 1 || kind > 3 || outcome < 1 || outcome > 7) return false;
      *out = host::RefusedInput{.kind = static_cast<zone::InputKind>(kind),
                                .seq = in.seq(),
                                .outcome = static_cast<zone::Outcome>(outcome)};
      return true;
    }
    case v1::RelayInput::WHAT_NOT_SET:
      break;
  }
  return false;
}

// Exactly one whole client frame: a varint length prefix (at most 5 bytes) and that many bytes.
bool OneFrame(std::string_view frame) {
  if (frame.empty() || frame.size() > kMaxRelayedFrame) return false;
  size_t at = 0;
  uint64_t length = 0;
  return wire::ReadVarint(frame, &at, &length) && at <= 5 && at + length == frame.size();
}

// 1 .. kMaxHeldSessions sessions, each 1 .. kMaxRelayedSession.
bool HeldFromProto(const v1::RelayHeld& held, std::vector<uint64_t>* out) {
  const auto& sessions = held.sessions();
  if (sessions.empty() || static_cast<size_t>(sessions.size()) > kMaxHeldSessions) return false;
  out->assign(sessions.begin(), sessions.end());
  return std::all_of(out->begin(), out->end(),
                     [](uint64_t s) { return s != 0 && s <= host::kMaxRelayedSession; });
}

}  // namespace

void EncodeRelay(const RelayMessage& m, const std::string& node, v1::Relay* scratch,
                 std::string* out) {
  v1::Relay& r = *scratch;
  r.set_version(kClusterProtocolVersion);
  r.set_from_node(node);
  r.set_zone_id(m.to.zone);
  r.set_from_cell(m.from_cell);
  r.set_to_cell(m.to.to_cell);
  r.set_home_cell(m.to.home_cell);
  r.set_session(m.to.session);
  switch (m.what) {
    case RelayMessage::What::kInput:
      InputToProto(m.input, r.mutable_input());
      break;
    case RelayMessage::What::kFrame: {
      v1::RelayFrame* f = r.mutable_frame();
      f->set_frame(m.frame);
      f->set_kind(KindToProto(m.kind));
      f->set_close(m.close);
      break;
    }
    case RelayMessage::What::kLeave:
      r.set_leave(true);
      break;
    case RelayMessage::What::kHeld: {
      v1::RelayHeld* held = r.mutable_held();
      held->clear_sessions();
      for (const uint64_t s : m.sessions) held->add_sessions(s);
      break;
    }
  }
  r.SerializeToString(out);
}

std::optional<host::BorderRefusal> DecodeRelay(std::string_view bytes,
                                               const zone::WorldConfig& world, RelayMessage* out) {
  using host::BorderRefusal;
  v1::Relay m;
  const zone::ZoneConfig* z = nullptr;
  if (const auto refused = ParseCellMessage(bytes, kMaxRelayedFrame + 1024, world, &m, &z)) {
    return refused;
  }
  if (m.home_cell() >= z->cells.count()) return BorderRefusal::kNotSplit;
  const bool held = m.what_case() == v1::Relay::kHeld;
  if (held ? m.session() != 0 || m.home_cell() != m.from_cell()
           : m.session() == 0 || m.session() > host::kMaxRelayedSession) {
    return BorderRefusal::kUnparsable;
  }
  out->to = {.zone = m.zone_id(),
             .to_cell = m.to_cell(),
             .home_cell = m.home_cell(),
             .session = m.session()};
  out->from_cell = m.from_cell();
  switch (m.what_case()) {
    case v1::Relay::kInput:
      out->what = RelayMessage::What::kInput;
      if (!InputFromProto(m.input(), &out->input)) return BorderRefusal::kUnparsable;
      return std::nullopt;
    case v1::Relay::kFrame:
      out->what = RelayMessage::What::kFrame;
      // A close may come without a last frame; anything else is one whole frame.
      if (!KindFromProto(m.frame().kind(), &out->kind) ||
          (!OneFrame(m.frame().frame()) &&
           !(m.frame().frame().empty() && !m.frame().close().empty())) ||
          m.frame().close().size() > kMaxRelayedName) {
        return BorderRefusal::kUnparsable;
      }
      if (out->kind != host::FrameKind::kControl) {  // a TickUpdate: its tick, for the order
        const std::optional<uint64_t> tick = wire::TickOfFrame(m.frame().frame());
        if (!tick) return BorderRefusal::kUnparsable;
        out->tick = *tick;
      }
      out->frame = m.frame().frame();
      out->close = m.frame().close();
      return std::nullopt;
    case v1::Relay::kLeave:
      out->what = RelayMessage::What::kLeave;
      return std::nullopt;
    case v1::Relay::kHeld:
      out->what = RelayMessage::What::kHeld;
      if (!HeldFromProto(m.held(), &out->sessions)) return BorderRefusal::kUnparsable;
      return std::nullopt;
    case v1::Relay::WHAT_NOT_SET:
      break;
  }
  return BorderRefusal::kUnparsable;
}

}  // namespace zs::cluster
