// The C++ client library against a real zone_server child process, over TCP and over WebSocket
// through AsioTransport: it logs in, walks and sees its moves acknowledged and its prediction
// converge on the server's position, walks up to a monster and swings until the InputResult and
// a hit by it come back. Each wait is a condition with a generous deadline, never a fixed sleep.
// Built only where tests/CMakeLists.txt gives ZS_SERVER_BIN and ZS_TEST_WORLD (and links
// zs_client_asio).
#if defined(ZS_SERVER_BIN) && defined(ZS_TEST_WORLD)

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "zone.pb.h"
#include "zs_client/asio_transport.h"
#include "zs_client/client.h"

namespace zs::client {
namespace {

namespace fs = std::filesystem;

// A zone_server with its own config in a temporary directory (as tests/integration/harness.h).
class ServerChild {
 public:
  ServerChild() {
    dir_ = fs::temp_directory_path() / ("zs_client_live_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "server.yaml") << "listen: {address: 127.0.0.1, port: 0}\n"
                                        << "admin: {address: 127.0.0.1, port: 0}\n"
                                        << "websocket: {enabled: true, port: 0}\n"
                                        << "world: " << ZS_TEST_WORLD << "\n"
                                        << "io_threads: 2\nlog_level: info\n"
                                        << "limits:\n  idle_timeout_seconds: 60\n";
    std::vector<std::string> args = {ZS_SERVER_BIN, "--config", (dir_ / "server.yaml").string(),
                                     "--port-file", (dir_ / "ports").string()};
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string log = (dir_ / "server.log").string();
    pid_ = ::fork();
    if (pid_ == 0) {
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::execv(ZS_SERVER_BIN, argv.data());
      ::_exit(127);
    }
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (port_ == 0 && std::chrono::steady_clock::now() < end) {
      if (fs::exists(dir_ / "ports")) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));  // fully written
        std::ifstream(dir_ / "ports") >> port_ >> admin_port_ >> ws_port_;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
      }
    }
  }
  ~ServerChild() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    fs::remove_all(dir_);
  }
  ServerChild(const ServerChild&) = delete;
  ServerChild& operator=(const ServerChild&) = delete;
  [[nodiscard]] uint16_t port() const { return port_; }
  [[nodiscard]] uint16_t ws_port() const { return ws_port_; }

 private:
  fs::path dir_;
  pid_t pid_ = -1;
  uint16_t port_ = 0;
  uint16_t admin_port_ = 0;
  uint16_t ws_port_ = 0;
};

// Hears hits by the player.
class HitCounter final : public ClientListener {
 public:
  void OnEvent(const Event& e) override {
    if (const auto* hit = std::get_if<HitEvent>(&e)) {
      if (hit->attacker == self && !hit->targets.empty()) ++hits_by_me;
    }
  }
  uint32_t self = 0;
  int hits_by_me = 0;
};

// Runs the io_context until `done` holds (checked every few ms, `step` called each time) or
// `seconds` pass; returns whether it held.
bool RunUntil(boost::asio::io_context& io, double seconds, const std::function<bool()>& done,
              const std::function<void()>& step = {}) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    if (step) step();
    io.restart();
    io.run_for(std::chrono::milliseconds(10));
  }
  return done();
}

// One client on one transport against the server, step by step; each step returns what it
// measured (or a negative time when it did not get there).
struct LiveSession {
  boost::asio::io_context io;
  Client client;
  HitCounter hits;
  AsioTransport transport{io, client};

  // Logs in; the milliseconds it took, or -1.
  double LogIn(const std::string& url, const std::string& name) {
    client.set_listener(&hits);
    ClientOptions options;
    options.url = url;
    options.name = name;
    const double t0 = transport.Now();
    if (!transport.Connect(options).ok()) return -1;
    if (!RunUntil(io, 15, [&] { return client.state() == State::kInWorld; })) return -1;
    hits.self = client.self_id();
    return transport.Now() - t0;
  }

  // Walks until the move is acknowledged; the milliseconds that took, or -1.
  double WalkUntilAcked() {
    const InputHandle move = client.Move(1, 0.3, transport.Now());
    if (!move.status.ok()) return -1;
    transport.Pump();
    const double sent = transport.Now();
    const bool acked = RunUntil(io, 10, [&] {
      return !SeqAfter(move.seq, client.store().last_input_seq()) &&
             client.prediction().pending_count() == 0;
    });
    return acked ? transport.Now() - sent : -1;
  }

