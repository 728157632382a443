// The zone viewer's WebSocket (/viewer/ws) against the real zone_server over loopback: the
// frames it sends, and everything a browser (or anything pretending to be one) may do wrong.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "integration/harness.h"
#include "integration/viewer_client.h"

namespace zs::integration {
namespace {

const std::string kViewerWorld = ZS_TEST_VIEWER_WORLD;
constexpr uint32_t kCrowdedMonsters = 3000;  // tests/integration/world/zones/crowded.yaml

// A server with the viewer world and `admin` settings (address and port are the harness's).
ServerProcess ViewerServer(const std::string& admin = "") {
  return ServerProcess("  idle_timeout_seconds: 60\n",
                       "admin: {address: 127.0.0.1, port: 0" + admin + "}\n", kViewerWorld);
}

TEST(ViewerWs, HelloThenFramesOfTheZone) {
  ServerProcess server = ViewerServer();
  ViewerClient v(server.admin_port(), "/viewer/ws");
  ASSERT_TRUE(v.ok()) << v.error().message();
  const auto hello = v.Read();
  ASSERT_TRUE(hello.has_value());
  EXPECT_TRUE(v.last_was_text());
  EXPECT_NE(hello->find("\"type\":\"hello\""), std::string::npos) << *hello;
  EXPECT_NE(hello->find("\"name\":\"crowded\""), std::string::npos) << *hello;
  EXPECT_NE(hello->find("\"name\":\"yard\""), std::string::npos) << *hello;
  const auto frame = v.ReadFrame();
  ASSERT_TRUE(frame.has_value());
  const ViewerFrameHeader h = ParseViewerHeader(*frame);
  EXPECT_EQ(h.type, 1);
  EXPECT_EQ(h.version, 1);
  EXPECT_EQ(h.zone, 1u);
  EXPECT_EQ(h.entities, kCrowdedMonsters);
  EXPECT_GT(h.nodes, 1u);  // 3,000 entities split the root
  EXPECT_EQ(h.selections, 0u);
  EXPECT_EQ(frame->size(), ViewerFixedBytes(h));
  // Another zone on request: the yard is empty.
  ASSERT_TRUE(v.Send("zone 2"));
  bool yard = false;
  for (int i = 0; i < 20 && !yard; ++i) {
    const auto f = v.ReadFrame();
    ASSERT_TRUE(f.has_value());
    yard = ParseViewerHeader(*f).zone == 2 && ParseViewerHeader(*f).entities == 0;
  }
  EXPECT_TRUE(yard);
  const std::string metrics = server.HttpGet("/metrics");
  EXPECT_EQ(MetricValue(metrics, "zs_viewers"), 1);
  EXPECT_GT(MetricValue(metrics, "zs_viewer_frames_total"), 1);
}

// The middle of the tick times of `n` frames of zone `zone` (other zones' frames skipped).
float MedianTickMs(ViewerClient& v, uint32_t zone, size_t n) {
  std::vector<float> ms;
  for (int i = 0; i < 100 && ms.size() < n; ++i) {
    const auto f = v.ReadFrame();
    if (!f) break;
    if (ParseViewerHeader(*f).zone == zone) ms.push_back(ParseViewerHeader(*f).tick_ms);
  }
  if (ms.size() < n) return -1;
  std::sort(ms.begin(), ms.end());
  return ms[n / 2];
}

// One runner per zone: each zone's frames carry that zone's tick time. The crowded zone's 3,000
// monsters take far longer to tick than the empty yard; the medians of 9 frames each keep a
// preempted tick or two from mattering. (ViewerHub.EachTapReportsItsOwnRunnersTickTime checks
// the exact values with the runners' measures given by hand.)
TEST(ViewerWs, EachZonesFramesCarryItsOwnTickTime) {
  ServerProcess server = ViewerServer();
  ViewerClient v(server.admin_port(), "/viewer/ws");
  ASSERT_TRUE(v.ok());
  const float crowded = MedianTickMs(v, 1, 9);
  ASSERT_TRUE(v.Send("zone 2"));
  const float yard = MedianTickMs(v, 2, 9);
  ASSERT_GT(crowded, 0) << "no frames of the crowded zone";
  ASSERT_GE(yard, 0) << "no frames of the yard";
  EXPECT_LT(yard, crowded / 2) << "the yard's frames show another zone's tick time";
}

TEST(ViewerWs, SelectedPlayerBringsItsInterestSet) {
  ServerProcess server = ViewerServer();
  TestClient player(server.port());
  const auto welcome = player.Login("Watched");
  ASSERT_TRUE(welcome.has_value());
  ViewerClient v(server.admin_port(), "/viewer/ws");
  ASSERT_TRUE(v.ok());
  ASSERT_TRUE(v.Send("select " + std::to_string(welcome->entity_id())));
  bool seen = false;
  for (int i = 0; i < 30 && !seen; ++i) {
    const auto f = v.ReadFrame();
    ASSERT_TRUE(f.has_value());
    const ViewerFrameHeader h = ParseViewerHeader(*f);
    if (h.selections != 1) continue;
    const size_t at = ViewerFixedBytes(h);
    EXPECT_EQ(ReadLe<uint32_t>(*f, at), welcome->entity_id());
    EXPECT_FLOAT_EQ(ReadLe<float>(*f, at + 4), 40.0f);  // crowded.yaml's view radius
    const uint32_t known = ReadLe<uint32_t>(*f, at + 12);
    EXPECT_EQ(f->size(), at + 16 + 4 * size_t{known});
    seen = known > 0;  // dummies stand around the spawn point
  }
  EXPECT_TRUE(seen);
}

TEST(ViewerWs, PauseStopsFramesAndResumeRestartsThem) {
  ServerProcess server = ViewerServer();
  ViewerClient v(server.admin_port(), "/viewer/ws");
  ASSERT_TRUE(v.ok());
  ASSERT_TRUE(v.ReadFrame().has_value());
  ASSERT_TRUE(v.Send("pause"));
  // Counted by the server (a timed-out read would end a Beast stream): no frame sent while
  // paused, beyond one already on its way.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const double paused = MetricValue(server.HttpGet("/metrics"), "zs_viewer_frames_total");
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_LE(MetricValue(server.HttpGet("/metrics"), "zs_viewer_frames_total"), paused + 1);
  ASSERT_TRUE(v.Send("resume"));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_GE(MetricValue(server.HttpGet("/metrics"), "zs_viewer_frames_total"), paused + 3);
  EXPECT_TRUE(v.ReadFrame(3).has_value());
}

// Polls /metrics until zs_viewers is `n` (up to 5 s).
bool ViewersBecome(const ServerProcess& server, double n) {
  for (int i = 0; i < 100; ++i) {
    if (MetricValue(server.HttpGet("/metrics"), "zs_viewers") == n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

TEST(ViewerWs, BadUpgradeRequestsAreRefused) {
  ServerProcess server = ViewerServer();
  // A plain GET of the WebSocket's URL.
  EXPECT_EQ(
      RawHttp(server.admin_port(), "GET /viewer/ws HTTP/1.1\r\nHost: x\r\n\r\n").substr(0, 12),
      "HTTP/1.1 426");
  // An upgrade without Sec-WebSocket-Key: Beast's handshake answers 400.
  const std::string no_key =
      "GET /viewer/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Version: 13\r\n\r\n";
  EXPECT_EQ(RawHttp(server.admin_port(), no_key).substr(0, 12), "HTTP/1.1 400");
  // A key that is not a 16-byte nonce in base64 (RFC 6455 4.2.1): empty, not base64, too short.
  for (const std::string key : {"", "not base64 at all!!!!!==", "Zm9v"}) {
    const std::string bad_key =
        "GET /viewer/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: " +
        key + "\r\nSec-WebSocket-Version: 13\r\n\r\n";
    EXPECT_EQ(RawHttp(server.admin_port(), bad_key).substr(0, 12), "HTTP/1.1 400") << key;
  }
  // A wrong version.
  const std::string bad_version =
      "GET /viewer/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 99\r\n\r\n";
  EXPECT_EQ(RawHttp(server.admin_port(), bad_version).substr(0, 12), "HTTP/1.1 426");
  // Not HTTP at all.
  RawHttp(server.admin_port(), std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11));
  EXPECT_EQ(server.HttpGet("/healthz"), "ok\n");
  EXPECT_EQ(MetricValue(server.HttpGet("/metrics"), "zs_viewers"), 0);
}

TEST(ViewerWs, OversizedMessageClosesWith1009) {
  ServerProcess server = ViewerServer();
  ViewerClient v(server.admin_port(), "/viewer/ws");
  ASSERT_TRUE(v.ok());
  ASSERT_TRUE(v.Send(std::string(65, 'z')));  // kMaxViewerCommandBytes is 64
  ASSERT_TRUE(v.ReadUntilClosed());
  EXPECT_EQ(v.close_reason().code, 1009);
  ViewerClient big(server.admin_port(), "/viewer/ws");
  ASSERT_TRUE(big.ok());
  big.Send(std::string(1 << 20, 'z'));  // the server stops reading at 64 bytes and closes
  EXPECT_TRUE(ViewersBecome(server, 0));
  EXPECT_EQ(server.HttpGet("/healthz"), "ok\n");
}

TEST(ViewerWs, BadCommandsCloseWithAReason) {
  ServerProcess server = ViewerServer();
  const struct {
    std::string message;
    bool text;
    uint16_t code;
    std::string reason;
  } cases[] = {
      {.message = "teleport 1", .text = true, .code = 1008, .reason = "unknown command"},
      {.message = "zone 99", .text = true, .code = 1008, .reason = "unknown zone id"},
      {.message = "select -1", .text = true, .code = 1008, .reason = "unknown command"},
      {.message = "zone 1",
       .text = false,
       .code = 1003,
       .reason = "binary messages are not accepted"},
  };
  for (const auto& c : cases) {
    ViewerClient v(server.admin_port(), "/viewer/ws");
    ASSERT_TRUE(v.ok());
    ASSERT_TRUE(v.Send(c.message, c.text));
    ASSERT_TRUE(v.ReadUntilClosed()) << c.message;
    EXPECT_EQ(v.close_reason().code, c.code) << c.message;
    EXPECT_EQ(std::string(v.close_reason().reason.c_str()), c.reason) << c.message;
  }
}

TEST(ViewerWs, ViewerThatNeverReadsIsDroppedAndOthersCarryOn) {
  ServerProcess server = ViewerServer(", viewer_stall_seconds: 1");
  // Upgrade by hand over a socket with a tiny receive buffer, then never read.
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket lazy(io);
  lazy.open(boost::asio::ip::tcp::v4());
  lazy.set_option(boost::asio::socket_base::receive_buffer_size(4096));
  lazy.connect({boost::asio::ip::make_address("127.0.0.1"), server.admin_port()});
  boost::asio::write(
      lazy, boost::asio::buffer(
                std::string("GET /viewer/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                            "Sec-WebSocket-Version: 13\r\n\r\n")));
  ViewerClient good(server.admin_port(), "/viewer/ws");
  ASSERT_TRUE(good.ok());
  const double start = NowS();
  double dropped_at = 0;
  int frames = 0;
  while (NowS() < start + 15) {
    ASSERT_TRUE(good.ReadFrame(2).has_value()) << "the reading viewer stopped getting frames";
    ++frames;
    if (dropped_at == 0 && MetricValue(server.HttpGet("/metrics"), "zs_viewers") == 1) {
      dropped_at = NowS();
    }
    if (dropped_at != 0 && NowS() > dropped_at + 1) break;
  }
  EXPECT_NE(dropped_at, 0) << "the viewer that never reads was not dropped";
  EXPECT_GT(frames, 5);
  EXPECT_NE(server.Log().find("not taken within"), std::string::npos);
  const std::string metrics = server.HttpGet("/metrics");
  EXPECT_GT(MetricValue(metrics, "zs_viewer_frames_skipped_total"), 0);
  EXPECT_EQ(server.HttpGet("/healthz"), "ok\n");
}

TEST(ViewerWs, MoreViewersThanAllowedAreRefusedWith503) {
  ServerProcess server = ViewerServer(", max_viewers: 2");
  ViewerClient a(server.admin_port(), "/viewer/ws");
  ViewerClient b(server.admin_port(), "/viewer/ws");
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  ViewerClient c(server.admin_port(), "/viewer/ws");
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.response().result_int(), 503);
  EXPECT_NE(c.response().body().find("max_viewers = 2"), std::string::npos) << c.response().body();
  EXPECT_EQ(MetricValue(server.HttpGet("/metrics"), "zs_viewers_refused_total"), 1);
  EXPECT_TRUE(a.ReadFrame().has_value());  // the admitted ones are unaffected
  // A place frees up when one leaves.
  a.Send(std::string(100, 'x'));
  a.ReadUntilClosed();
  bool admitted = false;
  for (int i = 0; i < 50 && !admitted; ++i) {
    admitted = ViewerClient(server.admin_port(), "/viewer/ws").ok();
    if (!admitted) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(admitted);
}

TEST(ViewerWs, TokenIsRequiredWhenConfigured) {
  ServerProcess server = ViewerServer(", token: s3cret-Token");
  ViewerClient none(server.admin_port(), "/viewer/ws");
  EXPECT_FALSE(none.ok());
  EXPECT_EQ(none.response().result_int(), 401);
  ViewerClient wrong(server.admin_port(), "/viewer/ws?token=s3cret-Tokem");
  EXPECT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.response().result_int(), 403);
  ViewerClient prefix(server.admin_port(), "/viewer/ws?token=s3cret");
  EXPECT_EQ(prefix.response().result_int(), 403);
  ViewerClient right(server.admin_port(), "/viewer/ws?x=1&token=s3cret-Token");
  ASSERT_TRUE(right.ok());
  EXPECT_TRUE(right.ReadFrame().has_value());
  // The page too; its script and style are public files.
  EXPECT_EQ(RawHttp(server.admin_port(), "GET /viewer HTTP/1.1\r\nHost: x\r\n\r\n").substr(0, 12),
            "HTTP/1.1 401");
  EXPECT_EQ(
      RawHttp(server.admin_port(), "GET /viewer?token=s3cret-Token HTTP/1.1\r\nHost: x\r\n\r\n")
          .substr(0, 12),
      "HTTP/1.1 200");
  EXPECT_EQ(RawHttp(server.admin_port(), "GET /viewer/viewer.js HTTP/1.1\r\nHost: x\r\n\r\n")
                .substr(0, 12),
            "HTTP/1.1 200");
}

TEST(ViewerWs, PageFilesAreServedWithTheirTypesAndNothingElse) {
  ServerProcess server = ViewerServer();
  const auto get = [&](const std::string& path) {
    return RawHttp(server.admin_port(), "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n");
  };
  EXPECT_NE(get("/viewer").find("Content-Type: text/html; charset=utf-8"), std::string::npos);
  EXPECT_NE(get("/viewer/viewer.js").find("Content-Type: text/javascript"), std::string::npos);
  EXPECT_NE(get("/viewer/viewer.css").find("Content-Type: text/css"), std::string::npos);
  for (const char* bad : {"/viewer/../server.yaml", "/viewer/index.html", "/viewer/%2e%2e/x",
                          "/viewer/viewer.js/", "/viewerx", "/viewer//viewer.js"}) {
    EXPECT_EQ(get(bad).substr(0, 12), "HTTP/1.1 404") << bad;
  }
}

}  // namespace
}  // namespace zs::integration
