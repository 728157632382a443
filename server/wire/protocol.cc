#include "wire/protocol.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <cmath>
#include <optional>

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

namespace {

using google::protobuf::internal::WireFormatLite;

constexpr uint32_t Tag(int field, WireFormatLite::WireType type) {
  return WireFormatLite::MakeTag(field, type);
}
constexpr WireFormatLite::WireType kBytes = WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
constexpr WireFormatLite::WireType kVarint = WireFormatLite::WIRETYPE_VARINT;

// One field of a Hello or a Chat into `msg`'s message, strings as raw bytes; false when the
// field is malformed. Unknown fields are skipped, as protobuf does.
bool ReadField(google::protobuf::io::CodedInputStream& in, uint32_t tag, pb::ClientMessage* msg) {
  uint32_t v = 0;
  if (msg->has_hello()) {
    pb::Hello& h = *msg->mutable_hello();
    switch (tag) {
      case Tag(pb::Hello::kProtocolVersionFieldNumber, kVarint):
        if (!in.ReadVarint32(&v)) return false;
        h.set_protocol_version(v);
        return true;
      case Tag(pb::Hello::kPlayerNameFieldNumber, kBytes):
        return WireFormatLite::ReadBytes(&in, h.mutable_player_name());
      case Tag(pb::Hello::kAuthTokenFieldNumber, kBytes):
        return WireFormatLite::ReadBytes(&in, h.mutable_auth_token());
      case Tag(pb::Hello::kTicketFieldNumber, kBytes):
        return WireFormatLite::ReadBytes(&in, h.mutable_ticket());
      default:
        return WireFormatLite::SkipField(&in, tag);
    }
  }
  pb::Chat& c = *msg->mutable_chat();
  switch (tag) {
    case Tag(pb::Chat::kSeqFieldNumber, kVarint):
      if (!in.ReadVarint32(&v)) return false;
      c.set_seq(v);
      return true;
    case Tag(pb::Chat::kChannelFieldNumber, kVarint):
      if (!in.ReadVarint32(&v)) return false;
      c.set_channel(static_cast<pb::ChatChannel>(v));  // checked by the parse that follows
      return true;
    case Tag(pb::Chat::kTextFieldNumber, kBytes):
      return WireFormatLite::ReadBytes(&in, c.mutable_text());
    case Tag(pb::Chat::kToFieldNumber, kBytes):
      return WireFormatLite::ReadBytes(&in, c.mutable_to());
    default:
      return WireFormatLite::SkipField(&in, tag);
  }
}

// `frame` read as a ClientMessage holding one Hello or one Chat, as protobuf reads it but
// without its UTF-8 check of string fields: proto3 refuses such a message whole, and then a
// name, a token or a chat line that is not UTF-8 would be an unreadable frame (BAD_FRAME and a
// close) instead of what our own rules say of it (BAD_NAME, AUTH_FAILED, BAD_TEXT with the
// connection kept). False for any other message, or anything malformed.
bool ReadWithoutUtf8Check(std::string_view frame, pb::ClientMessage* msg) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(frame.data()),
                                            static_cast<int>(frame.size()));
  const uint32_t tag = in.ReadTag();
  if (tag == Tag(pb::ClientMessage::kHelloFieldNumber, kBytes)) {
    msg->mutable_hello();
  } else if (tag == Tag(pb::ClientMessage::kChatFieldNumber, kBytes)) {
    msg->mutable_chat();
  } else {
    return false;
  }
  uint32_t length = 0;
  if (!in.ReadVarint32(&length) ||
      length != frame.size() - static_cast<size_t>(in.CurrentPosition())) {
    return false;
  }
  for (uint32_t t = in.ReadTag(); t != 0; t = in.ReadTag()) {
    if (!ReadField(in, t, msg)) return false;
  }
  return in.ConsumedEntireMessage();
}

}  // namespace

ParseError ParseClientMessage(std::string_view frame, int recursion_limit, ClientIntent* out) {
  pb::ClientMessage msg;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(frame.data()),
                                            static_cast<int>(frame.size()));
  in.SetRecursionLimit(recursion_limit);
  if (!msg.MergeFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
    msg.Clear();
    if (!ReadWithoutUtf8Check(frame, &msg)) return ParseError::kUnparsable;
  }
  switch (msg.kind_case()) {
    case pb::ClientMessage::kHello: {
      out->kind = ClientKind::kHello;
      out->protocol_version = msg.hello().protocol_version();
      out->player_name = msg.hello().player_name();
      out->auth_token = msg.hello().auth_token();
      out->ticket = msg.hello().ticket();
      out->name_problem = CheckPlayerName(out->player_name);
      const bool name_matters = out->auth_token.empty() && out->ticket.empty();
      if (name_matters && out->name_problem != NameProblem::kNone) return ParseError::kBadName;
      return ParseError::kNone;
    }
    case pb::ClientMessage::kMove: {
      const pb::MoveInput& m = msg.move();
      out->kind = ClientKind::kMove;
      const zone::MoveInput move{kInvalidEntity, m.seq(), {m.direction_x(), m.direction_y()}};
      out->input = move;
      return IsFinite(move.direction) ? ParseError::kNone : ParseError::kBadValue;
    }
    case pb::ClientMessage::kSkill: {
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
    case pb::ClientMessage::kPing:
      out->kind = ClientKind::kPing;
      out->client_time = msg.ping().client_time();
      return ParseError::kNone;
    case pb::ClientMessage::kLogout:
      out->kind = ClientKind::kLogout;
      return ParseError::kNone;
    case pb::ClientMessage::kChat: {
      const pb::Chat& c = msg.chat();
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
          .to_name = c.to().size() <= kMaxPlayerName ? c.to() : std::string(),
          .to = kInvalidEntity,
          .relayed = false};
      return ParseError::kNone;
    }
    case pb::ClientMessage::KIND_NOT_SET:
      break;
  }
  return ParseError::kEmpty;
}

}  // namespace zs::wire
