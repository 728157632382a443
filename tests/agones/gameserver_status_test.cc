// ParseGameServerAddress on the Agones SDK's GET /gameserver answer: a realistic GameServer,
// the states before it is placed (incomplete: ask again), and untrusted input that can never be
// right (malformed, with the field named): wrong types, bad ports, odd addresses, not JSON,
// oversized, nested too deep. None of it may throw or crash.
#include "agones/gameserver_status.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "agones/fake_agones_sidecar.h"

namespace zs::agones {
namespace {

GameServerAddress Parse(const std::string& json, const std::string& port = "game") {
  return ParseGameServerAddress(json, port);
}

// {"status": <status>}
std::string WithStatus(const std::string& status) { return R"({"status": )" + status + "}"; }

TEST(GameServerStatus, ReadsTheAddressAndTheNamedPortOfARealisticGameServer) {
  const GameServerAddress a = Parse(fakes::GameServerJson("34.89.10.7", 7342));
  ASSERT_EQ(a.outcome, GameServerParse::kOk) << a.why;
  EXPECT_EQ(a.host, "34.89.10.7");
  EXPECT_EQ(a.port, 7342);
  EXPECT_EQ(a.state, "Ready");
  EXPECT_EQ(a.HostPort(), "34.89.10.7:7342");
}

TEST(GameServerStatus, PicksThePortByNameAndAcceptsAPortAsADecimalString) {
  const std::string json = WithStatus(
      R"({"address": "node-1.example", "ports": [{"name": "metrics", "port": 7001},
          {"name": "game", "port": "7002"}]})");
  const GameServerAddress a = Parse(json);
  ASSERT_EQ(a.outcome, GameServerParse::kOk) << a.why;
  EXPECT_EQ(a.HostPort(), "node-1.example:7002");
  EXPECT_EQ(Parse(json, "metrics").port, 7001);
}

TEST(GameServerStatus, AnIpv6AddressIsBracketed) {
  const GameServerAddress a =
      Parse(WithStatus(R"({"address": "2001:db8::7", "ports": [{"name": "game", "port": 7777}]})"));
  ASSERT_EQ(a.outcome, GameServerParse::kOk) << a.why;
  EXPECT_EQ(a.HostPort(), "[2001:db8::7]:7777");
}

TEST(GameServerStatus, MissingFieldsAreIncompleteNotErrors) {
  const std::string game = R"("ports": [{"name": "game", "port": 7777}])";
  for (const std::string& json :
       {std::string("{}"), std::string(R"({"status": null})"), WithStatus("{}"),
        WithStatus(R"({"state": "Scheduled", )" + game + "}"),
        WithStatus(R"({"address": "", )" + game + "}"), WithStatus(R"({"address": "10.0.0.1"})"),
        WithStatus(R"({"address": "10.0.0.1", "ports": []})"),
        WithStatus(R"({"address": "10.0.0.1", "ports": [{"name": "game"}]})"),
        WithStatus(R"({"address": "10.0.0.1", "ports": [{"name": "game", "port": 0}]})"),
        WithStatus(R"({"address": "10.0.0.1", "ports": [{"name": "other", "port": 7}]})")}) {
    const GameServerAddress a = Parse(json);
    EXPECT_EQ(a.outcome, GameServerParse::kIncomplete) << json << ": " << a.why;
    EXPECT_FALSE(a.why.empty()) << json;
  }
  const GameServerAddress named =
      Parse(WithStatus(R"({"address": "10.0.0.1", "ports": [{"name": "default", "port": 7}]})"));
  EXPECT_NE(named.why.find("no port named 'game' (ports: default)"), std::string::npos)
      << named.why;
  const GameServerAddress scheduled = Parse(WithStatus(R"({"state": "Scheduled"})"));
  EXPECT_EQ(scheduled.state, "Scheduled");
}

struct BadCase {
  std::string json;
  std::string why;  // a part of the reason
};

