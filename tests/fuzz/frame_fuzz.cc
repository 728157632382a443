// Fuzz target: what a client's bytes go through, FrameDecoder then ParseClientMessage.
//
// Input: byte 0 picks the frame size limit, byte 1 seeds how the stream is cut into reads; the
// rest is the byte stream a client sends. Properties (each __builtin_trap() when broken):
//   1. The decoder agrees with the reference decoder below (a varint of at most 5 bytes, the
//      limit checked before the body): the same frames, then the same error or the same number
//      of bytes left buffered.
//   2. How the stream is cut into reads does not matter: fed whole and fed in pieces, the
//      decoder returns the same frames and ends the same way; once failed it stays failed.
//   3. AppendFrame(body) decodes back to exactly body.
//   4. ParseClientMessage never accepts what protobuf itself cannot parse, with one exception
//      on purpose: a string field that is not UTF-8 (proto3 refuses the whole message) is read
//      as bytes, so our own rules judge it (BAD_NAME, AUTH_FAILED, BAD_TEXT). The oracle for
//      such a frame is protobuf's parse of a twin of zone.proto whose strings are bytes. An
//      accepted intent keeps its contract (finite direction, a name that passes the player-name
//      rules and is carried in NFC, a facing of 0..65535 turn units in [-pi, pi], a known chat
//      channel and the chat text judged by the chat rules) and carries exactly the message's
//      values; a refusal names the right reason (for a name, the problem names::CheckPlayerName
//      sees: those rules are ICU's, tested in tests/names; the chat rules of wire/chat_text.h
//      are written out again here); and the message re-serialised canonically parses to the
//      same result.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/stubs/logging.h>

#include "wire/frame_codec.h"
#include "wire/protocol.h"
#include "zone.pb.h"

namespace zs::wire {
namespace {

namespace pb = ::zs::zone::v1;

constexpr int kRecursionLimit = 16;  // the server's default (limits.recursion_limit)

void Require(bool ok) {
  if (!ok) __builtin_trap();
}

struct Decoded {
  std::vector<std::string> frames;
  FrameError error = FrameError::kNone;
  size_t left = 0;  // bytes buffered but not returned (when no error)
};

// The framing rule written out the obvious way.
Decoded ReferenceDecode(std::string_view in, size_t max_frame) {
  Decoded out;
  size_t pos = 0;
  for (;;) {
    uint64_t length = 0;
    size_t p = pos;
    bool complete = false;
    for (int i = 0; i < 5 && p < in.size(); ++i) {
      const auto byte = static_cast<uint8_t>(in[p++]);
      length |= static_cast<uint64_t>(byte & 0x7F) << (7 * i);
      if ((byte & 0x80) == 0) {
        complete = true;
        break;
      }
    }
    if (!complete) {
      if (p - pos == 5) out.error = FrameError::kInvalidLength;
      break;
    }
    if (length > max_frame) {
      out.error = FrameError::kTooLarge;
      break;
    }
    if (in.size() - p < length) break;
    out.frames.emplace_back(in.substr(p, static_cast<size_t>(length)));
    pos = p + static_cast<size_t>(length);
  }
  out.left = out.error == FrameError::kNone ? in.size() - pos : 0;
  return out;
}

// Feeds `in` in pieces whose sizes come from `seed` (0: all at once), draining after each.
Decoded Decode(std::string_view in, size_t max_frame, uint8_t seed) {
  Decoded out;
  FrameDecoder decoder(max_frame);
  std::string frame;
  uint32_t state = seed * 2654435761u + 1;
  size_t pos = 0;
  while (pos < in.size() && !decoder.failed()) {
    state = state * 1103515245u + 12345u;
    const size_t piece = seed == 0 ? in.size() : 1 + (state >> 16) % (seed % 8 == 0 ? 300 : 7);
    const size_t n = std::min(piece, in.size() - pos);
    decoder.Feed(in.substr(pos, n));
    pos += n;
    for (;;) {
      const FrameDecoder::Result r = decoder.Next(&frame);
      if (r == FrameDecoder::Result::kFrame) {
        Require(frame.size() <= max_frame);
        out.frames.push_back(frame);
        continue;
      }
      Require((r == FrameDecoder::Result::kError) == decoder.failed());
      break;
    }
  }
  out.error = decoder.error();
  if (decoder.failed()) {
    Require(decoder.error() != FrameError::kNone);
    Require(decoder.Next(&frame) == FrameDecoder::Result::kError);  // stays failed
    Require(decoder.Next(&frame) == FrameDecoder::Result::kError);
  } else {
    out.left = decoder.buffered();
  }
  return out;
}

bool SameDecoding(const Decoded& a, const Decoded& b) {
  return a.frames == b.frames && a.error == b.error && a.left == b.left;
}

void CheckReframe(const std::string& body) {
  std::string bytes;
  AppendFrame(body, &bytes);
  FrameDecoder decoder(body.size());
  decoder.Feed(bytes);
  std::string back;
  Require(decoder.Next(&back) == FrameDecoder::Result::kFrame && back == body);
  Require(decoder.buffered() == 0);
}

bool SameBits(float a, float b) { return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b); }

// ---- the chat-text rules of wire/chat_text.h, written out again as an oracle ----

// Decodes the code point at s[i] into *cp (Unicode's Table 3-7: no overlong forms, no
// surrogates, nothing above U+10FFFF); returns its length in bytes, 0 when malformed.
size_t DecodeAt(std::string_view s, size_t i, uint32_t* cp) {
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  const auto b0 = static_cast<uint8_t>(s[i]);
  size_t len = 0;
  if (b0 < 0x80) {
    len = 1;
  } else if (b0 >= 0xC0 && b0 < 0xE0) {
    len = 2;
  } else if (b0 >= 0xE0 && b0 < 0xF0) {
    len = 3;
  } else if (b0 >= 0xF0 && b0 < 0xF8) {
    len = 4;
  }
  if (len == 0 || i + len > s.size()) return 0;
  *cp = len == 1 ? b0 : b0 & (0x7Fu >> len);
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<uint8_t>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    *cp = *cp << 6 | (b & 0x3Fu);
  }
  const bool bad = *cp < kMin[len] || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF);
  return bad ? 0 : len;
}

