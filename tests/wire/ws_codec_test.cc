#include "wire/ws_codec.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "support/ws_client_frame.h"
#include "wire/frame_codec.h"

namespace zs::wire {
namespace {

using zs::test::ClientFrame;

TEST(WsDecoder, ReadsMessagesPingsPongsAndACloseInAnyChunking) {
  const std::string big(70000, 'x');  // a 64-bit length
  const std::string mid(300, 'y');    // a 16-bit length
  std::string stream = ClientFrame(kWsBinary, "hello") + ClientFrame(kWsPing, "p1") +
                       ClientFrame(kWsBinary, mid) + ClientFrame(kWsBinary, big) +
                       ClientFrame(kWsPong, "") + ClientFrame(kWsBinary, "") +
                       ClientFrame(kWsClose, std::string("\x03\xE8", 2) + "bye");
  for (const size_t chunk : {size_t{1}, size_t{7}, size_t{4096}, stream.size()}) {
    WsDecoder d(100000);
    std::vector<std::pair<WsDecoder::Result, std::string>> got;
    for (size_t at = 0; at < stream.size(); at += chunk) {
      d.Feed(std::string_view(stream).substr(at, chunk));
      std::string payload;
      for (WsDecoder::Result r; (r = d.Next(&payload)) != WsDecoder::Result::kNeedMore;) {
        ASSERT_NE(r, WsDecoder::Result::kError) << WsErrorName(d.error());
        got.emplace_back(r, payload);
      }
    }
    ASSERT_EQ(got.size(), 7u) << "chunk " << chunk;
    EXPECT_EQ(got[0], std::pair(WsDecoder::Result::kMessage, std::string("hello")));
    EXPECT_EQ(got[1], std::pair(WsDecoder::Result::kPing, std::string("p1")));
    EXPECT_EQ(got[2].second, mid);
    EXPECT_EQ(got[3].second, big);
    EXPECT_EQ(got[4].first, WsDecoder::Result::kPong);
    EXPECT_EQ(got[5], std::pair(WsDecoder::Result::kMessage, std::string()));
    EXPECT_EQ(got[6], std::pair(WsDecoder::Result::kClose, std::string("bye")));
    EXPECT_EQ(d.close_code(), 1000);
    EXPECT_EQ(d.buffered(), 0u);
  }
}

TEST(WsDecoder, RefusesWhatTheDoorDoesNotTakeWithTheCloseCodeForIt) {
  struct Case {
    std::string bytes;
    WsError error;
    WsCloseCode code;
  };
  const std::vector<Case> cases = {
      {ClientFrame(kWsBinary, "x", true, false), WsError::kUnmasked, WsCloseCode::kProtocolError},
      {ClientFrame(kWsBinary, "x", true, true, 0x40), WsError::kReservedBits,
       WsCloseCode::kProtocolError},
      {ClientFrame(0x3, "x"), WsError::kBadOpcode, WsCloseCode::kProtocolError},
      {ClientFrame(0xB, "x"), WsError::kBadOpcode, WsCloseCode::kProtocolError},
      {ClientFrame(0x1, "text"), WsError::kText, WsCloseCode::kUnsupportedData},
      {ClientFrame(kWsBinary, "part", false), WsError::kFragmented, WsCloseCode::kPolicy},
      {ClientFrame(0x0, "rest"), WsError::kFragmented, WsCloseCode::kPolicy},
      {ClientFrame(kWsPing, std::string(126, 'p')), WsError::kBadControl,
       WsCloseCode::kProtocolError},
      {ClientFrame(kWsPing, "p", false), WsError::kBadControl, WsCloseCode::kProtocolError},
      {ClientFrame(kWsClose, "x"), WsError::kBadClose, WsCloseCode::kProtocolError},
      {ClientFrame(kWsBinary, std::string(1025, 'z')), WsError::kTooLarge, WsCloseCode::kTooBig},
  };
  for (const Case& c : cases) {
    WsDecoder d(1024);
    d.Feed(c.bytes);
    std::string payload;
    EXPECT_EQ(d.Next(&payload), WsDecoder::Result::kError) << WsErrorName(c.error);
    EXPECT_EQ(d.error(), c.error);
    EXPECT_EQ(CloseCodeFor(d.error()), c.code) << WsErrorName(c.error);
    EXPECT_EQ(d.Next(&payload), WsDecoder::Result::kError) << "stays failed";
  }
}

TEST(WsDecoder, JudgesATooLargeMessageByItsHeaderBeforeItsBodyIsBuffered) {
  WsDecoder d(1024);
  // A header that claims 2^40 bytes, and nothing of the body.
  std::string header = {static_cast<char>(0x82), static_cast<char>(0xFF)};
  for (int s = 56; s >= 0; s -= 8) header.push_back(static_cast<char>((uint64_t{1} << 40) >> s));
  d.Feed(header);
  std::string payload;
  EXPECT_EQ(d.Next(&payload), WsDecoder::Result::kError);
  EXPECT_EQ(d.error(), WsError::kTooLarge);
  // And a text frame is refused from its first byte, before its length is complete.
  WsDecoder t(1024);
  t.Feed(std::string{static_cast<char>(0x81), static_cast<char>(0xFE)});
  EXPECT_EQ(t.Next(&payload), WsDecoder::Result::kError);
  EXPECT_EQ(t.error(), WsError::kText);
}

// Reads server frames back (unmasked), as a client would.
std::vector<std::pair<uint8_t, std::string>> ServerFrames(std::string_view bytes) {
  std::vector<std::pair<uint8_t, std::string>> out;
  size_t at = 0;
  while (at + 2 <= bytes.size()) {
    const auto b0 = static_cast<uint8_t>(bytes[at]);
    const auto b1 = static_cast<uint8_t>(bytes[at + 1]);
    EXPECT_EQ(b0 & 0xF0, 0x80) << "FIN, no reserved bits";
    EXPECT_EQ(b1 & 0x80, 0) << "a server never masks";
    uint64_t n = b1 & 0x7F;
    at += 2;
    const size_t extra = n == 126 ? 2 : n == 127 ? 8 : 0;
    if (extra > 0) {
      n = 0;
      for (size_t i = 0; i < extra; ++i) n = (n << 8) | static_cast<uint8_t>(bytes[at + i]);
      at += extra;
      EXPECT_GE(n, extra == 2 ? 126u : 65536u) << "the shortest length form";
    }
    out.emplace_back(b0 & 0x0F, std::string(bytes.substr(at, static_cast<size_t>(n))));
    at += static_cast<size_t>(n);
  }
  EXPECT_EQ(at, bytes.size());
  return out;
}

TEST(WsEncoder, EachVarintFrameBecomesOneBinaryMessageInTheShortestLengthForm) {
  std::string frames;
  const std::vector<std::string> bodies = {"",
                                           "a",
                                           std::string(125, 'b'),
                                           std::string(126, 'c'),
                                           std::string(65535, 'd'),
                                           std::string(65536, 'e')};
  for (const std::string& b : bodies) AppendFrame(b, &frames);
  std::string out = "kept";
  ASSERT_TRUE(AppendWsMessages(frames, &out));
  ASSERT_EQ(out.substr(0, 4), "kept") << "appended after what was there";
  const auto got = ServerFrames(std::string_view(out).substr(4));
  ASSERT_EQ(got.size(), bodies.size());
  for (size_t i = 0; i < bodies.size(); ++i) {
    EXPECT_EQ(got[i].first, kWsBinary);
    EXPECT_EQ(got[i].second, bodies[i]);
  }
}

TEST(WsEncoder, RefusesBytesThatAreNotWholeFramesAndAppendsNothing) {
  std::string frames;
  AppendFrame("whole", &frames);
  AppendFrame("cut short", &frames);
  frames.pop_back();
  std::string out = "kept";
  EXPECT_FALSE(AppendWsMessages(frames, &out));
  EXPECT_EQ(out, "kept");
  EXPECT_FALSE(AppendWsMessages(std::string(12, '\xFF'), &out)) << "a varint that never ends";
  EXPECT_EQ(out, "kept");
}

TEST(WsEncoder, ACloseFrameCarriesItsCodeAndAReasonThatFitsAControlFrame) {
  const auto got = ServerFrames(WsCloseFrame(WsCloseCode::kPolicy, "flood"));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].first, kWsClose);
  EXPECT_EQ(got[0].second, std::string("\x03\xF0", 2) + "flood");
  const auto cut = ServerFrames(WsCloseFrame(WsCloseCode::kNormal, std::string(300, 'r')));
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_EQ(cut[0].second.size(), kWsMaxControlBytes);
}

}  // namespace
}  // namespace zs::wire
