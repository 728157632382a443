#include "client_sim/frame_reader.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace zs::sim {

namespace {

constexpr size_t kMaxPrefixBytes = 5;        // 35 bits: more than any allowed length
constexpr size_t kShrinkAbove = 256 * 1024;  // an idle buffer grown past this is released
constexpr size_t kInitialBytes = 2 * FrameReader::kMinRead;

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
  uint64_t length = 0;
  size_t pos = begin_;
  for (size_t i = 0;; ++i) {
    if (i == kMaxPrefixBytes) {
      failed_ = true;
      return Result::kError;
    }
    if (pos == end_) return Result::kNeedMore;
    const auto byte = static_cast<uint8_t>(buffer_[pos++]);
    length |= static_cast<uint64_t>(byte & 0x7F) << (7 * i);
    if ((byte & 0x80) == 0) break;
  }
  if (length > max_frame_) {
    failed_ = true;
    return Result::kError;
  }
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