bool IsControlCp(uint32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029;
}
bool IsBidiCp(uint32_t cp) {
  return cp == 0x61C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

bool ValidChatText(std::string_view text) {
  if (text.empty() || text.size() > kMaxChatText) return false;
  uint32_t cp = 0;
  for (size_t i = 0, len = 0; i < text.size(); i += len) {
    len = DecodeAt(text, i, &cp);
    if (len == 0 || IsControlCp(cp) || IsBidiCp(cp)) return false;
  }
  return true;
}

// A chat: an unknown channel is refused; otherwise the values are carried over, the text is
// judged by the chat rules (a bad text is the caller's refusal, not a parse error) and a
// recipient name longer than any player's is dropped.
void CheckChat(const pb::Chat& c, ParseError e, const ClientIntent& in) {
  const bool known = c.channel() >= pb::CHAT_CHANNEL_SAY && c.channel() <= pb::CHAT_CHANNEL_WHISPER;
  Require(e == (known ? ParseError::kNone : ParseError::kBadValue));
  if (e != ParseError::kNone) return;
  const auto* chat = std::get_if<zone::ChatInput>(&in.input);
  Require(in.kind == ClientKind::kChat && chat != nullptr && chat->seq == c.seq());
  Require(static_cast<int>(chat->channel) == static_cast<int>(c.channel()));
  Require(chat->entity == kInvalidEntity && chat->to == kInvalidEntity && !chat->relayed);
  Require(chat->text == c.text() && chat->text_ok == ValidChatText(c.text()));
  Require(chat->to_name == (c.to().size() <= names::kMaxPlayerName ? c.to() : std::string()));
}

// A Hello: the name is judged only when it is the login (no token, no ticket: with one of those
// the server takes the name from the token or the ticket); the rest is carried over.
void CheckHello(const pb::Hello& h, ParseError e, const ClientIntent& in) {
  const bool name_matters = h.auth_token().empty() && h.ticket().empty();
  const names::CheckedName name = names::CheckPlayerName(h.player_name());
  const bool name_ok = !name_matters || name.problem == names::NameProblem::kNone;
  Require(e == (name_ok ? ParseError::kNone : ParseError::kBadName));
  Require(in.name_problem == name.problem);  // a refusal names the problem the rules see
  if (e != ParseError::kNone) return;
  Require(in.kind == ClientKind::kHello);
  // The name in NFC once it is UTF-8, as it came otherwise.
  Require(in.player_name == (name.name.empty() ? h.player_name() : name.name));
  Require(in.auth_token == h.auth_token());
  Require(in.ticket == h.ticket() && in.protocol_version == h.protocol_version());
}

// The intent parsed from a frame that protobuf parses as `m`, with result `e`.
void CheckIntent(const pb::ClientMessage& m, ParseError e, const ClientIntent& in) {
  if (m.kind_case() == pb::ClientMessage::KIND_NOT_SET) {
    Require(e == ParseError::kEmpty);
    return;
  }
  switch (m.kind_case()) {
    case pb::ClientMessage::kHello:
      return CheckHello(m.hello(), e, in);
    case pb::ClientMessage::kMove: {
      const bool finite =
          std::isfinite(m.move().direction_x()) && std::isfinite(m.move().direction_y());
      Require(e == (finite ? ParseError::kNone : ParseError::kBadValue));
      if (e != ParseError::kNone) return;
      const auto* move = std::get_if<zone::MoveInput>(&in.input);
      Require(in.kind == ClientKind::kMove && move != nullptr && move->seq == m.move().seq());
      Require(SameBits(move->direction.x, m.move().direction_x()));
      Require(SameBits(move->direction.y, m.move().direction_y()));
      Require(move->entity == kInvalidEntity);
      return;
    }
    case pb::ClientMessage::kSkill: {
      const pb::SkillInput& s = m.skill();
      Require(e == (s.facing() <= 0xFFFFu ? ParseError::kNone : ParseError::kBadValue));
      if (e != ParseError::kNone) return;
      const auto* skill = std::get_if<zone::SkillInput>(&in.input);
      Require(in.kind == ClientKind::kSkill && skill != nullptr && skill->seq == s.seq());
      Require(skill->skill == s.skill_id() && skill->entity == kInvalidEntity);
      Require(std::isfinite(skill->facing) && std::abs(skill->facing) <= kPi);
      Require(ToTurn16(skill->facing) == s.facing());  // the facing survives the round trip
      Require(skill->target.x == FromCentimetres(s.target_x()));
      Require(skill->target.y == FromCentimetres(s.target_y()));
      return;
    }
    case pb::ClientMessage::kPing:
      Require(e == ParseError::kNone && in.kind == ClientKind::kPing);
      Require(in.client_time == m.ping().client_time());
      return;
    case pb::ClientMessage::kLogout:
      Require(e == ParseError::kNone && in.kind == ClientKind::kLogout);
      return;
    case pb::ClientMessage::kChat:
      return CheckChat(m.chat(), e, in);
    case pb::ClientMessage::KIND_NOT_SET:
      return;
  }
}

bool SameIntent(const ClientIntent& a, const ClientIntent& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case ClientKind::kHello:
      return a.protocol_version == b.protocol_version && a.player_name == b.player_name &&
             a.auth_token == b.auth_token && a.ticket == b.ticket;
    case ClientKind::kMove: {
      const auto& x = std::get<zone::MoveInput>(a.input);
      const auto& y = std::get<zone::MoveInput>(b.input);
      return x.seq == y.seq && SameBits(x.direction.x, y.direction.x) &&
             SameBits(x.direction.y, y.direction.y);
    }
    case ClientKind::kSkill: {
      const auto& x = std::get<zone::SkillInput>(a.input);
      const auto& y = std::get<zone::SkillInput>(b.input);
      return x.seq == y.seq && x.skill == y.skill && SameBits(x.facing, y.facing) &&
             SameBits(x.target.x, y.target.x) && SameBits(x.target.y, y.target.y);
    }
    case ClientKind::kPing:
      return a.client_time == b.client_time;
    case ClientKind::kLogout:
      return true;
    case ClientKind::kChat: {
      const auto& x = std::get<zone::ChatInput>(a.input);
      const auto& y = std::get<zone::ChatInput>(b.input);
      return x.seq == y.seq && x.channel == y.channel && x.text == y.text &&
             x.text_ok == y.text_ok && x.to_name == y.to_name;
    }
  }
  return false;
}

