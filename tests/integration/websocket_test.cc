// The game's WebSocket door (docs/protocol.md "Transports"), against the real binary on
// loopback: a client that speaks it as a browser does (Boost.Beast's WebSocket client, an
// implementation independent of the server's framing) plays beside a TCP client; every
// handshake the door cannot serve gets an HTTP answer saying why; every bad frame gets its
// close code and reason, and a bystander on the same door keeps getting every tick meanwhile.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "integration/game_ws.h"
#include "integration/harness.h"
#include "integration/viewer_client.h"
#include "net/ws_handshake.h"
#include "support/ws_client_frame.h"
#include "wire/ws_codec.h"

namespace zs::integration {
namespace {

namespace http = boost::beast::http;

constexpr char kWsYaml[] = "websocket: {enabled: true, port: 0}\n";

// A raw socket on the door, for what no well-behaved client library would send.
class RawWs {
 public:
  explicit RawWs(uint16_t port) : socket_(io_) {
    socket_.connect({boost::asio::ip::make_address("127.0.0.1"), port});
  }
  void Send(std::string_view bytes) {
    boost::system::error_code ignored;
    boost::asio::write(socket_, boost::asio::buffer(bytes.data(), bytes.size()), ignored);
  }
  // The upgrade a browser sends; true once the server answered 101.
  bool Upgrade(const std::string& extra_headers = "") {
    Send(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Protocol: " +
        kSubprotocol + "\r\n" + extra_headers + "\r\n");
    while (received_.find("\r\n\r\n") == std::string::npos) {
      if (!ReadSome(5)) return false;
    }
    const size_t end = received_.find("\r\n\r\n") + 4;
    const bool upgraded = received_.starts_with("HTTP/1.1 101");
    received_.erase(0, end);
    return upgraded;
  }
  // Everything until the server closes (at most `timeout_s`); true when it closed.
  bool ReadUntilClosed(double timeout_s) {
    const double end = NowS() + timeout_s;
    while (NowS() < end) {
      if (!ReadSome(end - NowS())) return closed_;
    }
    return false;
  }
  [[nodiscard]] const std::string& received() const { return received_; }

  // The server's frames in what was received: (opcode, payload).
  [[nodiscard]] std::vector<std::pair<uint8_t, std::string>> Frames() const {
    std::vector<std::pair<uint8_t, std::string>> out;
    size_t at = 0;
    while (at + 2 <= received_.size()) {
      const auto b0 = static_cast<uint8_t>(received_[at]);
      uint64_t n = static_cast<uint8_t>(received_[at + 1]) & 0x7F;
      at += 2;
      const size_t extra = n == 126 ? 2 : n == 127 ? 8 : 0;
      if (at + extra > received_.size()) break;
      if (extra > 0) {
        n = 0;
        for (size_t i = 0; i < extra; ++i) n = (n << 8) | static_cast<uint8_t>(received_[at + i]);
        at += extra;
      }
      if (at + n > received_.size()) break;
      out.emplace_back(b0 & 0x0F, received_.substr(at, static_cast<size_t>(n)));
      at += static_cast<size_t>(n);
    }
    return out;
  }
  // The close frame's code and reason (0, "": none came).
  [[nodiscard]] std::pair<uint16_t, std::string> Close() const {
    for (const auto& [op, payload] : Frames()) {
      if (op != wire::kWsClose || payload.size() < 2) continue;
      return {static_cast<uint16_t>((static_cast<uint8_t>(payload[0]) << 8) |
                                    static_cast<uint8_t>(payload[1])),
              payload.substr(2)};
    }
    return {0, ""};
  }
  // The Error ServerMessage sent before the close, if any.
  [[nodiscard]] std::optional<pb::Error> Error() const {
    for (const auto& [op, payload] : Frames()) {
      pb::ServerMessage m;
      if (op == wire::kWsBinary && m.ParseFromString(payload) && m.has_error()) return m.error();
    }
    return std::nullopt;
  }

 private:
  bool ReadSome(double timeout_s) {
    pollfd p{socket_.native_handle(), POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout_s * 1000)) <= 0) return false;
    char buf[65536];
    const ssize_t n = ::recv(socket_.native_handle(), buf, sizeof buf, 0);
    if (n <= 0) {
      closed_ = true;
      return false;
    }
    received_.append(buf, static_cast<size_t>(n));
    return true;
  }

