#include "wire/protocol.h"

#include <google/protobuf/io/coded_stream.h>

#include <algorithm>
#include <cmath>

#include "zone.pb.h"

namespace zs::wire {

namespace pb = ::zs::zone::v1;  // the generated protocol types

const char* ParseErrorName(ParseError e) {
  switch (e) {
    case ParseError::kNone:
      return "none";
    case ParseError::kUnparsable:
      return "unparsable";
    case ParseError::kEmpty:
      return "unknown_message";
    case ParseError::kBadValue:
      return "bad_value";
    case ParseError::kBadName:
      return "bad_name";
  }
  return "unknown";
}

int32_t ToCentimetres(float metres) {
  const double cm = std::round(static_cast<double>(metres) * 100.0);
  return static_cast<int32_t>(std::clamp(cm, -2.0e9, 2.0e9));
}
float FromCentimetres(int32_t cm) { return static_cast<float>(cm) / 100.0f; }

uint32_t ToTurn16(float radians) {
  const double turns = static_cast<double>(NormalizeAngle(radians)) / (2.0 * kPi);
  return static_cast<uint32_t>(std::lround(turns * 65536.0)) & 0xFFFFu;
}
float FromTurn16(uint32_t turn) {
  return NormalizeAngle(static_cast<float>(turn & 0xFFFFu) * (2.0f * kPi / 65536.0f));
}

ParseError ParseClientMessage(std::string_view frame, int recursion_limit, ClientIntent* out) {
  pb::ClientMessage msg;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(frame.data()),
                                            static_cast<int>(frame.size()));
  in.SetRecursionLimit(recursion_limit);
  if (!msg.MergeFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
    return ParseError::kUnparsable;
  }
  switch (msg.kind_case()) {
    case pb::ClientMessage::kHello: {
      out->kind = ClientKind::kHello;
      out->protocol_version = msg.hello().protocol_version();
      out->player_name = msg.hello().player_name();
      out->name_problem = CheckPlayerName(out->player_name);
      if (out->name_problem != NameProblem::kNone) return ParseError::kBadName;
      return ParseError::kNone;
    }
    case pb::ClientMessage::kMove: {
      const pb::MoveInput& m = msg.move();
      out->kind = ClientKind::kMove;
      out->move = {kInvalidEntity, m.seq(), {m.direction_x(), m.direction_y()}};
      return IsFinite(out->move.direction) ? ParseError::kNone : ParseError::kBadValue;
    }
    case pb::ClientMessage::kSkill: {
      const pb::SkillInput& s = msg.skill();
      out->kind = ClientKind::kSkill;
      if (s.facing() > 0xFFFFu) return ParseError::kBadValue;
      out->skill = {kInvalidEntity,
                    s.seq(),
                    s.skill_id(),
                    FromTurn16(s.facing()),
                    {FromCentimetres(s.target_x()), FromCentimetres(s.target_y())}};
      return ParseError::kNone;
    }
    case pb::ClientMessage::kPing:
      out->kind = ClientKind::kPing;
      out->client_time = msg.ping().client_time();
      return ParseError::kNone;
    case pb::ClientMessage::kLogout:
      out->kind = ClientKind::kLogout;
      return ParseError::kNone;
    case pb::ClientMessage::KIND_NOT_SET:
      break;
  }
  return ParseError::kEmpty;
}

}  // namespace zs::wire