// zone.proto with every `string` field turned into `bytes`, built here from zone.proto's own
// descriptor (not from server/wire/client_bytes.proto, the server's hand-written twin, which it
// checks): the oracle for a frame that proto3 refuses only for a string that is not UTF-8.
class BytesTwin {
 public:
  BytesTwin() {
    google::protobuf::FileDescriptorProto file;
    pb::ClientMessage::descriptor()->file()->CopyTo(&file);
    for (google::protobuf::DescriptorProto& m : *file.mutable_message_type()) StringsToBytes(&m);
    const google::protobuf::FileDescriptor* twin = pool_.BuildFile(file);
    Require(twin != nullptr);
    prototype_ = factory_.GetPrototype(twin->FindMessageTypeByName("ClientMessage"));
    Require(prototype_ != nullptr);
  }

  // `frame` parsed by the twin and copied field by field into `out` (the generated setters do
  // not check UTF-8); false when protobuf cannot parse it even with strings as bytes.
  bool Parse(const std::string& frame, pb::ClientMessage* out) const {
    std::unique_ptr<google::protobuf::Message> twin(prototype_->New());
    if (!twin->ParseFromString(frame)) return false;
    Copy(*twin, out);
    return true;
  }

 private:
  static void StringsToBytes(google::protobuf::DescriptorProto* m) {
    for (google::protobuf::FieldDescriptorProto& f : *m->mutable_field()) {
      if (f.type() == google::protobuf::FieldDescriptorProto::TYPE_STRING) {
        f.set_type(google::protobuf::FieldDescriptorProto::TYPE_BYTES);
      }
    }
    for (google::protobuf::DescriptorProto& nested : *m->mutable_nested_type()) {
      StringsToBytes(&nested);
    }
  }