  boost::asio::io_context io_;
  boost::asio::ip::tcp::socket socket_;
  std::string received_;
  bool closed_ = false;
};

using zs::test::ClientFrame;

std::string HelloBytes(const std::string& name) {
  pb::ClientMessage m;
  m.mutable_hello()->set_protocol_version(wire::kProtocolVersion);
  m.mutable_hello()->set_player_name(name);
  return m.SerializeAsString();
}

TEST(WebSocketDoor, ABrowserStyleClientPlaysBesideATcpClient) {
  ServerProcess server("  idle_timeout_seconds: 60\n", kWsYaml);
  ASSERT_NE(server.ws_port(), 0) << "the port file names the door's port third";
  TestClient tessa(server.port());
  ASSERT_TRUE(tessa.Login("Tessa"));
  GameWs wendy(server.ws_port());
  ASSERT_TRUE(wendy.ok()) << wendy.ws().error().message();
  EXPECT_EQ(wendy.ws().response()[http::field::sec_websocket_protocol], kSubprotocol)
      << "the subprotocol names the version spoken";
  ASSERT_TRUE(wendy.Hello("Wendy"));
  const auto welcome = wendy.ReadUntil([](const auto& m) { return m.has_welcome(); }, 5);
  ASSERT_TRUE(welcome);
  EXPECT_EQ(welcome->welcome().protocol_version(), wire::kProtocolVersion);
  // Wendy sees Tessa (both spawn in the town), then her move is judged and acked.
  EXPECT_TRUE(wendy.ReadUntil(
      [](const pb::ServerMessage& m) {
        if (!m.has_tick()) return false;
        for (const auto& e : m.tick().entered()) {
          if (e.kind() == pb::ENTITY_KIND_PLAYER && e.name() == "Tessa") return true;
        }
        return false;
      },
      5))
      << "a TCP player is seen over WebSocket";
  ASSERT_TRUE(wendy.Move(1, 0, 1));
  EXPECT_TRUE(wendy.ReadUntil(
      [](const pb::ServerMessage& m) { return m.has_tick() && m.tick().last_input_seq() == 1; }, 5))
      << "the move is acked";
  // Each tick is its own message, numbered one after another.
  uint64_t last = 0;
  for (int i = 0; i < 20; ++i) {
    const auto m = wendy.ReadUntil([](const auto& s) { return s.has_tick(); }, 5);
    ASSERT_TRUE(m);
    if (last != 0) {
      EXPECT_EQ(m->tick().tick(), last + 1);
    }
    last = m->tick().tick();
  }
  // The protocol's Ping and a WebSocket ping are both answered.
  pb::ClientMessage ping;
  ping.mutable_ping()->set_client_time(1234);
  ASSERT_TRUE(wendy.Send(ping));
  const auto pong = wendy.ReadUntil([](const auto& m) { return m.has_pong(); }, 5);
  ASSERT_TRUE(pong);
  EXPECT_EQ(pong->pong().client_time(), 1234u);
  EXPECT_TRUE(wendy.ws().Ping());
  // Logout: the Kick, then a normal close naming it.
  pb::ClientMessage logout;
  logout.mutable_logout();
  ASSERT_TRUE(wendy.Send(logout));
  EXPECT_TRUE(wendy.ws().ReadUntilClosed(5));
  EXPECT_EQ(wendy.ws().close_reason().code, 1000);
  EXPECT_EQ(std::string(wendy.ws().close_reason().reason.c_str()), "logout");
}

