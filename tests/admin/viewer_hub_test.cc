// ViewerHub without a zone_server: a real hub on a loopback acceptor, viewers as WebSocket
// clients (integration/viewer_client.h), and its taps driven by hand with hand-built worlds, so
// that what a runner passes in (its tick time, its ticks) is exactly known:
// - each tap's frames carry its own runner's tick time (one runner per zone), and a viewer that
//   switches zones gets the other runner's;
// - the hello lists only the zones this process hosts, and a zone hosted elsewhere is refused
//   with its own reason;
// - frames never come more often than 10 a second (the interval in ticks is rounded up).
#include "admin/viewer_hub.h"

#include <gtest/gtest.h>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http/read.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "host/frame_fanout.h"
#include "integration/viewer_client.h"
#include "zone/test_world.h"
#include "zone/world.h"

namespace zs::admin {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using integration::ParseViewerHeader;
using integration::ViewerClient;
using zone::testing::TestWorld;

// A hub serving `world` (its zones `hosted`) on a loopback port, its I/O on a thread of its own.
class HubServer {
 public:
  explicit HubServer(const zone::WorldConfig& world, std::vector<uint32_t> hosted = {},
                     std::vector<zone::HostedCell> cells = {})
      : hosted_(std::move(hosted)),
        cells_(std::move(cells)),
        hub_(io_, world, &metrics_, {}, hosted_, cells_) {
    Accept();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~HubServer() {
    hub_.CloseAll();
    guard_.reset();
    io_.stop();
    thread_.join();
  }
  HubServer(const HubServer&) = delete;
  HubServer& operator=(const HubServer&) = delete;

  [[nodiscard]] uint16_t port() const { return acceptor_.local_endpoint().port(); }
  ViewerHub& hub() { return hub_; }

 private:
  // Each connection: its HTTP upgrade request is read, then handed to the hub (as AdminHttp does).
  void Accept() {
    acceptor_.async_accept([this](const boost::system::error_code& ec, asio::ip::tcp::socket s) {
      if (ec) return;
      auto stream = std::make_shared<boost::beast::tcp_stream>(std::move(s));
      auto buffer = std::make_shared<boost::beast::flat_buffer>();
      auto request = std::make_shared<http::request<http::string_body>>();
      http::async_read(
          *stream, *buffer, *request,
          [this, stream, buffer, request](const boost::system::error_code& read_ec, size_t) {
            if (!read_ec) {
              EXPECT_TRUE(hub_.TryAdmit(*stream, *request));
            }
          });
      Accept();
    });
  }

  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> guard_ = asio::make_work_guard(io_);
  host::Metrics metrics_;
  std::vector<uint32_t> hosted_;
  std::vector<zone::HostedCell> cells_;
  ViewerHub hub_;
  asio::ip::tcp::acceptor acceptor_{io_, {asio::ip::make_address("127.0.0.1"), 0}};
  std::thread thread_;
};

// One zone runner's part, by hand: its world (the zones `hosted`), its fanout and its tap.
struct FakeRunner {
  FakeRunner(const zone::WorldConfig& config, std::vector<uint32_t> hosted, ViewerHub& hub)
      : world(config, hosted), fanout(world.zone_count()), tap(hub.NewTap()) {}
  // One tick, then the tap as ZoneRunner::Step calls it, with `tick_seconds` as its measure.
  void Step(double tick_seconds) {
    world.Tick(zone::World::Inputs{});
    tap->AfterTick(world, fanout, {.last_tick_seconds = tick_seconds});
  }
  zone::World world;
  host::FrameFanout fanout;
  std::unique_ptr<host::TickObserver> tap;
};

TEST(ViewerHub, EachTapReportsItsOwnRunnersTickTime) {
  const zone::WorldConfig world = TestWorld(/*two_zones=*/true);
  HubServer server(world);
  FakeRunner busy(world, {1}, server.hub());
  FakeRunner idle(world, {2}, server.hub());
  ViewerClient v(server.port(), "/viewer/ws");
  ASSERT_TRUE(v.ok()) << v.error().message();
  ASSERT_TRUE(v.Read().has_value());  // the hello: the viewer is counted from now on
  // Zone 1 (the first) by default: its runner's time, never the other runner's, which ticks
  // after it every time (as the last writer of a process-wide value would be).
  for (int i = 0; i < 3; ++i) {
    busy.Step(0.0125);
    idle.Step(0.0005);
    busy.Step(0.0125);
    idle.Step(0.0005);
    const auto f = v.ReadFrame();
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(ParseViewerHeader(*f).zone, 1u);
    EXPECT_FLOAT_EQ(ParseViewerHeader(*f).tick_ms, 12.5f);
  }
  // Switched to zone 2: the idle runner's time, as soon as its frames come. While the command is
  // on its way a pass may bring no frame (a zone-1 frame captured just before the switch is not
  // sent, and zone 2 is not captured yet), so the runners tick on a thread of their own, as real
  // runners do, while this one reads: a read that timed out would end the WebSocket stream
  // (under TSan a 0.2 s read did, and the loop then read nothing 100 times).
  ASSERT_TRUE(v.Send("zone 2"));
  std::atomic<bool> stop{false};
  std::thread runners([&] {
    while (!stop.load()) {
      busy.Step(0.0125);
      idle.Step(0.0005);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));  // pacing, not a wait
    }
  });
  bool switched = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!switched && std::chrono::steady_clock::now() < deadline) {
    const auto f = v.ReadFrame(30);
    if (!f) break;
    const integration::ViewerFrameHeader h = ParseViewerHeader(*f);
    EXPECT_FLOAT_EQ(h.tick_ms, h.zone == 1 ? 12.5f : 0.5f) << "zone " << h.zone;
    switched = h.zone == 2;
  }
  stop = true;
  runners.join();
  EXPECT_TRUE(switched);
}

