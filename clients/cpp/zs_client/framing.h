// TCP framing: each message is prefixed by its length as a protobuf varint (what
// writeDelimitedTo / parseDelimitedFrom produce). WebSocket needs none at this layer: one binary
// message is one protobuf message.
//
// FrameDecoder takes bytes in chunks of any size and hands out whole frames. A length is checked
// against the limit before its body is buffered: an oversized length or a malformed varint (more
// than 32 bits) is a typed error, and the stream is unusable from then on (Next() gives nothing
// more, Feed() drops its bytes). Memory: what was fed and not yet handed out, which is at most
// one frame's length prefix and body plus the last chunk when the caller drains Next() after
// each Feed(); the buffer's capacity is kept across frames (no allocation per frame once grown).
//
// Pure: no I/O, no timers. Not thread-safe: one owner.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace zs::client {

enum class FrameError : uint8_t {
  kNone = 0,
  kTooLarge,   // a length over the decoder's max_frame_bytes
  kBadLength,  // a varint of more than 32 bits
};

// Largest varint of a 32-bit length.
inline constexpr size_t kMaxVarintBytes = 5;

// Bytes of the varint encoding of `n`.
[[nodiscard]] size_t VarintSize(uint32_t n);
// Appends the varint encoding of `n` to `out`.
void AppendVarint(uint32_t n, std::vector<uint8_t>* out);
// Appends `body` with its varint length in front. REQUIRES: body.size() < 2^32.
void AppendFrame(std::span<const uint8_t> body, std::vector<uint8_t>* out);

class FrameDecoder {
 public:
  // `max_frame_bytes`: the largest body accepted.
  explicit FrameDecoder(size_t max_frame_bytes) : max_frame_bytes_(max_frame_bytes) {}

  // Appends bytes as they came (ignored once failed).
  void Feed(std::span<const uint8_t> bytes);
  // The next whole frame's body (a view valid until the next Feed or Reset), or nullopt: not
  // complete yet, or failed (see error()).
  [[nodiscard]] std::optional<std::span<const uint8_t>> Next();
  // Forgets everything buffered and any error (a new connection).
  void Reset();

  [[nodiscard]] FrameError error() const { return error_; }
  [[nodiscard]] size_t buffered() const { return buf_.size() - start_; }
  [[nodiscard]] size_t max_frame_bytes() const { return max_frame_bytes_; }

 private:
  size_t max_frame_bytes_;
  std::vector<uint8_t> buf_;
  size_t start_ = 0;  // first byte not yet handed out
  FrameError error_ = FrameError::kNone;
};

}  // namespace zs::client