  // The client messages hold singular scalars, strings and messages only (no repeated field).
  static void Copy(const google::protobuf::Message& from, google::protobuf::Message* to) {
    using google::protobuf::FieldDescriptor;
    const google::protobuf::Reflection* rf = from.GetReflection();
    const google::protobuf::Reflection* rt = to->GetReflection();
    std::vector<const FieldDescriptor*> fields;
    rf->ListFields(from, &fields);
    for (const FieldDescriptor* f : fields) {
      const FieldDescriptor* t = to->GetDescriptor()->FindFieldByNumber(f->number());
      Require(t != nullptr && !f->is_repeated());
      switch (f->cpp_type()) {
        case FieldDescriptor::CPPTYPE_MESSAGE:
          Copy(rf->GetMessage(from, f), rt->MutableMessage(to, t));
          break;
        case FieldDescriptor::CPPTYPE_STRING:
          rt->SetString(to, t, rf->GetString(from, f));
          break;
        case FieldDescriptor::CPPTYPE_UINT32:
          rt->SetUInt32(to, t, rf->GetUInt32(from, f));
          break;
        case FieldDescriptor::CPPTYPE_UINT64:
          rt->SetUInt64(to, t, rf->GetUInt64(from, f));
          break;
        case FieldDescriptor::CPPTYPE_INT32:
          rt->SetInt32(to, t, rf->GetInt32(from, f));
          break;
        case FieldDescriptor::CPPTYPE_INT64:
          rt->SetInt64(to, t, rf->GetInt64(from, f));
          break;
        case FieldDescriptor::CPPTYPE_FLOAT:
          rt->SetFloat(to, t, rf->GetFloat(from, f));
          break;
        case FieldDescriptor::CPPTYPE_DOUBLE:
          rt->SetDouble(to, t, rf->GetDouble(from, f));
          break;
        case FieldDescriptor::CPPTYPE_BOOL:
          rt->SetBool(to, t, rf->GetBool(from, f));
          break;
        case FieldDescriptor::CPPTYPE_ENUM:
          rt->SetEnumValue(to, t, rf->GetEnumValue(from, f));
          break;
      }
    }
    rt->MutableUnknownFields(to)->MergeFrom(rf->GetUnknownFields(from));
  }

  google::protobuf::DescriptorPool pool_;
  google::protobuf::DynamicMessageFactory factory_;
  const google::protobuf::Message* prototype_ = nullptr;
};

void CheckMessage(const std::string& frame) {
  static const BytesTwin twin;
  ClientIntent intent;
  const ParseError e = ParseClientMessage(frame, kRecursionLimit, &intent);
  pb::ClientMessage m;
  if (!m.ParseFromString(frame)) {  // default (deeper) recursion limit
    m.Clear();
    if (!twin.Parse(frame, &m)) {
      Require(e == ParseError::kUnparsable);
      return;
    }
  }
  if (e == ParseError::kUnparsable) return;  // nesting beyond our limit (in unknown fields)
  CheckIntent(m, e, intent);
  // Canonical bytes (fields in order, duplicates merged) mean the same thing.
  ClientIntent again;
  const ParseError e2 = ParseClientMessage(m.SerializeAsString(), kRecursionLimit, &again);
  Require(e2 == e);
  if (e == ParseError::kNone) Require(SameIntent(intent, again));
}

}  // namespace
}  // namespace zs::wire

// libprotobuf logs an error for every string field that is not UTF-8 (the parse then fails);
// at thousands of inputs a second that would fill the log and slow the run. zone_server routes
// these lines through its own log (server/app/main.cc); here they are dropped.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zs::wire;
  if (size < 2 || size > 1 << 17) return -1;
  // Limits: tiny (most lengths too large), a few hundred bytes, and the server's 64 KiB.
  static constexpr size_t kLimits[] = {0, 1, 5, 127, 128, 300, 16383, 16384, 65536};
  const size_t max_frame = kLimits[data[0] % std::size(kLimits)];
  const uint8_t seed = data[1];
  const std::string_view stream(reinterpret_cast<const char*>(data) + 2, size - 2);

  const Decoded reference = ReferenceDecode(stream, max_frame);
  const Decoded whole = Decode(stream, max_frame, 0);
  Require(SameDecoding(whole, reference));
  if (seed != 0) Require(SameDecoding(Decode(stream, max_frame, seed), reference));
  for (const std::string& frame : whole.frames) {
    CheckReframe(frame);
    CheckMessage(frame);
  }
  return 0;
}
