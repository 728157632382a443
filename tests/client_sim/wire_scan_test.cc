// WireScan against protobuf itself. On valid messages the scan equals a full parse, and the field
// cursor reads exactly the fields protobuf's UnknownFieldSet reads. On garbage (truncated,
// mutated, spliced or random bytes) it never reads out of bounds (the sanitizer build checks),
// always terminates, and either rejects the bytes or reads them the way protobuf does. Fixed seeds.
#include "client_sim/wire_scan.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/unknown_field_set.h>
#include <google/protobuf/wire_format_lite.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client_sim/random_messages.h"
#include "wire/frame_codec.h"
#include "zone.pb.h"

namespace zs::sim {
namespace {

namespace pb = ::zs::zone::v1;
using ::google::protobuf::UnknownField;
using ::google::protobuf::UnknownFieldSet;
using ::google::protobuf::internal::WireFormatLite;

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    const auto b = static_cast<uint8_t>(c);
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

std::string Describe(const TickSummary& s) {
  return "tick=" + std::to_string(s.tick) + " seq=" + std::to_string(s.last_input_seq) +
         " self=" + std::to_string(s.self_id) +
         " x=" + (s.has_self_x ? std::to_string(s.self_x) : "-") +
         " y=" + (s.has_self_y ? std::to_string(s.self_y) : "-") +
         " resync=" + std::to_string(s.resync) +
         " crowd=" + (s.has_crowd ? std::to_string(s.crowd_total) : "-");
}

// What a full protobuf parse says ScanTickUpdate should find.
std::string Expected(const pb::TickUpdate& t) {
  return Describe(TickSummary{.tick = t.tick(),
                              .last_input_seq = t.last_input_seq(),
                              .self_id = t.self().id(),
                              .has_self_x = t.self().has_x(),
                              .has_self_y = t.self().has_y(),
                              .self_x = t.self().x(),
                              .self_y = t.self().y(),
                              .resync = t.resync(),
                              .has_crowd = t.has_crowd(),
                              .crowd_total = t.crowd().total()});
}

std::optional<std::string> Scanned(std::string_view tick) {
  TickSummary s;
  if (!ScanTickUpdate(tick, &s)) return std::nullopt;
  return Describe(s);
}

std::string Describe(const WireField& f) {
  const std::string n = std::to_string(f.number);
  switch (f.type) {
    case WireType::kVarint:
      return n + " varint " + std::to_string(f.varint);
    case WireType::kFixed64:
      return n + " fixed64 " + std::to_string(f.varint);
    case WireType::kFixed32:
      return n + " fixed32 " + std::to_string(f.varint);
    case WireType::kLen:
      return n + " len " + Hex(f.bytes);
  }
  return n + " ?";
}

// The fields WireScanner reads, one string each; nullopt when it fails. Checks the cursor's
// contract on the way: a field takes at least its key byte (so the loop ends), and after the
// first false every call returns false.
std::optional<std::vector<std::string>> ScannedFields(std::string_view bytes) {
  WireScanner s(bytes);
  WireField f;
  std::vector<std::string> fields;
  while (s.Next(&f)) {
    fields.push_back(Describe(f));
    if (fields.size() > bytes.size()) {
      ADD_FAILURE() << "more fields than bytes in " << Hex(bytes);
      return std::nullopt;
    }
  }
  const bool failed = s.failed();
  EXPECT_FALSE(s.Next(&f)) << Hex(bytes);
  EXPECT_EQ(s.failed(), failed) << Hex(bytes);
  if (failed) return std::nullopt;
  return fields;
}

// protobuf's reading of the same bytes as bare fields (it also accepts groups; the scanner not).
std::optional<std::vector<std::string>> ProtobufFields(std::string_view bytes) {
  UnknownFieldSet set;
  if (!set.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return std::nullopt;
  std::vector<std::string> fields;
  for (int i = 0; i < set.field_count(); ++i) {
    const UnknownField& u = set.field(i);
    const std::string n = std::to_string(u.number());
    switch (u.type()) {
      case UnknownField::TYPE_VARINT:
        fields.push_back(n + " varint " + std::to_string(u.varint()));
        break;
      case UnknownField::TYPE_FIXED64:
        fields.push_back(n + " fixed64 " + std::to_string(u.fixed64()));
        break;
      case UnknownField::TYPE_FIXED32:
        fields.push_back(n + " fixed32 " + std::to_string(u.fixed32()));
        break;
      case UnknownField::TYPE_LENGTH_DELIMITED:
        fields.push_back(n + " len " + Hex(u.length_delimited()));
        break;
      case UnknownField::TYPE_GROUP:
        fields.push_back(n + " group");
        break;
    }
  }
  return fields;
}

std::string Key(uint64_t number, uint32_t wire_type) {
  std::string out;
  wire::AppendVarint(number << 3 | wire_type, &out);
  return out;
}

std::string Fixed(MessageGen& g, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out.push_back(static_cast<char>(g.Bits()));
  return out;
}

// A random sequence of well-formed fields of every wire type, numbers up to 2^29 - 1.
std::string RandomFields(MessageGen& g) {
  std::string out;
  for (uint32_t i = g.Below(8); i > 0; --i) {
    const uint64_t number = g.OneIn(4) ? 1 + (g.Bits() % 0x1FFFFFFF) : 1 + g.Below(20);
    switch (g.Below(4)) {
      case 0:
        out += Key(number, 0);
        wire::AppendVarint(g.U64(), &out);
        break;
      case 1:
        out += Key(number, 1) + Fixed(g, 8);
        break;
      case 2: {
        const std::string payload = g.Bytes(40);
        out += Key(number, 2);
        wire::AppendVarint(payload.size(), &out);
        out += payload;
        break;
      }
      default:
        out += Key(number, 5) + Fixed(g, 4);
        break;
    }
  }
  return out;
}

// Damages a valid encoding: truncates it, flips bytes in it, splices random bytes into it, or
// replaces it by random bytes.
std::string Garble(MessageGen& g, std::string bytes, int how) {
  switch (how % 4) {
    case 0:
      bytes.resize(g.Below(static_cast<uint32_t>(bytes.size()) + 1));
      break;
    case 1:
      if (bytes.empty()) break;
      for (uint32_t n = 1 + g.Below(4); n > 0; --n) {
        bytes[g.Below(static_cast<uint32_t>(bytes.size()))] = static_cast<char>(g.Bits());
      }
      break;
    case 2:
      bytes.insert(g.Below(static_cast<uint32_t>(bytes.size()) + 1), g.Bytes(6));
      break;
    default:
      bytes = g.Bytes(64);
      break;
  }
  return bytes;
}

// The payload a ServerMessage's oneof member serializes to (what ScanServerMessage returns).
std::string MemberBytes(const pb::ServerMessage& m) {
  if (m.kind_case() == pb::ServerMessage::KIND_NOT_SET) return {};
  const auto* field = m.GetDescriptor()->FindFieldByNumber(static_cast<int>(m.kind_case()));
  return m.GetReflection()->GetMessage(m, field).SerializeAsString();
}

TEST(WireScan, ZigZag32DecodesLikeProtobuf) {
  EXPECT_EQ(ZigZag32(0), 0);
  EXPECT_EQ(ZigZag32(1), -1);
  EXPECT_EQ(ZigZag32(2), 1);
  EXPECT_EQ(ZigZag32(3), -2);
  EXPECT_EQ(ZigZag32(0xFFFFFFFE), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(ZigZag32(0xFFFFFFFF), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(ZigZag32(0xABCD'0000'0003), -2);  // the upper 32 bits are dropped
  MessageGen g(1);
  for (int i = 0; i < 20000; ++i) {
    const uint64_t v = g.U64();
    ASSERT_EQ(ZigZag32(v), WireFormatLite::ZigZagDecode32(static_cast<uint32_t>(v))) << v;
  }
}

TEST(WireScan, CursorReadsTheFieldsProtobufReads) {
  MessageGen g(2);
  for (int i = 0; i < 5000; ++i) {
    const std::string bytes = RandomFields(g);
    const auto scanned = ScannedFields(bytes);
    ASSERT_TRUE(scanned.has_value()) << Hex(bytes);
    ASSERT_EQ(*scanned, ProtobufFields(bytes).value()) << Hex(bytes);
  }
  for (int i = 0; i < 5000; ++i) {
    const std::string bytes = g.Message().SerializeAsString();
    const auto scanned = ScannedFields(bytes);
    ASSERT_TRUE(scanned.has_value()) << Hex(bytes);
    ASSERT_EQ(*scanned, ProtobufFields(bytes).value()) << Hex(bytes);
  }
}

TEST(WireScan, ValidMessagesScanLikeAFullParse) {
  MessageGen g(42);
  int ticks = 0;
  for (int i = 0; i < 20000; ++i) {
    const pb::ServerMessage m = g.Message();
    const std::string body = m.SerializeAsString();
    ServerKind k;
    ASSERT_TRUE(ScanServerMessage(body, &k)) << m.ShortDebugString();
    ASSERT_EQ(k.field, static_cast<uint32_t>(m.kind_case())) << m.ShortDebugString();
    ASSERT_EQ(k.payload, MemberBytes(m)) << m.ShortDebugString();
    if (!m.has_tick()) continue;
    ++ticks;
    ASSERT_EQ(Scanned(k.payload), Expected(m.tick())) << m.ShortDebugString();
  }
  EXPECT_GT(ticks, 10000);
}

// Protobuf merges repeated occurrences: a scalar keeps the last value on the wire, a message
// field merges field by field. The scan of two TickUpdates back to back must do the same.
TEST(WireScan, ConcatenatedMessagesMergeLikeProtobuf) {
  MessageGen g(3);
  for (int i = 0; i < 5000; ++i) {
    const std::string ticks = g.Tick().SerializeAsString() + g.Tick().SerializeAsString();
    pb::TickUpdate merged;
    ASSERT_TRUE(merged.ParseFromString(ticks));
    ASSERT_EQ(Scanned(ticks), Expected(merged)) << merged.ShortDebugString();

    const std::string body = g.Message().SerializeAsString() + g.Message().SerializeAsString();
    pb::ServerMessage m;
    ASSERT_TRUE(m.ParseFromString(body));
    ServerKind k;
    ASSERT_TRUE(ScanServerMessage(body, &k));
    ASSERT_EQ(k.field, static_cast<uint32_t>(m.kind_case())) << m.ShortDebugString();
  }
}

// Fields this version does not know, of every wire type, at every level the scan reads
// (ServerMessage, TickUpdate, self, crowd), before and after the known ones: skipped.
TEST(WireScan, UnknownFieldsAreSkipped) {
  MessageGen g(4);
  const auto add_unknown = [&g](google::protobuf::Message* msg, int first_unknown) {
    UnknownFieldSet* set = msg->GetReflection()->MutableUnknownFields(msg);
    for (uint32_t n = 1 + g.Below(3); n > 0; --n) {
      const int number = first_unknown + static_cast<int>(g.Below(1000));
      switch (g.Below(4)) {
        case 0:
          set->AddVarint(number, g.U64());
          break;
        case 1:
          set->AddFixed64(number, g.Bits());
          break;
        case 2:
          set->AddLengthDelimited(number, g.Bytes(10));
          break;
        default:
          set->AddFixed32(number, static_cast<uint32_t>(g.Bits()));
          break;
      }
    }
  };
  for (int i = 0; i < 2000; ++i) {
    pb::ServerMessage m = g.TickMessage();
    pb::TickUpdate* t = m.mutable_tick();
    add_unknown(&m, 7);
    add_unknown(t, 12);
    add_unknown(t->mutable_self(), 7);
    if (t->has_crowd()) add_unknown(t->mutable_crowd(), 7);
    const auto unknown_prefix = [&g](int first_unknown) {
      UnknownFieldSet set;
      set.AddVarint(first_unknown + static_cast<int>(g.Below(100)), g.U64());
      set.AddLengthDelimited(first_unknown + 1000, g.Bytes(10));
      std::string bytes;
      EXPECT_TRUE(set.SerializeToString(&bytes));
      return bytes;
    };

    const std::string body = unknown_prefix(7) + m.SerializeAsString();
    ServerKind k;
    ASSERT_TRUE(ScanServerMessage(body, &k));
    ASSERT_EQ(k.field, static_cast<uint32_t>(pb::ServerMessage::kTickFieldNumber));
    ASSERT_EQ(Scanned(k.payload), Expected(*t)) << m.ShortDebugString();
    const std::string tick = unknown_prefix(12) + t->SerializeAsString();
    ASSERT_EQ(Scanned(tick), Expected(*t)) << t->ShortDebugString();
  }
}

struct Case {
  const char* what;
  std::string bytes;
};

TEST(WireScan, MalformedBytesAreRejected) {
  using std::string_literals::operator""s;
  // Not protobuf wire format at all: the field cursor fails, and so does the message scan.
  const std::vector<Case> not_wire_format = {
      {"truncated key", "\x80"s},
      {"field number 0", "\x02\x00"s},
      {"field number 2^29", "\x80\x80\x80\x80\x10\x00"s},
      {"group", "\x0b\x0c"s},
      {"end group", "\x0c"s},
      {"wire type 6", "\x0e\x00"s},
      {"wire type 7", "\x0f\x00"s},
      {"length past the end", "\x12\x05\x08\x01"s},
      {"truncated length", "\x12\x80"s},
      {"truncated varint", "\x38\xff"s},
      {"varint of 11 bytes", "\x38"s + std::string(10, '\xff') + "\x01"s},
      {"truncated fixed64", "\x39\x01\x02\x03"s},
      {"truncated fixed32", "\x3d\x01\x02"s},
      {"garbage after a valid tick", "\x12\x02\x08\x05\x00"s},
  };
  for (const Case& c : not_wire_format) {
    ServerKind k;
    EXPECT_FALSE(ScanServerMessage(c.bytes, &k)) << c.what;
    EXPECT_FALSE(ScannedFields(c.bytes).has_value()) << c.what;
  }
  // Wire format, but a oneof member of the wrong wire type (protobuf would keep it as an unknown
  // field; the scan refuses it).
  const std::vector<Case> wrong_type = {
      {"oneof member as a varint", "\x10\x01"s},
      {"oneof member as a fixed32", "\x15\x00\x00\x00\x00"s},
      {"oneof member as a fixed64 after a tick", "\x12\x00\x09\x00\x00\x00\x00\x00\x00\x00\x00"s},
  };
  for (const Case& c : wrong_type) {
    ServerKind k;
    EXPECT_TRUE(ScannedFields(c.bytes).has_value()) << c.what;
    EXPECT_FALSE(ScanServerMessage(c.bytes, &k)) << c.what;
  }
  // In a TickUpdate: malformed bytes, or a field the scan reads with the wrong wire type.
  const std::vector<Case> ticks = {
      {"truncated after valid fields", "\x08\x05\x10"s},
      {"tick as a fixed64", "\x09\x01\x00\x00\x00\x00\x00\x00\x00"s},
      {"last_input_seq length-delimited", "\x12\x00"s},
      {"resync as a fixed32", "\x45\x01\x00\x00\x00"s},
      {"self as a varint", "\x18\x01"s},
      {"self with a truncated field", "\x1a\x01\x08"s},
      {"self with field number 0", "\x1a\x02\x00\x00"s},
      {"self id length-delimited", "\x1a\x02\x0a\x00"s},
      {"self x as a fixed32", "\x1a\x05\x15\x00\x00\x00\x00"s},
      {"self y as a fixed64", "\x1a\x09\x19\x00\x00\x00\x00\x00\x00\x00\x00"s},
      {"crowd as a varint", "\x58\x01"s},
      {"crowd total length-delimited", "\x5a\x02\x32\x00"s},
      {"crowd with a group", "\x5a\x02\x0b\x0c"s},
      {"skipped field longer than the tick", "\x22\x05\x08\x01"s},
  };
  for (const Case& c : ticks) EXPECT_EQ(Scanned(c.bytes), std::nullopt) << c.what;
}

// Legal but unusual encodings: read as protobuf reads them.
TEST(WireScan, UnusualValidEncodingsReadLikeProtobuf) {
  using std::string_literals::operator""s;
  const std::vector<Case> ticks = {
      {"empty", ""s},
      {"overlong key", "\x88\x80\x80\x80\x00\x07"s},
      {"largest field number", "\xf8\xff\xff\xff\x0f\x01\x08\x02"s},
      {"tick of 10 bytes", "\x08"s + std::string(9, '\xff') + "\x01"s},
      {"last_input_seq above 32 bits", "\x10\xff\xff\xff\xff\x1f"s},
      {"self x from a 64-bit varint", "\x1a\x0b\x10"s + std::string(9, '\xff') + "\x01"s},
      {"overlong length", "\x1a\x82\x80\x00\x08\x09"s},
      {"resync of 10 bytes", "\x40\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01"s},
      {"two selves merge", "\x1a\x02\x10\x04\x1a\x02\x18\x06"s},
      {"crowd present but empty", "\x5a\x00"s},
      {"self present but empty", "\x1a\x00"s},
  };
  for (const Case& c : ticks) {
    pb::TickUpdate t;
    ASSERT_TRUE(t.ParseFromString(c.bytes)) << c.what;
    EXPECT_EQ(Scanned(c.bytes), Expected(t)) << c.what;
    EXPECT_EQ(ScannedFields(c.bytes), ProtobufFields(c.bytes)) << c.what;
  }
  ServerKind k;
  ASSERT_TRUE(ScanServerMessage("", &k));
  EXPECT_EQ(k.field, 0u);
  const std::string empty_tick = "\x12\x00"s;
  ASSERT_TRUE(ScanServerMessage(empty_tick, &k));
  EXPECT_EQ(k.field, static_cast<uint32_t>(pb::ServerMessage::kTickFieldNumber));
  EXPECT_EQ(Scanned(k.payload), Expected(pb::TickUpdate()));
}

// Garbage never crashes or hangs; when the scan accepts it and protobuf parses it, they agree.
// (The scan skips entered/updated/hits by their length without looking inside, so it may accept
// a message protobuf refuses; then there is nothing to compare.)
TEST(WireScan, GarbageIsRejectedOrReadLikeProtobuf) {
  const google::protobuf::LogSilencer quiet;  // protobuf logs each garbled string it refuses
  MessageGen g(7);
  int fields_compared = 0, kinds_compared = 0, ticks_compared = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string body = Garble(g, g.Message().SerializeAsString(), i);
    if (const auto scanned = ScannedFields(body)) {
      const auto parsed = ProtobufFields(body);
      ASSERT_TRUE(parsed.has_value()) << Hex(body);
      ASSERT_EQ(*scanned, *parsed) << Hex(body);
      ++fields_compared;
    }
    ServerKind k;
    pb::ServerMessage m;
    if (ScanServerMessage(body, &k) && m.ParseFromString(body)) {
      ASSERT_EQ(k.field, static_cast<uint32_t>(m.kind_case())) << Hex(body);
      ++kinds_compared;
    }

    const std::string tick = Garble(g, g.Tick().SerializeAsString(), i);
    const auto scanned = Scanned(tick);
    pb::TickUpdate t;
    if (scanned && t.ParseFromString(tick)) {
      ASSERT_EQ(*scanned, Expected(t)) << Hex(tick);
      ++ticks_compared;
    }
  }
  // The comparisons above must not pass by never happening.
  EXPECT_GT(fields_compared, 5000);
  EXPECT_GT(kinds_compared, 2000);
  EXPECT_GT(ticks_compared, 2000);
}

}  // namespace
}  // namespace zs::sim
