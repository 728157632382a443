#include "wire/frame_codec.h"

namespace zs::wire {

const char* FrameErrorName(FrameError e) {
  switch (e) {
    case FrameError::kNone:
      return "none";
    case FrameError::kInvalidLength:
      return "invalid_length";
    case FrameError::kTooLarge:
      return "frame_too_large";
  }
  return "unknown";
}

FrameDecoder::Result FrameDecoder::Next(std::string* frame) {
  if (failed()) return Result::kError;
  // Decode the varint length prefix: at most 5 bytes (35 bits, more than any allowed length).
  uint64_t length = 0;
  size_t pos = read_;
  for (int i = 0;; ++i) {
    if (i == 5) {
      error_ = FrameError::kInvalidLength;
      return Result::kError;
    }
    if (pos == buffer_.size()) return Result::kNeedMore;
    const auto byte = static_cast<uint8_t>(buffer_[pos++]);
    length |= static_cast<uint64_t>(byte & 0x7F) << (7 * i);
    if ((byte & 0x80) == 0) break;
  }
  if (length > max_frame_) {
    error_ = FrameError::kTooLarge;
    return Result::kError;
  }
  if (buffer_.size() - pos < length) return Result::kNeedMore;
  frame->assign(buffer_, pos, static_cast<size_t>(length));
  read_ = pos + static_cast<size_t>(length);
  CompactConsumed(&buffer_, &read_);
  return Result::kFrame;
}

void CompactConsumed(std::string* buffer, size_t* read) {
  if (*read == buffer->size()) {
    buffer->clear();
    *read = 0;
  } else if (*read > 4096 && *read * 2 > buffer->size()) {
    buffer->erase(0, *read);
    *read = 0;
  }
}

void AppendVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(static_cast<uint8_t>(v) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

bool ReadVarint(std::string_view bytes, size_t* at, uint64_t* out) {
  uint64_t v = 0;
  for (size_t i = 0; i < 10 && *at + i < bytes.size(); ++i) {
    const auto byte = static_cast<uint8_t>(bytes[*at + i]);
    v |= static_cast<uint64_t>(byte & 0x7F) << (7 * i);
    if ((byte & 0x80) == 0) {
      *at += i + 1;
      *out = v;
      return true;
    }
  }
  return false;
}

void AppendFrame(std::string_view body, std::string* out) {
  AppendVarint(body.size(), out);
  out->append(body);
}

}  // namespace zs::wire
