// FrameReader: splits the bytes a bot receives into varint-length-delimited frames (the
// protocol's framing, proto/zone.proto) without copying them.
//
// The socket reads straight into the reader's buffer (Writable, then Commit); Next hands out each
// complete frame as a view into that buffer. Only the bytes of a partial frame are ever moved
// (to the front, before the next read), so a frame costs no copy on the way to its parser. This
// is client_sim's own implementation, independent of the server's wire::FrameDecoder, so the two
// check each other.
// Errors: a length prefix longer than 5 bytes or a length above the limit fails the reader for
// good (the caller disconnects); the limit is checked before the buffer grows for the body.
// Threads: one per connection, used on the bot's event loop.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace zs::sim {

class FrameReader {
 public:
  enum class Result : uint8_t { kFrame, kNeedMore, kError };

  explicit FrameReader(size_t max_frame_bytes) : max_frame_(max_frame_bytes) {}

  // Room for the next socket read: at least kMinRead bytes, and the whole of a partial frame
  // whose length is known. Invalidates the views Next returned.
  std::span<char> Writable();
  // REQUIRES: n <= Writable().size(), the bytes written there.
  void Commit(size_t n) { end_ += n; }

  // The next complete frame's body into *frame, valid until the next Writable().
  Result Next(std::string_view* frame);

  [[nodiscard]] bool failed() const { return failed_; }

  static constexpr size_t kMinRead = 16 * 1024;

 private:
  size_t max_frame_;
  std::vector<char> buffer_;
  size_t begin_ = 0;   // first unconsumed byte
  size_t end_ = 0;     // one past the last received byte
  size_t needed_ = 0;  // bytes (from begin_) the partial frame needs, when its length is known
  bool failed_ = false;
};

}  // namespace zs::sim
