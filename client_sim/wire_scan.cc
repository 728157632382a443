#include "client_sim/wire_scan.h"

#include "zone.pb.h"

namespace zs::sim {

namespace pb = ::zs::zone::v1;

namespace {

constexpr int kMaxVarintBytes = 10;
// ScanServerMessage takes every field in welcome..kick to be a member of the oneof.
static_assert(pb::ServerMessage::kWelcomeFieldNumber == 1 &&
              pb::ServerMessage::kTickFieldNumber == 2 &&
              pb::ServerMessage::kZoneChangedFieldNumber == 3 &&
              pb::ServerMessage::kPongFieldNumber == 4 &&
              pb::ServerMessage::kErrorFieldNumber == 5 &&
              pb::ServerMessage::kKickFieldNumber == 6);

// Reads one field of the expected wire type; false (and *ok = false) when it has another type.
bool Expect(const WireField& f, WireType type, bool* ok) {
  if (f.type != type) *ok = false;
  return *ok;
}

bool ScanSelf(std::string_view bytes, TickSummary* out) {
  WireScanner s(bytes);
  WireField f;
  bool ok = true;
  while (ok && s.Next(&f)) {
    switch (f.number) {
      case pb::EntityUpdate::kIdFieldNumber:
        if (Expect(f, WireType::kVarint, &ok)) out->self_id = static_cast<uint32_t>(f.varint);
        break;
      case pb::EntityUpdate::kXFieldNumber:
        if (Expect(f, WireType::kVarint, &ok)) out->self_x = ZigZag32(f.varint);
        out->has_self_x = true;
        break;
      case pb::EntityUpdate::kYFieldNumber:
        if (Expect(f, WireType::kVarint, &ok)) out->self_y = ZigZag32(f.varint);
        out->has_self_y = true;
        break;
      default:
        break;
    }
  }
  return ok && !s.failed();
}

bool ScanCrowd(std::string_view bytes, TickSummary* out) {
  WireScanner s(bytes);
  WireField f;
  bool ok = true;
  out->has_crowd = true;
  while (ok && s.Next(&f)) {
    if (f.number == pb::CrowdSummary::kTotalFieldNumber && Expect(f, WireType::kVarint, &ok)) {
      out->crowd_total = static_cast<uint32_t>(f.varint);
    }
  }
  return ok && !s.failed();
}

// One top-level field of a TickUpdate; false when it is malformed.
bool ScanTickField(const WireField& f, TickSummary* out) {
  bool ok = true;
  switch (f.number) {
    case pb::TickUpdate::kTickFieldNumber:
      if (Expect(f, WireType::kVarint, &ok)) out->tick = f.varint;
      return ok;
    case pb::TickUpdate::kLastInputSeqFieldNumber:
      if (Expect(f, WireType::kVarint, &ok)) out->last_input_seq = static_cast<uint32_t>(f.varint);
      return ok;
    case pb::TickUpdate::kResyncFieldNumber:
      if (Expect(f, WireType::kVarint, &ok)) out->resync = f.varint != 0;
      return ok;
    case pb::TickUpdate::kSelfFieldNumber:
      return Expect(f, WireType::kLen, &ok) && ScanSelf(f.bytes, out);
    case pb::TickUpdate::kCrowdFieldNumber:
      return Expect(f, WireType::kLen, &ok) && ScanCrowd(f.bytes, out);
    default:
      return true;  // entered, updated, left, hits, moved, turned: skipped by their length
  }
}

}  // namespace

bool WireScanner::Fail() {
  failed_ = true;
  return false;
}

bool WireScanner::Varint(uint64_t* v) {
  uint64_t result = 0;
  for (int i = 0; i < kMaxVarintBytes; ++i) {
    if (pos_ == data_.size()) return false;
    const auto byte = static_cast<uint8_t>(data_[pos_++]);
    result |= static_cast<uint64_t>(byte & 0x7F) << (7 * i);
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

bool WireScanner::Next(WireField* f) {
  if (failed_ || pos_ == data_.size()) return false;
  uint64_t key = 0;
  if (!Varint(&key)) return Fail();
  const uint64_t number = key >> 3;
  if (number == 0 || number > 0x1FFFFFFF) return Fail();
  f->number = static_cast<uint32_t>(number);
  f->varint = 0;
  f->bytes = {};
  switch (key & 7) {
    case 0:
      f->type = WireType::kVarint;
      return Varint(&f->varint) || Fail();
    case 1:
    case 5: {
      const size_t n = (key & 7) == 1 ? 8 : 4;
      if (data_.size() - pos_ < n) return Fail();
      for (size_t i = 0; i < n; ++i) {
        f->varint |= static_cast<uint64_t>(static_cast<uint8_t>(data_[pos_ + i])) << (8 * i);
      }
      pos_ += n;
      f->type = n == 8 ? WireType::kFixed64 : WireType::kFixed32;
      return true;
    }
    case 2: {
      uint64_t length = 0;
      if (!Varint(&length) || length > data_.size() - pos_) return Fail();
      f->type = WireType::kLen;
      f->bytes = data_.substr(pos_, static_cast<size_t>(length));
      pos_ += static_cast<size_t>(length);
      return true;
    }
    default:  // groups (3, 4) are not proto3; 6 and 7 do not exist
      return Fail();
  }
}

int32_t ZigZag32(uint64_t v) {
  const auto u = static_cast<uint32_t>(v);
  return static_cast<int32_t>((u >> 1) ^ (~(u & 1) + 1));
}

bool ScanServerMessage(std::string_view body, ServerKind* out) {
  *out = ServerKind{};
  WireScanner s(body);
  WireField f;
  while (s.Next(&f)) {
    if (f.number < pb::ServerMessage::kWelcomeFieldNumber ||
        f.number > pb::ServerMessage::kKickFieldNumber) {
      continue;  // not part of the oneof in this version
    }
    if (f.type != WireType::kLen) return false;
    *out = ServerKind{.field = f.number, .payload = f.bytes};
  }
  return !s.failed();
}

bool ScanTickUpdate(std::string_view tick, TickSummary* out) {
  *out = TickSummary{};
  WireScanner s(tick);
  WireField f;
  while (s.Next(&f)) {
    if (!ScanTickField(f, out)) return false;
  }
  return !s.failed();
}

}  // namespace zs::sim