TEST(GameServerStatus, WrongTypesAndValuesAreMalformedNamingTheField) {
  const std::string ok_port = R"("ports": [{"name": "game", "port": 7777}])";
  const BadCase cases[] = {
      {"[]", "the answer: expected an object, got array"},
      {R"("text")", "expected an object, got string"},
      {R"({"status": "Ready"})", "status: expected an object, got string"},
      {WithStatus(R"({"state": 3})"), "status.state: expected a string, got number"},
      {WithStatus(R"({"address": 10, )" + ok_port + "}"), "status.address: expected a string"},
      {WithStatus(R"({"address": ["10.0.0.1"]})"), "status.address: expected a string"},
      {WithStatus(R"({"address": "10.0.0.1", "ports": {"game": 7777}})"),
       "status.ports: expected an array, got object"},
      {WithStatus(R"({"address": "10.0.0.1", "ports": [7777]})"),
       "status.ports[0]: expected an object, got number"},
      {WithStatus(R"({"address": "10.0.0.1", "ports": [{"name": 1, "port": 7777}]})"),
       "status.ports[0].name: expected a string"},
      {WithStatus(R"({"address": "10.0.0.1", "ports": [{"name": "game", "port": true}]})"),
       "status.ports[0].port: expected an integer, got boolean"},
      {WithStatus(R"({"address": "10.0.0.1", "ports": [{"name": "game", "port": 7777.5}]})"),
       "status.ports[0].port: expected an integer, got number"},
      {WithStatus(R"({"address": "10.0.0.1", "ports": [{"name": "game", "port": "77x"}]})"),
       "status.ports[0].port: expected an integer, got \"77x\""},
      {WithStatus(R"({"address": "10.0.0.1", "ports": [{"name": "game", "port": 70000}]})"),
       "status.ports[0].port: 70000 is not a port number"},
      {WithStatus(R"({"address": "10.0.0.1", "ports": [{"name": "game", "port": -1}]})"),
       "status.ports[0].port: -1 is not a port number"},
      {WithStatus(R"({"address": "10.0.0.1 evil", )" + ok_port + "}"),
       "is not a host name or IP address"},
      {WithStatus(R"({"address": "a/b", )" + ok_port + "}"), "is not a host name"},
      {WithStatus(R"({"address": ")" + std::string(300, 'a') + "\", " + ok_port + "}"),
       "is not a host name"},
  };
  for (const BadCase& c : cases) {
    const GameServerAddress a = Parse(c.json);
    EXPECT_EQ(a.outcome, GameServerParse::kMalformed) << c.json;
    EXPECT_NE(a.why.find(c.why), std::string::npos) << c.json << ": " << a.why;
  }
}

TEST(GameServerStatus, NotJsonIsMalformed) {
  for (const std::string& json :
       std::vector<std::string>{"", "{", "{\"status\": {", "<html>502</html>", "{}{}", "nul",
                                std::string("{\"a\": \"\xff\xfe\"}")}) {
    const GameServerAddress a = Parse(json);
    EXPECT_EQ(a.outcome, GameServerParse::kMalformed) << json;
    EXPECT_EQ(a.why, "not JSON") << json;
  }
}

TEST(GameServerStatus, AnOversizedAnswerIsRefusedUnread) {
  std::string json = fakes::GameServerJson("10.0.0.1", 7777);
  json.insert(1, R"("padding": ")" + std::string(kMaxGameServerBytes, 'x') + R"(", )");
  const GameServerAddress a = Parse(json);
  EXPECT_EQ(a.outcome, GameServerParse::kMalformed);
  EXPECT_EQ(a.why, "larger than 1048576 bytes");
}

TEST(GameServerStatus, DeepNestingIsMalformedNotAStackOverflow) {
  // Just under the size limit: half a million levels of arrays, then of objects.
  const size_t levels = kMaxGameServerBytes / 2 - 16;
  const std::string arrays =
      "{\"status\": " + std::string(levels, '[') + std::string(levels, ']') + "}";
  std::string objects = "{\"status\": ";
  for (size_t i = 0; i < kMaxGameServerBytes / 8; ++i) objects += "{\"a\":";
  for (const std::string& json : {arrays, objects}) {
    const GameServerAddress a = Parse(json);
    EXPECT_EQ(a.outcome, GameServerParse::kMalformed);
    EXPECT_EQ(a.why, "nested deeper than 32 levels");
  }
  // Within the limit, unknown deep fields are fine.
  const std::string ok = R"({"spec": {"a": {"b": {"c": [[[{}]]]}}}, )" +
                         fakes::GameServerJson("10.0.0.1", 7777).substr(1);
  EXPECT_EQ(Parse(ok).outcome, GameServerParse::kOk) << Parse(ok).why;
}

}  // namespace
}  // namespace zs::agones
