#include "wire/protocol.h"

#include <google/protobuf/io/coded_stream.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "client_bytes.pb.h"
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
  // The twin with strings as bytes (client_bytes.proto): protobuf's parse without its UTF-8
  // check, so a string that is not UTF-8 is judged by our rules below.
  bytes::ClientMessage msg;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(frame.data()),
                                            static_cast<int>(frame.size()));
  in.SetRecursionLimit(recursion_limit);
  if (!msg.MergeFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
    return ParseError::kUnparsable;
  }
  switch (msg.kind_case()) {
    case bytes::ClientMessage::kHello: {
      out->kind = ClientKind::kHello;
      out->protocol_version = msg.hello().protocol_version();
      // NFC when it is UTF-8 (names/player_name.h): the character's name from here on.
      names::CheckedName name = names::CheckPlayerName(msg.hello().player_name());
      out->player_name = msg.hello().player_name();
      if (!name.name.empty()) out->player_name = std::move(name.name);
      out->auth_token = msg.hello().auth_token();
      out->ticket = msg.hello().ticket();
      out->name_problem = name.problem;
      const bool name_matters = out->auth_token.empty() && out->ticket.empty();
      if (name_matters && out->name_problem != names::NameProblem::kNone) {
        return ParseError::kBadName;
      }
      return ParseError::kNone;
    }
    case bytes::ClientMessage::kMove: {
      const pb::MoveInput& m = msg.move();
      out->kind = ClientKind::kMove;
      const zone::MoveInput move{kInvalidEntity, m.seq(), {m.direction_x(), m.direction_y()}};
      out->input = move;
      return IsFinite(move.direction) ? ParseError::kNone : ParseError::kBadValue;
    }
    case bytes::ClientMessage::kSkill: {
      const pb::SkillInput& s = msg.skill();
      out->kind = ClientKind::kSkill;
      if (s.facing() > 0xFFFFu) return ParseError::kBadValue;
      out->input = zone::SkillInput{kInvalidEntity,
                                    s.seq(),
                                    s.skill_id(),
                                    FromTurn16(s.facing()),
                                    {FromCentimetres(s.target_x()), FromCentimetres(s.target_y())}};
      return ParseError::kNone;
    }
    case bytes::ClientMessage::kPing:
      out->kind = ClientKind::kPing;
      out->client_time = msg.ping().client_time();
      return ParseError::kNone;
    case bytes::ClientMessage::kLogout:
      out->kind = ClientKind::kLogout;
      return ParseError::kNone;
    case bytes::ClientMessage::kChat: {
      const bytes::Chat& c = msg.chat();
      out->kind = ClientKind::kChat;
      if (c.channel() < pb::CHAT_CHANNEL_SAY || c.channel() > pb::CHAT_CHANNEL_WHISPER) {
        return ParseError::kBadValue;
      }
      out->input = zone::ChatInput{
          .entity = kInvalidEntity,
          .seq = c.seq(),
          .channel = static_cast<zone::ChatChannel>(c.channel()),
          .text = c.text(),
          .text_ok = IsChatText(c.text()),
          // A name longer than any player's cannot match: not kept (held until the tick).
          .to_name = c.to().size() <= names::kMaxPlayerName ? c.to() : std::string(),
          .to = kInvalidEntity,
          .relayed = false};
      return ParseError::kNone;
    }
    case bytes::ClientMessage::KIND_NOT_SET:
      break;
  }
  return ParseError::kEmpty;
}

}  // namespace zs::wire
