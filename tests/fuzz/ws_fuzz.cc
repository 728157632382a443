// Fuzz target: what a client's bytes go through on the WebSocket door, WsDecoder.
//
// Input: byte 0 picks the message size limit, byte 1 seeds how the stream is cut into reads;
// the rest is the byte stream a client sends after the upgrade. Properties (each
// __builtin_trap() when broken):
//   1. The decoder agrees with the reference decoder below (RFC 6455 5.2 written out the
//      obvious way, with the door's rules): the same messages, pings, pongs and close, then the
//      same error, or the same number of bytes left buffered.
//   2. How the stream is cut into reads does not matter, and once failed it stays failed.
//   3. What is buffered never exceeds one frame's header and the limit.
//   4. The server's side: the decoded messages, as varint frames through AppendWsMessages, read
//      back (unmasked, shortest lengths, FIN) as exactly those messages; WsCloseFrame's body is
//      at most a control frame's.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "wire/frame_codec.h"
#include "wire/ws_codec.h"

namespace zs::wire {
namespace {

void Require(bool ok) {
  if (!ok) __builtin_trap();
}

struct Event {
  WsDecoder::Result kind;
  std::string payload;
  uint16_t close_code = 0;
  bool operator==(const Event&) const = default;
};

struct Decoded {
  std::vector<Event> events;
  WsError error = WsError::kNone;
  size_t left = 0;
};

// RFC 6455 5.2 for frames from a client, with the door's rules, written out the obvious way.
Decoded ReferenceDecode(std::string_view in, size_t max) {
  Decoded out;
  size_t at = 0;
  auto fail = [&](WsError e) {
    out.error = e;
    return out;
  };
  while (in.size() - at >= 2) {
    const auto b0 = static_cast<uint8_t>(in[at]);
    const auto b1 = static_cast<uint8_t>(in[at + 1]);
    const bool fin = (b0 & 0x80) != 0;
    const uint8_t op = b0 & 0x0F;
    const uint64_t len7 = b1 & 0x7F;
    if ((b0 & 0x70) != 0) return fail(WsError::kReservedBits);
    if ((b1 & 0x80) == 0) return fail(WsError::kUnmasked);
    const bool control = op >= 8;
    if (control && op != 8 && op != 9 && op != 10) return fail(WsError::kBadOpcode);
    if (control && (!fin || len7 > 125)) return fail(WsError::kBadControl);
    if (!control && op == 1) return fail(WsError::kText);
    if (!control && (op == 0 || !fin)) return fail(WsError::kFragmented);
    if (!control && op != 2) return fail(WsError::kBadOpcode);
    const size_t extra = len7 == 126 ? 2 : len7 == 127 ? 8 : 0;
    if (in.size() - at < 2 + extra) break;
    uint64_t len = len7;
    if (extra > 0) {
      len = 0;
      for (size_t i = 0; i < extra; ++i) len = len * 256 + static_cast<uint8_t>(in[at + 2 + i]);
    }
    if (len > max) return fail(WsError::kTooLarge);
    const size_t header = 2 + extra + 4;
    if (in.size() - at < header + len) break;
    std::string payload;
    for (size_t i = 0; i < len; ++i) {
      payload.push_back(static_cast<char>(static_cast<uint8_t>(in[at + header + i]) ^
                                          static_cast<uint8_t>(in[at + header - 4 + i % 4])));
    }
    at += header + static_cast<size_t>(len);
    Event e{.kind = WsDecoder::Result::kMessage, .payload = payload};
    if (op == 9) e.kind = WsDecoder::Result::kPing;
    if (op == 10) e.kind = WsDecoder::Result::kPong;
    if (op == 8) {
      if (payload.size() == 1) return fail(WsError::kBadClose);
      e.kind = WsDecoder::Result::kClose;
      if (payload.size() >= 2) {
        e.close_code = static_cast<uint16_t>(static_cast<uint8_t>(payload[0]) * 256 +
                                             static_cast<uint8_t>(payload[1]));
        e.payload = payload.substr(2);
      }
    }
    out.events.push_back(e);
  }
  out.left = in.size() - at;
  return out;
}

// Feeds `in` in pieces whose sizes come from `seed`, draining after each.
Decoded Decode(std::string_view in, size_t max, uint32_t seed) {
  WsDecoder d(max);
  Decoded out;
  size_t at = 0;
  std::string payload;
  while (at < in.size() && !d.failed()) {
    seed = seed * 1103515245u + 12345u;
    const size_t piece = seed == 0 ? in.size() : 1 + (seed >> 16) % 97;
    d.Feed(in.substr(at, std::min(piece, in.size() - at)));
    at += std::min(piece, in.size() - at);
    for (;;) {
      const WsDecoder::Result r = d.Next(&payload);
      if (r == WsDecoder::Result::kNeedMore) break;
      if (r == WsDecoder::Result::kError) {
        out.error = d.error();
        Require(d.Next(&payload) == WsDecoder::Result::kError);  // stays failed
        return out;
      }
      out.events.push_back(
          {.kind = r,
           .payload = payload,
           .close_code = r == WsDecoder::Result::kClose ? d.close_code() : uint16_t{0}});
    }
    Require(d.buffered() <= 14 + max);  // one frame at most: its header and its body
  }
  out.left = d.buffered();
  return out;
}

// Server frames read back: every one FIN, unmasked, binary, in its shortest length form.
std::vector<std::string> ReadServerMessages(std::string_view in) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < in.size()) {
    Require(in.size() - at >= 2);
    Require(static_cast<uint8_t>(in[at]) == (0x80 | kWsBinary));
    const uint64_t len7 = static_cast<uint8_t>(in[at + 1]);
    Require(len7 < 128);  // no mask bit
    const size_t extra = len7 == 126 ? 2 : len7 == 127 ? 8 : 0;
    Require(in.size() - at >= 2 + extra);
    uint64_t len = len7;
    if (extra > 0) {
      len = 0;
      for (size_t i = 0; i < extra; ++i) len = len * 256 + static_cast<uint8_t>(in[at + 2 + i]);
      Require(len >= (extra == 2 ? 126u : 65536u));
    }
    at += 2 + extra;
    Require(in.size() - at >= len);
    out.emplace_back(in.substr(at, static_cast<size_t>(len)));
    at += static_cast<size_t>(len);
  }
  return out;
}

}  // namespace
}  // namespace zs::wire

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zs::wire;
  if (size < 2) return 0;
  const size_t max = size_t{1} << (data[0] % 18);  // 1 byte .. 128 KiB
  const uint32_t seed = data[1];
  const std::string_view in(reinterpret_cast<const char*>(data) + 2, size - 2);

  const Decoded ref = ReferenceDecode(in, max);
  const Decoded whole = Decode(in, max, 0);
  const Decoded pieces = Decode(in, max, seed | 1);
  for (const Decoded* d : {&whole, &pieces}) {
    Require(d->events == ref.events);
    Require(d->error == ref.error);
    if (ref.error == WsError::kNone) Require(d->left == ref.left);
  }

  std::string frames;
  std::vector<std::string> messages;
  for (const Event& e : ref.events) {
    if (e.kind != WsDecoder::Result::kMessage) continue;
    AppendFrame(e.payload, &frames);
    messages.push_back(e.payload);
  }
  std::string out;
  Require(AppendWsMessages(frames, &out));
  Require(ReadServerMessages(out) == messages);
  for (const Event& e : ref.events) {
    if (e.kind != WsDecoder::Result::kClose) continue;
    Require(WsCloseFrame(WsCloseCode::kNormal, e.payload).size() <= 2 + kWsMaxControlBytes);
  }
  return 0;
}
