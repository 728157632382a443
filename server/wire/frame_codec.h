// Frame codec: protobuf's varint-length-delimited framing (writeDelimitedTo/parseDelimitedFrom).
//
// FrameDecoder is a pure function of the bytes fed to it, in any chunking: each Next() returns
// a complete frame body, "need more", or an error. The length prefix is checked against the
// limit before a single byte of the body is buffered, so a hostile length cannot make us
// allocate. After an error the decoder stays failed: the caller closes the connection.
// Not thread-safe: one per connection, used by the connection's I/O thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace zs::wire {

enum class FrameError : uint8_t {
  kNone = 0,
  kInvalidLength,  // the varint prefix runs past 5 bytes
  kTooLarge,       // the declared length is above the limit
};

[[nodiscard]] const char* FrameErrorName(FrameError e);

class FrameDecoder {
 public:
  enum class Result : uint8_t { kFrame, kNeedMore, kError };

  explicit FrameDecoder(size_t max_frame_bytes) : max_frame_(max_frame_bytes) {}

  // Appends received bytes. REQUIRES: !failed().
  void Feed(std::string_view bytes) { buffer_.append(bytes); }

  // Extracts the next frame into *frame (its body, without the prefix).
  Result Next(std::string* frame);

  [[nodiscard]] bool failed() const { return error_ != FrameError::kNone; }
  [[nodiscard]] FrameError error() const { return error_; }
  // Bytes received but not yet returned as frames (a partial frame).
  [[nodiscard]] size_t buffered() const { return buffer_.size() - read_; }

 private:
  size_t max_frame_;
  std::string buffer_;
  size_t read_ = 0;  // consumed prefix of buffer_
  FrameError error_ = FrameError::kNone;
};

// A decoder's buffer, *read bytes of it consumed: drops that prefix once it dominates (all of it,
// or more than 4 KiB and half the buffer), so the buffer never grows without bound and is not
// moved for every frame. Shared by FrameDecoder and WsDecoder.
void CompactConsumed(std::string* buffer, size_t* read);

// Appends `body` to *out as one frame: varint length, then the bytes.
void AppendFrame(std::string_view body, std::string* out);
void AppendVarint(uint64_t v, std::string* out);
// Reads the varint at bytes[*at] (at most 10 bytes) into *out and moves *at past it; false
// (nothing moved) when the bytes end first or it runs longer.
[[nodiscard]] bool ReadVarint(std::string_view bytes, size_t* at, uint64_t* out);

}  // namespace zs::wire