// A split zone's hello tells the page its cells, their nodes and the one simulated here, so it
// draws the cells' borders (docs/seamless.md).
TEST(ViewerHub, TheHelloOfASplitZoneNamesItsCellsAndTheOneHere) {
  zone::WorldConfig world = TestWorld();
  world.zones[0].cells.columns = 2;
  world.zones[0].cells.nodes = {"west", "east"};
  HubServer server(world, {}, {{.zone_id = 1, .cell = 1}});
  ViewerClient v(server.port(), "/viewer/ws");
  ASSERT_TRUE(v.ok());
  const auto hello = v.Read();
  ASSERT_TRUE(hello.has_value());
  const nlohmann::json zone = nlohmann::json::parse(*hello).at("zones").at(0);
  EXPECT_EQ(zone.at("bounds"), nlohmann::json({0, 0, 100, 100}));
  const nlohmann::json& cells = zone.at("cells");
  EXPECT_EQ(cells.at("columns"), 2);
  EXPECT_EQ(cells.at("rows"), 1);
  EXPECT_EQ(cells.at("nodes"), nlohmann::json({"west", "east"}));
  EXPECT_EQ(cells.at("own"), 1) << *hello;
}

TEST(ViewerHub, OffersOnlyTheHostedZonesAndRefusesOthers) {
  const zone::WorldConfig world = TestWorld(/*two_zones=*/true);  // zones 1 "test", 2 "other"
  HubServer server(world, {2});
  FakeRunner runner(world, {2}, server.hub());
  {
    ViewerClient v(server.port(), "/viewer/ws");
    ASSERT_TRUE(v.ok());
    const auto hello = v.Read();
    ASSERT_TRUE(hello.has_value());
    EXPECT_NE(hello->find("\"zones\":[{\"id\":2,\"name\":\"other\""), std::string::npos) << *hello;
    EXPECT_EQ(hello->find("\"name\":\"test\""), std::string::npos) << *hello;
    // The first (only) hosted zone is watched by default: its frames, not an empty page.
    runner.Step(0.001);
    const auto f = v.ReadFrame();
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(ParseViewerHeader(*f).zone, 2u);
    ASSERT_TRUE(v.Send("zone 2"));  // accepted: frames keep coming, the viewer is not closed
    for (int i = 0; i < 5; ++i) {
      runner.Step(0.001);
      runner.Step(0.001);
      ASSERT_TRUE(v.ReadFrame().has_value()) << "frame " << i;
    }
    EXPECT_EQ(v.close_reason().code, 0) << v.close_reason().reason.c_str();
  }
  const struct {
    std::string command;
    std::string reason;
  } refused[] = {{.command = "zone 1", .reason = ViewerHub::kZoneNotHostedHere},
                 {.command = "zone 3", .reason = ViewerHub::kUnknownZone}};
  for (const auto& c : refused) {
    ViewerClient v(server.port(), "/viewer/ws");
    ASSERT_TRUE(v.ok());
    ASSERT_TRUE(v.Send(c.command));
    ASSERT_TRUE(v.ReadUntilClosed()) << c.command;
    EXPECT_EQ(v.close_reason().code, 1008) << c.command;  // policy violation
    EXPECT_EQ(std::string(v.close_reason().reason.c_str()), c.reason) << c.command;
  }
}

