#include "net/ws_handshake.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "wire/protocol.h"

namespace zs::net {
namespace {

TEST(WsHandshake, TheNewestSubprotocolOfOursOfferedIsChosen) {
  const uint32_t newest = wire::kProtocolVersion;
  EXPECT_EQ(ChooseSubprotocol(SubprotocolName(newest)), newest);
  EXPECT_EQ(ChooseSubprotocol("chat, zone.v" + std::to_string(wire::kMinProtocolVersion) +
                              " ,\tzone.v" + std::to_string(newest) + ", zone.v999"),
            newest)
      << "spaces and tabs around tokens; versions we do not speak are passed over";
  EXPECT_EQ(ChooseSubprotocol("zone.v" + std::to_string(wire::kMinProtocolVersion)),
            wire::kMinProtocolVersion);
  EXPECT_EQ(ChooseSubprotocol(""), std::nullopt);
  EXPECT_EQ(ChooseSubprotocol("chat, superchat"), std::nullopt);
  EXPECT_EQ(ChooseSubprotocol("zone.v" + std::to_string(newest + 1)), std::nullopt);
  EXPECT_EQ(ChooseSubprotocol("zone.v" + std::to_string(wire::kMinProtocolVersion - 1)),
            std::nullopt);
  for (const char* bad :
       {"zone.v", "zone.v09", "zone.v+9", "zone.v9x", "Zone.v9", "zone.v-9", "zone.v99999999999"}) {
    EXPECT_EQ(ChooseSubprotocol(bad), std::nullopt) << bad;
  }
  EXPECT_EQ(SubprotocolRange(), "zone.v" + std::to_string(wire::kMinProtocolVersion) +
                                    " .. zone.v" + std::to_string(newest));
}

TEST(WsHandshake, APageMayOpenTheDoorFromItsOwnOriginOrAnAllowedOne) {
  const std::vector<std::string> none;
  const std::vector<std::string> listed = {"https://game.example.com"};
  const std::vector<std::string> any = {"*"};
  EXPECT_TRUE(OriginAllowed("", "127.0.0.1:7778", none)) << "no Origin: not a browser";
  EXPECT_TRUE(OriginAllowed("http://127.0.0.1:7778", "127.0.0.1:7778", none)) << "same origin";
  EXPECT_TRUE(OriginAllowed("HTTPS://Play.Example.com", "play.example.com", none));
  EXPECT_FALSE(OriginAllowed("http://127.0.0.1:8080", "127.0.0.1:7778", none))
      << "another port is another origin";
  EXPECT_FALSE(OriginAllowed("https://evil.example.net", "play.example.com", none));
  EXPECT_FALSE(OriginAllowed("https://play.example.com.evil.net", "play.example.com", none));
  EXPECT_FALSE(OriginAllowed("null", "play.example.com", none)) << "a sandboxed or file page";
  EXPECT_FALSE(OriginAllowed("https://game.example.com", "", none)) << "no Host: no same origin";
  EXPECT_TRUE(OriginAllowed("https://game.example.com", "play.example.com", listed));
  EXPECT_FALSE(OriginAllowed("https://game.example.com:8443", "play.example.com", listed));
  EXPECT_TRUE(OriginAllowed("https://anything.example.org", "play.example.com", any));
}

}  // namespace
}  // namespace zs::net
