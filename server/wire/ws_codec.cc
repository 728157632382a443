#include "wire/ws_codec.h"

#include <array>

#include "wire/frame_codec.h"

namespace zs::wire {

namespace {

constexpr uint8_t kFin = 0x80;
constexpr uint8_t kRsv = 0x70;
constexpr uint8_t kOpcodeBits = 0x0F;
constexpr uint8_t kMaskBit = 0x80;
constexpr uint8_t kLengthBits = 0x7F;
constexpr uint8_t kLength16 = 126;  // the next 2 bytes hold the length
constexpr uint8_t kLength64 = 127;  // the next 8 bytes hold the length
constexpr uint8_t kContinuation = 0x0;
constexpr uint8_t kText = 0x1;
constexpr size_t kMaskBytes = 4;
constexpr size_t kReasonBytes = kWsMaxControlBytes - 2;  // a close frame's reason after its code

bool IsControl(uint8_t opcode) { return (opcode & 0x8) != 0; }

// The payload length and the header's size, or false when the header is not all here yet.
bool ReadLength(std::string_view bytes, uint64_t* length, size_t* header) {
  if (bytes.size() < 2) return false;
  const uint8_t first = static_cast<uint8_t>(bytes[1]) & kLengthBits;
  size_t extra = 0;
  if (first == kLength16) extra = 2;
  if (first == kLength64) extra = 8;
  *header = 2 + extra + kMaskBytes;
  if (bytes.size() < 2 + extra) return false;
  if (extra == 0) {
    *length = first;
    return true;
  }
  uint64_t n = 0;
  for (size_t i = 0; i < extra; ++i) n = (n << 8) | static_cast<uint8_t>(bytes[2 + i]);
  *length = n;
  return true;
}

}  // namespace

const char* WsErrorName(WsError e) {
  switch (e) {
    case WsError::kNone:
      return "none";
    case WsError::kUnmasked:
      return "unmasked client frame";
    case WsError::kReservedBits:
      return "reserved bits set";
    case WsError::kBadOpcode:
      return "reserved opcode";
    case WsError::kText:
      return "text message (the protocol is binary)";
    case WsError::kFragmented:
      return "fragmented message";
    case WsError::kTooLarge:
      return "message too large";
    case WsError::kBadControl:
      return "control frame too long or fragmented";
    case WsError::kBadClose:
      return "close frame with a 1-byte body";
  }
  return "unknown";
}

WsCloseCode CloseCodeFor(WsError e) {
  switch (e) {
    case WsError::kText:
      return WsCloseCode::kUnsupportedData;
    case WsError::kFragmented:
      return WsCloseCode::kPolicy;
    case WsError::kTooLarge:
      return WsCloseCode::kTooBig;
    case WsError::kNone:
      return WsCloseCode::kNormal;
    case WsError::kUnmasked:
    case WsError::kReservedBits:
    case WsError::kBadOpcode:
    case WsError::kBadControl:
    case WsError::kBadClose:
      break;
  }
  return WsCloseCode::kProtocolError;
}

WsDecoder::Result WsDecoder::Next(std::string* payload) {
  if (failed()) return Result::kError;
  const std::string_view bytes = std::string_view(buffer_).substr(read_);
  if (bytes.size() < 2) return Result::kNeedMore;
  const auto b0 = static_cast<uint8_t>(bytes[0]);
  const auto b1 = static_cast<uint8_t>(bytes[1]);
  const uint8_t opcode = b0 & kOpcodeBits;
  // Everything the first two bytes tell is judged before any more is buffered.
  if ((b0 & kRsv) != 0) return Fail(WsError::kReservedBits);
  if ((b1 & kMaskBit) == 0) return Fail(WsError::kUnmasked);
  if (IsControl(opcode)) {
    if (opcode != kWsClose && opcode != kWsPing && opcode != kWsPong) {
      return Fail(WsError::kBadOpcode);
    }
    if ((b0 & kFin) == 0 || (b1 & kLengthBits) > kWsMaxControlBytes) {
      return Fail(WsError::kBadControl);
    }
  } else if (opcode == kText) {
    return Fail(WsError::kText);
  } else if (opcode == kContinuation || (b0 & kFin) == 0) {
    return Fail(WsError::kFragmented);
  } else if (opcode != kWsBinary) {
    return Fail(WsError::kBadOpcode);
  }
  uint64_t length = 0;
  size_t header = 0;
  if (!ReadLength(bytes, &length, &header)) return Result::kNeedMore;
  if (length > max_message_) return Fail(WsError::kTooLarge);
  if (bytes.size() < header + length) return Result::kNeedMore;
  const auto n = static_cast<size_t>(length);
  std::array<uint8_t, kMaskBytes> mask{};
  for (size_t i = 0; i < kMaskBytes; ++i) {
    mask[i] = static_cast<uint8_t>(bytes[header - kMaskBytes + i]);
  }
  payload->resize(n);
  for (size_t i = 0; i < n; ++i) {
    (*payload)[i] = static_cast<char>(static_cast<uint8_t>(bytes[header + i]) ^ mask[i % 4]);
  }
  Consume(read_ + header + n);
  switch (opcode) {
    case kWsPing:
      return Result::kPing;
    case kWsPong:
      return Result::kPong;
    case kWsClose:
      if (n == 1) return Fail(WsError::kBadClose);
      close_code_ = n >= 2 ? static_cast<uint16_t>((static_cast<uint8_t>((*payload)[0]) << 8) |
                                                   static_cast<uint8_t>((*payload)[1]))
                           : 0;
      payload->erase(0, n >= 2 ? 2 : 0);
      return Result::kClose;
    default:
      return Result::kMessage;
  }
}

void WsDecoder::Consume(size_t end) {
  read_ = end;
  CompactConsumed(&buffer_, &read_);
}

void AppendWsFrame(uint8_t opcode, std::string_view payload, std::string* out) {
  out->push_back(static_cast<char>(kFin | opcode));
  const size_t n = payload.size();
  if (n < kLength16) {
    out->push_back(static_cast<char>(n));
  } else if (n <= 0xFFFF) {
    out->push_back(static_cast<char>(kLength16));
    out->push_back(static_cast<char>(n >> 8));
    out->push_back(static_cast<char>(n & 0xFF));
  } else {
    out->push_back(static_cast<char>(kLength64));
    for (int shift = 56; shift >= 0; shift -= 8) {
      out->push_back(static_cast<char>((static_cast<uint64_t>(n) >> shift) & 0xFF));
    }
  }
  out->append(payload);
}

bool AppendWsMessages(std::string_view frames, std::string* out) {
  const size_t start = out->size();
  size_t at = 0;
  while (at < frames.size()) {
    uint64_t length = 0;
    if (!ReadVarint(frames, &at, &length) || length > frames.size() - at) {
      out->resize(start);
      return false;
    }
    AppendWsFrame(kWsBinary, frames.substr(at, static_cast<size_t>(length)), out);
    at += static_cast<size_t>(length);
  }
  return true;
}

std::string WsCloseFrame(WsCloseCode code, std::string_view reason) {
  std::string body;
  const auto c = static_cast<uint16_t>(code);
  body.push_back(static_cast<char>(c >> 8));
  body.push_back(static_cast<char>(c & 0xFF));
  body.append(reason.substr(0, kReasonBytes));  // our reasons are ASCII: no character is cut
  std::string out;
  AppendWsFrame(kWsClose, body, &out);
  return out;
}

}  // namespace zs::wire
