// Wire scan: a few fields read straight out of protobuf wire-format bytes, for the bots that do
// not verify (client_sim --verify-every K). A full protobuf parse of a crowded TickUpdate costs
// more than the server spends encoding it; a bot that only needs to know the tick number and
// where it stands reads those and skips every other field by its length.
//
// What it understands: the wire types of proto3 (varint, fixed64, length-delimited, fixed32); the
// field numbers of proto/zone.proto it reads are the generated k...FieldNumber constants. Like
// protobuf, a repeated scalar keeps the last value and a repeated message field merges; unknown
// fields are skipped.
// Errors: every read is bounds-checked; a truncated varint or length, a length past the end, field
// number 0, a group or an unknown wire type, or a known field with the wrong wire type makes the
// scan return false. No input can make it read out of bounds or loop forever.
// Threads: pure functions; WireScanner is a cursor over bytes the caller keeps alive.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace zs::sim {

enum class WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

struct WireField {
  uint32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t varint = 0;     // kVarint: the value; kFixed*: the raw little-endian bits
  std::string_view bytes;  // kLen: the payload
};

// A cursor over one message's fields, in wire order.
class WireScanner {
 public:
  explicit WireScanner(std::string_view data) : data_(data) {}

  // Reads the next field into *f. False at the end of the data, or on malformed bytes (then
  // failed() is true and every later call returns false).
  bool Next(WireField* f);
  [[nodiscard]] bool failed() const { return failed_; }

 private:
  bool Varint(uint64_t* v);
  bool Fail();

  std::string_view data_;
  size_t pos_ = 0;
  bool failed_ = false;
};

// A proto sint32 from its varint (zigzag; the upper 32 bits are dropped, as protobuf does).
[[nodiscard]] int32_t ZigZag32(uint64_t v);

// The oneof of a ServerMessage: its field number (ServerMessage::k...FieldNumber, 0 when none is
// set) and the payload of the last one on the wire. False on malformed bytes.
struct ServerKind {
  uint32_t field = 0;
  std::string_view payload;
};
[[nodiscard]] bool ScanServerMessage(std::string_view body, ServerKind* out);

// The fields of a TickUpdate a non-verifying bot needs. False on malformed bytes, including a
// malformed `self` or `crowd` submessage.
struct TickSummary {
  uint64_t tick = 0;
  uint32_t last_input_seq = 0;
  uint32_t self_id = 0;
  bool has_self_x = false;
  bool has_self_y = false;
  int32_t self_x = 0;  // centimetres
  int32_t self_y = 0;
  bool resync = false;
  bool has_crowd = false;
  uint32_t crowd_total = 0;
};
[[nodiscard]] bool ScanTickUpdate(std::string_view tick, TickSummary* out);

}  // namespace zs::sim