TEST(WebSocketDoor, AnUpgradeItCannotServeIsAnsweredWithWhy) {
  ServerProcess server("  idle_timeout_seconds: 60\n",
                       "websocket: {enabled: true, port: 0, allowed_origins: "
                       "[\"https://game.example.com\"]}\n");
  const uint16_t port = server.ws_port();
  ASSERT_NE(port, 0);
  const std::string upgrade =
      "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Version: 13\r\n";
  const std::string key = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
  const std::string offer = "Sec-WebSocket-Protocol: " + kSubprotocol + "\r\n";

  std::string r = RawHttp(port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_TRUE(r.starts_with("HTTP/1.1 426")) << r;
  EXPECT_NE(r.find("open a WebSocket with subprotocol " + kSubprotocol), std::string::npos) << r;

  r = RawHttp(port, upgrade + key + "\r\n");
  EXPECT_TRUE(r.starts_with("HTTP/1.1 400")) << r;
  EXPECT_NE(r.find("offer one of " + net::SubprotocolRange()), std::string::npos) << r;

  r = RawHttp(port, upgrade + key + "Sec-WebSocket-Protocol: zone.v999, chat\r\n\r\n");
  EXPECT_TRUE(r.starts_with("HTTP/1.1 400")) << r;

  r = RawHttp(port, upgrade + "Sec-WebSocket-Key: short\r\n" + offer + "\r\n");
  EXPECT_TRUE(r.starts_with("HTTP/1.1 400")) << r;
  EXPECT_NE(r.find("Sec-WebSocket-Key"), std::string::npos) << r;

  r = RawHttp(port, upgrade + key + offer + "Origin: https://evil.example.net\r\n\r\n");
  EXPECT_TRUE(r.starts_with("HTTP/1.1 403")) << r;
  EXPECT_NE(r.find("https://evil.example.net"), std::string::npos) << r;

  // A listed origin, and the door's own, are let in.
  RawWs listed(port);
  EXPECT_TRUE(listed.Upgrade("Origin: https://game.example.com\r\n"));
  RawWs same(port);
  EXPECT_TRUE(same.Upgrade("Origin: http://127.0.0.1\r\n"));

  // A Hello whose version is not the subprotocol's.
  GameWs old(port, {{http::field::sec_websocket_protocol,
                     net::SubprotocolName(wire::kProtocolVersion - 1)}});
  ASSERT_TRUE(old.ok());
  ASSERT_TRUE(old.Hello("Oldie", wire::kProtocolVersion));
  const auto err = old.ReadUntil([](const auto& m) { return m.has_error(); }, 5);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->error().code(), pb::ERROR_CODE_PROTOCOL_VERSION);
  EXPECT_TRUE(old.ws().ReadUntilClosed(5));
  EXPECT_EQ(old.ws().close_reason().code, 1008);
  EXPECT_EQ(std::string(old.ws().close_reason().reason.c_str()), "protocol_version");

  const std::string metrics = server.HttpGet("/metrics");
  EXPECT_GE(MetricValue(metrics, "zs_kicks_total{reason=\"websocket_refused\"}"), 5)
      << "each refused upgrade is counted";
}

// Reads `client`'s ticks on a thread of its own until told to stop; records gaps.
struct Bystander {
  explicit Bystander(uint16_t port) : client(port) {}
  void Start() {
    reader = std::thread([this] {
      while (!stop.load()) {
        const auto m = client.Read(1);
        if (!m) {
          if (!client.ws().error() || client.ws().error() == boost::asio::error::timed_out) {
            continue;
          }
          closed = true;
          return;
        }
        if (!m->has_tick()) continue;
        if (last != 0 && m->tick().tick() != last + 1) ++gaps;
        last = m->tick().tick();
        ++ticks;
      }
    });
  }
  void Stop() {
    stop = true;
    reader.join();
  }
  GameWs client;
  std::thread reader;
  std::atomic<bool> stop{false};
  std::atomic<bool> closed{false};
  std::atomic<int> gaps{0};
  std::atomic<int> ticks{0};
  uint64_t last = 0;
};