  // Stops and waits for the drawn position to meet the server's; the last error (cm).
  double StopAndConverge() {
    (void)client.Stop(transport.Now());
    transport.Pump();
    double error_cm = 1e9;
    RunUntil(io, 10, [&] {
      const Position p = client.SelfPosition(transport.Now());
      error_cm = std::hypot(p.x - client.store().self()->x, p.y - client.store().self()->y);
      return client.prediction().pending_count() == 0 && error_cm < 5;
    });
    return error_cm;
  }

  // One step towards the nearest living monster, or a swing at it when near.
  void StepToSwing(double* last_swing, int* accepted) {
    const double now = transport.Now();
    const Self& me = *client.store().self();
    const Entity* nearest = nullptr;
    double best = 1e18;
    for (const auto& [id, e] : client.store().entities()) {
      const double d = std::hypot(e.x - me.x, e.y - me.y);
      if (e.kind == EntityKind::kMonster && e.alive && d < best) best = d, nearest = &e;
    }
    if (nearest == nullptr) {
      (void)client.Move(1, 1, now);  // the dummies are north-east of the spawn
    } else if (best > 150) {
      (void)client.Move(nearest->x - me.x, nearest->y - me.y, now);
    } else {
      (void)client.Stop(now);
      const double angle = std::atan2(nearest->y - me.y, nearest->x - me.x);
      const auto facing = static_cast<uint32_t>(
          std::lround((angle < 0 ? angle + 2 * M_PI : angle) / (2 * M_PI) * 65536) % 65536);
      if (now - *last_swing > 600) {
        *last_swing = now;
        (void)client.UseSkill(1, facing, std::nullopt, now, [accepted](const InputOutcome& o) {
          if (o.accepted) ++*accepted;
        });
      }
    }
    transport.Pump();
  }

  // Swings at monsters until one swing is accepted and hits; the swings accepted.
  int SwingUntilHit() {
    int accepted = 0;
    double last_swing = 0;
    RunUntil(
        io, 30, [&] { return accepted > 0 && hits.hits_by_me > 0; },
        [&] { StepToSwing(&last_swing, &accepted); });
    return accepted;
  }

  bool LogOut() {
    client.Close(transport.Now());
    transport.Pump();
    return RunUntil(io, 10, [&] { return client.state() == State::kClosed; });
  }
};

void PlayOver(const std::string& url, const std::string& name) {
  LiveSession live;
  const double login_ms = live.LogIn(url, name);
  ASSERT_GE(login_ms, 0) << StateName(live.client.state()) << " "
                         << live.client.connection().last_failure().message;
  const double ack_ms = live.WalkUntilAcked();
  ASSERT_GE(ack_ms, 0) << "the move was not acknowledged";
  const double error_cm = live.StopAndConverge();
  EXPECT_LT(error_cm, 5) << "the prediction did not converge on the server's position";
  const int accepted = live.SwingUntilHit();
  EXPECT_GT(accepted, 0);
  EXPECT_GT(live.hits.hits_by_me, 0);
  const ClientStats& s = live.client.stats();
  std::cout << url.substr(0, url.find(':')) << ": login " << login_ms << " ms, move acked in "
            << ack_ms << " ms, rtt " << s.rtt_smoothed_ms << " ms (min " << s.rtt_min_ms
            << "), prediction error after stop " << error_cm << " cm, largest correction "
            << live.client.prediction().largest_correction() << " cm, snaps " << s.prediction_snaps
            << ", " << s.frames << " frames, " << s.bytes_in_per_sec << " B/s in, swings accepted "
            << accepted << ", hits " << live.hits.hits_by_me << "\n";
  EXPECT_GE(s.rtt_min_ms, 0);
  EXPECT_EQ(s.reconnects, 0U);
  ASSERT_TRUE(live.LogOut());
  EXPECT_EQ(live.client.close_reason(), CloseReason::kLogout);
}

TEST(ClientLive, PlaysOverTcpAndWebSocketAgainstARealServer) {
  ServerChild server;
  ASSERT_NE(server.port(), 0) << "zone_server did not start";
  ASSERT_NE(server.ws_port(), 0) << "its WebSocket door is shut";
  const std::string suffix = std::to_string(::getpid() % 100000);
  PlayOver("tcp://127.0.0.1:" + std::to_string(server.port()), "CppTcp" + suffix);
  PlayOver("ws://127.0.0.1:" + std::to_string(server.ws_port()) + "/", "CppWs" + suffix);
}

}  // namespace
}  // namespace zs::client

#endif  // ZS_SERVER_BIN && ZS_TEST_WORLD
