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
// Two framings (`--transport`): varint-length-prefixed (TCP), or WebSocket (RFC 6455 server
// frames: each binary message is a frame; a close frame ends the stream, with its code and
// reason; a masked, fragmented, text or reserved frame from a server is an error). On the
// WebSocket door the server's HTTP answer comes first: Pending and Consume read it.
// Threads: one per connection, used on the bot's event loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace zs::sim {

class FrameReader {
 public:
  enum class Result : uint8_t { kFrame, kNeedMore, kError, kClose };
  enum class Framing : uint8_t { kVarint, kWebSocket };

  explicit FrameReader(size_t max_frame_bytes, Framing framing = Framing::kVarint)
      : max_frame_(max_frame_bytes), framing_(framing) {}

  // Room for the next socket read: at least kMinRead bytes, and the whole of a partial frame
  // whose length is known. Invalidates the views Next returned.
  std::span<char> Writable();
  // REQUIRES: n <= Writable().size(), the bytes written there.
  void Commit(size_t n) { end_ += n; }

  // The next complete frame's body into *frame, valid until the next Writable(). kClose (a
  // WebSocket close frame): *frame is its reason, close_code() its code.
  Result Next(std::string_view* frame);

  // The bytes received and not consumed, and consuming them (the upgrade's HTTP answer).
  [[nodiscard]] std::string_view Pending() const {
    return {buffer_.data() + begin_, end_ - begin_};
  }
  void Consume(size_t n) { begin_ += n; }

  [[nodiscard]] bool failed() const { return failed_; }
  [[nodiscard]] uint16_t close_code() const { return close_code_; }

  static constexpr size_t kMinRead = 16 * 1024;

 private:
  Result NextVarint(std::string_view* frame);
  Result NextWebSocket(std::string_view* frame);
  // The frame whose body of `length` bytes starts at buffer_[pos] (its header ends there):
  // over the limit, not all here yet (needed_ set), or taken.
  Result TakeBody(size_t pos, uint64_t length, std::string_view* frame);
  Result Fail() {
    failed_ = true;
    return Result::kError;
  }

  size_t max_frame_;
  Framing framing_;
  uint16_t close_code_ = 0;
  std::vector<char> buffer_;
  size_t begin_ = 0;   // first unconsumed byte
  size_t end_ = 0;     // one past the last received byte
  size_t needed_ = 0;  // bytes (from begin_) the partial frame needs, when its length is known
  bool failed_ = false;
};

}  // namespace zs::sim