TEST(ViewerHub, FrameIntervalIsRoundedUpToAtMostTenFramesASecond) {
  EXPECT_EQ(ViewerHub::FrameIntervalTicks(0.1, 20), 2u);
  EXPECT_EQ(ViewerHub::FrameIntervalTicks(0.1, 12), 2u);  // 1.2 ticks: every 2nd (6 Hz), not 1st
  EXPECT_EQ(ViewerHub::FrameIntervalTicks(0.1, 11), 2u);
  EXPECT_EQ(ViewerHub::FrameIntervalTicks(0.1, 14), 2u);
  EXPECT_EQ(ViewerHub::FrameIntervalTicks(0.1, 10), 1u);
  EXPECT_EQ(ViewerHub::FrameIntervalTicks(0.1, 30), 3u);  // 0.1 * 30 is 3.0000000000000004
  EXPECT_EQ(ViewerHub::FrameIntervalTicks(0.1, 5), 1u);   // at least every tick
  EXPECT_EQ(ViewerHub::FrameIntervalTicks(0.1, 60), 6u);
}

// Frames of a hub at `tick_rate` (12 or 20: a frame every 2nd tick) while its tap is stepped
// through ticks 1-24: the ticks they were taken at, up to the last capture, tick 23 (never
// skipped: latest frame wins), and the hello.
struct Stepped {
  std::string hello;
  std::vector<uint32_t> ticks;
};
Stepped StepAt(uint32_t tick_rate) {
  zone::WorldConfig world = TestWorld();
  world.tick_rate = tick_rate;
  HubServer server(world);
  FakeRunner runner(world, {}, server.hub());
  ViewerClient v(server.port(), "/viewer/ws");
  Stepped out;
  if (!v.ok()) return out;
  out.hello = v.Read().value_or("");
  for (int i = 0; i < 24; ++i) runner.Step(0.001);
  while (out.ticks.empty() || out.ticks.back() < 23) {  // the last capture (every 2nd tick)
    const auto f = v.ReadFrame();
    if (!f) break;
    out.ticks.push_back(ParseViewerHeader(*f).tick);
  }
  return out;
}

TEST(ViewerHub, FramesAreNeverMoreFrequentThanTenASecond) {
  for (const uint32_t rate : {12u, 20u}) {
    const Stepped s = StepAt(rate);
    EXPECT_EQ(nlohmann::json::parse(s.hello).at("frame_hz"), rate / 2) << s.hello;
    ASSERT_FALSE(s.ticks.empty()) << rate;
    EXPECT_EQ(s.ticks.front(), 1u) << rate;  // the first tick with a viewer
    EXPECT_EQ(s.ticks.back(), 23u) << rate;  // ticks 1, 3, ..., 23: every 2nd
    for (size_t i = 1; i < s.ticks.size(); ++i) {
      EXPECT_GE(s.ticks[i] - s.ticks[i - 1], 2u) << rate << " Hz, frame " << i;
    }
  }
}

}  // namespace
}  // namespace zs::admin
