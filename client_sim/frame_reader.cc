#include "client_sim/frame_reader.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace zs::sim {

namespace {

constexpr size_t kMaxPrefixBytes = 5;        // 35 bits: more than any allowed length
constexpr size_t kShrinkAbove = 256 * 1024;  // an idle buffer grown past this is released
constexpr size_t kInitialBytes = 2 * FrameReader::kMinRead;
constexpr uint8_t kWsBinary = 0x2;  // RFC 6455 5.2 opcodes
constexpr uint8_t kWsClose = 0x8;

}  // namespace

std::span<char> FrameReader::Writable() {
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == 0 && buffer_.size() > kShrinkAbove) std::vector<char>().swap(buffer_);
  const size_t want = std::max({end_ + kMinRead, needed_, kInitialBytes});
  if (buffer_.size() < want) buffer_.resize(want);
  return {buffer_.data() + end_, buffer_.size() - end_};
}

FrameReader::Result FrameReader::Next(std::string_view* frame) {
  if (failed_) return Result::kError;
  return framing_ == Framing::kVarint ? NextVarint(frame) : NextWebSocket(frame);
}

FrameReader::Result FrameReader::NextWebSocket(std::string_view* frame) {
  if (end_ - begin_ < 2) return Result::kNeedMore;
  const auto b0 = static_cast<uint8_t>(buffer_[begin_]);
  const auto b1 = static_cast<uint8_t>(buffer_[begin_ + 1]);
  const uint8_t opcode = b0 & 0x0F;
  // From a server: FIN, no reserved bits, never masked; binary messages and a close only.
  if ((b0 & 0xF0) != 0x80 || (b1 & 0x80) != 0) return Fail();
  if (opcode != kWsBinary && opcode != kWsClose) return Fail();
  const uint64_t length7 = b1 & 0x7F;
  const size_t extra = length7 == 126 ? 2 : length7 == 127 ? 8 : 0;
  if (end_ - begin_ < 2 + extra) return Result::kNeedMore;
  uint64_t length = length7;
  if (extra > 0) {
    length = 0;
    for (size_t i = 0; i < extra; ++i) {
      length = (length << 8) | static_cast<uint8_t>(buffer_[begin_ + 2 + i]);
    }
  }
  const Result r = TakeBody(begin_ + 2 + extra, length, frame);
  if (r != Result::kFrame || opcode == kWsBinary) return r;
  const size_t body = frame->size();
  if (body == 1) return Fail();
  close_code_ = body >= 2 ? static_cast<uint16_t>((static_cast<uint8_t>((*frame)[0]) << 8) |
                                                  static_cast<uint8_t>((*frame)[1]))
                          : 0;
  frame->remove_prefix(std::min<size_t>(body, 2));
  return Result::kClose;
}

FrameReader::Result FrameReader::NextVarint(std::string_view* frame) {
  uint64_t length = 0;
  size_t pos = begin_;
  for (size_t i = 0;; ++i) {
    if (i == kMaxPrefixBytes) return Fail();
    if (pos == end_) return Result::kNeedMore;
    const auto byte = static_cast<uint8_t>(buffer_[pos++]);
    length |= static_cast<uint64_t>(byte & 0x7F) << (7 * i);
    if ((byte & 0x80) == 0) break;
  }
  return TakeBody(pos, length, frame);
}

FrameReader::Result FrameReader::TakeBody(size_t pos, uint64_t length, std::string_view* frame) {
  if (length > max_frame_) return Fail();
  const auto body = static_cast<size_t>(length);
  if (end_ - pos < body) {
    needed_ = pos - begin_ + body;
    return Result::kNeedMore;
  }
  *frame = std::string_view(buffer_.data() + pos, body);
  begin_ = pos + body;
  needed_ = 0;
  return Result::kFrame;
}

}  // namespace zs::sim
