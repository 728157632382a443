#include "zs_client/framing.h"

namespace zs::client {

size_t VarintSize(uint32_t n) {
  size_t size = 1;
  while (n >= 0x80U) {
    n >>= 7U;
    ++size;
  }
  return size;
}

void AppendVarint(uint32_t n, std::vector<uint8_t>* out) {
  while (n >= 0x80U) {
    out->push_back(static_cast<uint8_t>((n & 0x7FU) | 0x80U));
    n >>= 7U;
  }
  out->push_back(static_cast<uint8_t>(n));
}

void AppendFrame(std::span<const uint8_t> body, std::vector<uint8_t>* out) {
  AppendVarint(static_cast<uint32_t>(body.size()), out);
  out->insert(out->end(), body.begin(), body.end());
}

void FrameDecoder::Feed(std::span<const uint8_t> bytes) {
  if (error_ != FrameError::kNone) return;
  if (start_ > 0) {  // what was handed out goes: each byte moves at most once per frame
    buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(start_));
    start_ = 0;
  }
  buf_.insert(buf_.end(), bytes.begin(), bytes.end());
}

std::optional<std::span<const uint8_t>> FrameDecoder::Next() {
  if (error_ != FrameError::kNone) return std::nullopt;
  uint64_t length = 0;
  unsigned shift = 0;
  size_t i = start_;
  for (;;) {
    if (i >= buf_.size()) return std::nullopt;  // the length itself is not complete yet
    const uint8_t b = buf_[i++];
    if (shift == 28 && b > 0x0F) {
      error_ = FrameError::kBadLength;  // more than 32 bits
      return std::nullopt;
    }
    length |= uint64_t{b & 0x7FU} << shift;
    if ((b & 0x80U) == 0) break;
    shift += 7;
  }
  if (length > max_frame_bytes_) {
    error_ = FrameError::kTooLarge;
    return std::nullopt;
  }
  if (buf_.size() - i < length) return std::nullopt;
  const std::span<const uint8_t> body(buf_.data() + i, static_cast<size_t>(length));
  start_ = i + static_cast<size_t>(length);
  return body;
}

void FrameDecoder::Reset() {
  buf_.clear();
  start_ = 0;
  error_ = FrameError::kNone;
}

}  // namespace zs::client
