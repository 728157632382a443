// client_sim's WebSocket client side (client_sim/ws_client.h) against RFC 6455's own example and
// the server's decoder (wire::WsDecoder): the two implementations check each other.
#include "client_sim/ws_client.h"

#include <gtest/gtest.h>

#include <string>

#include "wire/ws_codec.h"

namespace zs::sim {
namespace {

TEST(WsClient, TheUpgradeIsCheckedAgainstItsAcceptKeyAndSubprotocol) {
  const std::string key = "dGhlIHNhbXBsZSBub25jZQ==";  // RFC 6455 1.3's example
  const std::string ok =
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: zone.v9\r\n"
      "\r\n";
  EXPECT_EQ(WsResponseEnd(ok + std::string("\x82\x00", 2)), ok.size())
      << "frames may follow the head";
  EXPECT_EQ(WsResponseEnd(ok.substr(0, ok.size() - 1)), std::string_view::npos);
  EXPECT_EQ(CheckWsUpgrade(ok, key, 9), "");
  EXPECT_NE(CheckWsUpgrade(ok, key, 8), "") << "another subprotocol";
  EXPECT_NE(CheckWsUpgrade(ok, "x3JJHMbDL1EzLkh9GBhXDw==", 9), "") << "another key";
  EXPECT_EQ(CheckWsUpgrade("HTTP/1.1 403 Forbidden\r\n\r\n", key, 9),
            "upgrade refused: HTTP/1.1 403 Forbidden");
  const std::string request = WsUpgradeRequest("127.0.0.1", 7778, key, 9);
  EXPECT_NE(request.find("Sec-WebSocket-Protocol: zone.v9\r\n"), std::string::npos);
  EXPECT_NE(request.find("Host: 127.0.0.1:7778\r\n"), std::string::npos);
  EXPECT_EQ(WsKey({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}).size(), 24u);
}

TEST(WsClient, MaskedFramesAreWhatTheServersDecoderReads) {
  std::string stream;
  const std::string bodies[] = {"", "move", std::string(300, 'c'), std::string(70000, 'h')};
  uint32_t mask = 0x01020304;
  for (const std::string& b : bodies) AppendMaskedFrame(b, mask += 0x9E3779B9, &stream);
  wire::WsDecoder decoder(1 << 20);
  decoder.Feed(stream);
  std::string payload;
  for (const std::string& b : bodies) {
    ASSERT_EQ(decoder.Next(&payload), wire::WsDecoder::Result::kMessage);
    EXPECT_EQ(payload, b);
  }
  EXPECT_EQ(decoder.Next(&payload), wire::WsDecoder::Result::kNeedMore);
}

}  // namespace
}  // namespace zs::sim