TEST(WebSocketDoor, EachBadFrameGetsItsCloseAndTheOthersGetEveryTick) {
  ServerProcess server("  idle_timeout_seconds: 60\n", kWsYaml);
  const uint16_t port = server.ws_port();
  ASSERT_NE(port, 0);
  Bystander bystander(port);
  ASSERT_TRUE(bystander.client.ok());
  ASSERT_TRUE(bystander.client.Hello("Bea"));
  ASSERT_TRUE(bystander.client.ReadUntil([](const auto& m) { return m.has_welcome(); }, 5));
  bystander.Start();

  struct Attack {
    const char* what;
    std::string bytes;
    uint16_t code;
    const char* reason;
  };
  const std::string hello = ClientFrame(wire::kWsBinary, HelloBytes("Mallory"));
  std::string pings;
  for (int i = 0; i < 200; ++i) pings += ClientFrame(wire::kWsPing, "p");
  const std::vector<Attack> attacks = {
      {"a text message", hello + ClientFrame(0x1, "{\"move\":1}"), 1003, "bad_websocket"},
      {"a fragmented message", hello + ClientFrame(wire::kWsBinary, "part", false), 1008,
       "bad_websocket"},
      {"a continuation", hello + ClientFrame(0x0, "rest"), 1008, "bad_websocket"},
      {"an unmasked frame", hello + ClientFrame(wire::kWsBinary, "x", true, false), 1002,
       "bad_websocket"},
      {"a message over max_frame_bytes",
       hello + ClientFrame(wire::kWsBinary, std::string(70000, 'z')), 1009, "bad_frame"},
      {"a flood of pings", hello + pings, 1008, "flood"},
      {"garbage that is not a ClientMessage", hello + ClientFrame(wire::kWsBinary, "\xFF\xFF\xFF"),
       1008, "unparsable"},
      {"a close of its own", hello + ClientFrame(wire::kWsClose, std::string("\x03\xE8", 2)), 1000,
       "client_closed"},
  };
  for (const Attack& a : attacks) {
    RawWs mallory(port);
    ASSERT_TRUE(mallory.Upgrade()) << a.what;
    mallory.Send(a.bytes);
    EXPECT_TRUE(mallory.ReadUntilClosed(10)) << a.what << ": the server closes";
    const auto [code, reason] = mallory.Close();
    EXPECT_EQ(code, a.code) << a.what;
    EXPECT_EQ(reason, a.reason) << a.what;
    if (a.code != 1000) {
      EXPECT_TRUE(mallory.Error()) << a.what << ": an Error says why first";
    }
  }
  // A slow upgrade: half a request, then nothing. The login timeout (1 s here) closes it, and
  // no 101 was sent.
  RawWs slow(port);
  slow.Send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgr");
  EXPECT_TRUE(slow.ReadUntilClosed(10));
  EXPECT_EQ(slow.received().find("101"), std::string::npos);
  // Headers past the request limit are refused before they are all read.
  RawWs huge(port);
  huge.Send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + std::string(16 * 1024, 'a') + "\r\n");
  EXPECT_TRUE(huge.ReadUntilClosed(10));
  EXPECT_TRUE(huge.received().starts_with("HTTP/1.1 400")) << huge.received().substr(0, 200);

  bystander.Stop();
  EXPECT_FALSE(bystander.closed) << "the bystander was never closed";
  EXPECT_GT(bystander.ticks, 20) << "it kept getting ticks";
  EXPECT_EQ(bystander.gaps, 0) << "and none was skipped";
  const std::string metrics = server.HttpGet("/metrics");
  EXPECT_GE(MetricValue(metrics, "zs_kicks_total{reason=\"bad_websocket\"}"), 4);
}

// client_sim over the door (`--transport ws`, its own RFC 6455 client): 50 bots in `crowd`,
// every promise checked by every bot, chat included.
TEST(WebSocketDoor, FiftyClientSimBotsPlayOverItWithZeroViolations) {
  ServerProcess server("  idle_timeout_seconds: 60\n", kWsYaml);
  ASSERT_NE(server.ws_port(), 0);
  const fs::path path =
      fs::temp_directory_path() / ("zs_ws_sim_" + std::to_string(::getpid()) + ".json");
  const std::string port = std::to_string(server.ws_port());
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::execl(ZS_CLIENT_SIM_BIN, ZS_CLIENT_SIM_BIN, "--transport", "ws", "--port", port.c_str(),
            "--bots", "50", "--ramp", "100", "--duration", "5", "--scenario", "crowd", "--say-rate",
            "1", "--report", path.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  const std::string report = ReadFile(path.string());
  fs::remove(path);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << report << server.Log();
  const nlohmann::json j = nlohmann::json::parse(report, nullptr, false);
  ASSERT_TRUE(j.is_object()) << report;
  EXPECT_EQ(j.value("transport", ""), "ws");
  EXPECT_EQ(j.value("logins_ok", -1), 50) << report;
  EXPECT_EQ(j.value("violations_total", -1), 0) << report;
  EXPECT_GT(j.value("ticks_received", 0), 1000) << report;
  EXPECT_GT(j.value("says_checked", 0), 100) << report;
}

}  // namespace
}  // namespace zs::integration
