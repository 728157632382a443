// Integration harness: the real zone_server binary on loopback with ephemeral ports, and a
// small blocking protobuf client. Real TCP, real protobuf, real files: no mocks.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "wire/frame_codec.h"
#include "wire/protocol.h"
#include "zone.pb.h"

namespace zs::integration {

namespace pb = ::zs::zone::v1;
namespace fs = std::filesystem;

// Sanitizer builds (scripts/test.sh --sanitize and --tsan; tests/CMakeLists.txt defines the
// macros): ASan's quarantine and TSan's shadow memory make the server's RSS meaningless, and
// under TSan it runs 5-15x slower, so tests skip their promises about memory in both and about
// time under TSan.
#if defined(ZS_SANITIZER_BUILD)
inline constexpr bool kSanitizerBuild = true;
#else
inline constexpr bool kSanitizerBuild = false;
#endif
#if defined(ZS_TSAN_BUILD)
inline constexpr bool kUnderTsan = true;
#else
inline constexpr bool kUnderTsan = false;
#endif

// Lets `s` seconds of a running scenario pass (pacing a scenario, never waiting for a result:
// results are waited for with a condition and a deadline).
inline void Sleep(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

// Client messages the tests send (TestClient sends any of them).
inline pb::ClientMessage ChatMessage(uint32_t seq, pb::ChatChannel channel, const std::string& text,
                                     const std::string& to = "") {
  pb::ClientMessage m;
  m.mutable_chat()->set_seq(seq);
  m.mutable_chat()->set_channel(channel);
  m.mutable_chat()->set_text(text);
  m.mutable_chat()->set_to(to);
  return m;
}
inline pb::ClientMessage SkillMessage(uint32_t seq, uint32_t skill, uint32_t facing = 0) {
  pb::ClientMessage m;
  m.mutable_skill()->set_seq(seq);
  m.mutable_skill()->set_skill_id(skill);
  m.mutable_skill()->set_facing(facing);
  return m;
}

inline double NowS() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// What a ServerProcess adds to its child beyond the config file (the Agones contract test:
// AGONES_SDK_HTTP_PORT, and --port to know the game port before the server starts).
struct ProcessExtras {
  std::vector<std::pair<std::string, std::string>> env;  // set in the child before exec
  std::vector<std::string> args;                         // after --config and --port-file
  bool wait_for_ports = true;  // false: a server that listens later (a standby): AwaitPorts
};

// A zone_server child process with its own config in a temporary directory.
class ServerProcess {
 public:
  // `limits_yaml`: extra lines under `limits:` (already indented by two spaces).
  // `top_yaml`: extra top-level lines (an `admin:` line there replaces the harness's own,
  // which must then keep `address: 127.0.0.1, port: 0`); `world`: the world file.
  // `nofile`: when > 0, the child's RLIMIT_NOFILE (soft and hard) before it starts.
  explicit ServerProcess(const std::string& limits_yaml = "  idle_timeout_seconds: 60\n",
                         const std::string& top_yaml = "", const std::string& world = ZS_TEST_WORLD,
                         rlim_t nofile = 0, const ProcessExtras& extras = {}) {
    dir_ = fs::temp_directory_path() /
           ("zs_it_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "server.yaml")
        << "listen: {address: 127.0.0.1, port: 0}\n"
        << (top_yaml.find("admin:") == std::string::npos ? "admin: {address: 127.0.0.1, port: 0}\n"
                                                         : "")
        << "world: " << world << "\n"
        << top_yaml << "io_threads: 2\nlog_level: info\nstats_interval_seconds: 1\n"
        << "limits:\n"
        << LimitDefaults(limits_yaml) << limits_yaml;
    const std::string config = (dir_ / "server.yaml").string();
    const std::string port_file = (dir_ / "ports").string();
    const std::string log = (dir_ / "server.log").string();
    std::vector<std::string> args = {ZS_SERVER_BIN, "--config", config, "--port-file", port_file};
    args.insert(args.end(), extras.args.begin(), extras.args.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      if (nofile > 0) {
        const rlimit rl{nofile, nofile};
        ::setrlimit(RLIMIT_NOFILE, &rl);
      }
      for (const auto& [k, v] : extras.env) ::setenv(k.c_str(), v.c_str(), 1);
      ::execv(ZS_SERVER_BIN, argv.data());
      ::_exit(127);
    }
    if (extras.wait_for_ports) AwaitPorts(5);
  }
  // Waits up to `timeout_s` for the port file (the server writes it once it listens); true once
  // port() and admin_port() are known.
  bool AwaitPorts(double timeout_s) {
    const fs::path port_file = dir_ / "ports";
    const double end = NowS() + timeout_s;
    for (;;) {  // looks at least once, also with a timeout of 0
      if (port_ == 0 && fs::exists(port_file)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));    // file fully written
        std::ifstream(port_file) >> port_ >> admin_port_ >> ws_port_;  // ws: when its door is open
      }
      if (port_ != 0 || NowS() >= end) return port_ != 0;
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
  }
  // The harness's limits, less those `limits_yaml` sets itself (a YAML key may appear once).
  static std::string LimitDefaults(const std::string& limits_yaml) {
    std::string out;
    for (const char* line :
         {"  login_timeout_seconds: 1\n", "  send_queue_bytes: 16384\n",
          "  stall_timeout_seconds: 1.5\n", "  socket_send_buffer_bytes: 8192\n"}) {
      const std::string key = std::string(line).substr(0, std::string(line).find(':') + 1);
      if (limits_yaml.find(key) == std::string::npos) out += line;
    }
    return out;
  }

  ~ServerProcess() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    fs::remove_all(dir_);
  }
  [[nodiscard]] uint16_t port() const { return port_; }
  [[nodiscard]] uint16_t admin_port() const { return admin_port_; }
  [[nodiscard]] uint16_t ws_port() const { return ws_port_; }  // 0: its door is shut
  [[nodiscard]] pid_t pid() const { return pid_; }
  // The config file it was started with.
  [[nodiscard]] std::string config_path() const { return (dir_ / "server.yaml").string(); }
  void Signal(int sig) const { ::kill(pid_, sig); }
  // Exit status, or nullopt if it is still running after `timeout_s`.
  std::optional<int> Wait(double timeout_s) {
    const double end = NowS() + timeout_s;
    while (NowS() < end) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return std::nullopt;
  }
  [[nodiscard]] std::string Log() const {
    std::ifstream in(dir_ / "server.log");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Resident memory of the server process, in KiB.
  [[nodiscard]] long RssKiB() const {
    std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    }
    return -1;
  }
  // GET `path` from the admin port; returns the body.
  [[nodiscard]] std::string HttpGet(const std::string& path) const {
    boost::asio::io_context io;
    boost::asio::ip::tcp::socket s(io);
    s.connect({boost::asio::ip::make_address("127.0.0.1"), admin_port_});
    const std::string req = "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n";
    boost::asio::write(s, boost::asio::buffer(req));
    std::string resp;
    char buf[4096];
    boost::system::error_code ec;
    for (;;) {
      const size_t n = s.read_some(boost::asio::buffer(buf), ec);
      if (ec) break;
      resp.append(buf, n);
    }
    const size_t body = resp.find("\r\n\r\n");
    return body == std::string::npos ? resp : resp.substr(body + 4);
  }

 private:
  static inline int counter_ = 0;
  fs::path dir_;
  pid_t pid_ = -1;
  bool exited_ = false;
  uint16_t port_ = 0;
  uint16_t admin_port_ = 0;
  uint16_t ws_port_ = 0;
};

// A blocking client that speaks the public protocol.
class TestClient {
 public:
  explicit TestClient(uint16_t port, int receive_buffer = 0) : socket_(io_), decoder_(1 << 24) {
    socket_.open(boost::asio::ip::tcp::v4());
    if (receive_buffer > 0) {
      socket_.set_option(boost::asio::socket_base::receive_buffer_size(receive_buffer));
    }
    socket_.connect({boost::asio::ip::make_address("127.0.0.1"), port});
  }

  void SendRaw(std::string_view bytes) {
    boost::system::error_code ec;
    boost::asio::write(socket_, boost::asio::buffer(bytes.data(), bytes.size()), ec);
  }
  void Send(const pb::ClientMessage& m) {
    std::string frame;
    wire::AppendFrame(m.SerializeAsString(), &frame);
    SendRaw(frame);
  }
  void Hello(const std::string& name, uint32_t version = wire::kProtocolVersion) {
    pb::ClientMessage m;
    m.mutable_hello()->set_protocol_version(version);
    m.mutable_hello()->set_player_name(name);
    Send(m);
  }
  void Move(float x, float y, uint32_t seq) {
    pb::ClientMessage m;
    m.mutable_move()->set_seq(seq);
    m.mutable_move()->set_direction_x(x);
    m.mutable_move()->set_direction_y(y);
    Send(m);
  }
  // Logs in and returns the Welcome (nullopt if something else came).
  std::optional<pb::Welcome> Login(const std::string& name,
                                   uint32_t version = wire::kProtocolVersion) {
    Hello(name, version);
    auto m = ReadUntil([](const pb::ServerMessage& s) { return s.has_welcome(); }, 3);
    if (!m) return std::nullopt;
    return m->welcome();
  }

  // The next message within `timeout_s`, or nullopt (timeout or closed; see closed()).
  std::optional<pb::ServerMessage> Read(double timeout_s) {
    const double end = NowS() + timeout_s;
    std::string body;
    for (;;) {
      if (decoder_.Next(&body) == wire::FrameDecoder::Result::kFrame) {
        pb::ServerMessage m;
        if (!m.ParseFromString(body)) return std::nullopt;
        last_body_ = std::move(body);
        return m;
      }
      if (closed_) return std::nullopt;
      const int wait_ms = static_cast<int>((end - NowS()) * 1000);
      if (wait_ms <= 0) return std::nullopt;
      pollfd p{socket_.native_handle(), POLLIN, 0};
      if (::poll(&p, 1, wait_ms) <= 0) return std::nullopt;
      char buf[65536];
      const ssize_t n = ::recv(socket_.native_handle(), buf, sizeof buf, 0);
      if (n <= 0) {
        closed_ = true;
        continue;
      }
      decoder_.Feed(std::string_view(buf, static_cast<size_t>(n)));
    }
  }
  template <typename Pred>
  std::optional<pb::ServerMessage> ReadUntil(Pred pred, double timeout_s) {
    const double end = NowS() + timeout_s;
    while (NowS() < end) {
      auto m = Read(end - NowS());
      if (!m) {
        if (closed_) return std::nullopt;
        continue;
      }
      if (pred(*m)) return m;
    }
    return std::nullopt;
  }
  // Reads until the server closes the connection; returns the last Error or Kick seen.
  std::optional<pb::ServerMessage> ReadUntilClosed(double timeout_s) {
    std::optional<pb::ServerMessage> last;
    const double end = NowS() + timeout_s;
    while (!closed_ && NowS() < end) {
      auto m = Read(end - NowS());
      if (m && (m->has_error() || m->has_kick())) last = m;
    }
    return last;
  }
  [[nodiscard]] bool closed() const { return closed_; }
  // The bytes of the message Read returned last, as the server sent them (golden streams).
  [[nodiscard]] const std::string& last_body() const { return last_body_; }
  [[nodiscard]] int native_handle() { return socket_.native_handle(); }
  void Close() {
    boost::system::error_code ignored;
    socket_.close(ignored);
    closed_ = true;
  }

 private:
  boost::asio::io_context io_;
  boost::asio::ip::tcp::socket socket_;
  wire::FrameDecoder decoder_;
  bool closed_ = false;
  std::string last_body_;
};

// The value of an unlabelled metric in a Prometheus text page (-1 when absent).
inline double MetricValue(const std::string& page, const std::string& name) {
  const size_t at = page.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::stod(page.substr(at + name.size() + 2));
}

// Reads everything pending and checks that tick numbers follow each other without a gap.
struct TickWatch {
  uint64_t last = 0;
  uint64_t count = 0;
  bool gap = false;
  void Drain(TestClient& c, double seconds) {
    const double end = NowS() + seconds;
    while (NowS() < end) {
      auto m = c.Read(end - NowS());
      if (!m || !m->has_tick()) continue;
      if (last != 0 && m->tick().tick() != last + 1) gap = true;
      last = m->tick().tick();
      ++count;
    }
  }
};

// Starts client_sim's `crowd` scenario in the background; returns its pid.
inline pid_t StartBots(uint16_t port, int bots, int seconds) {
  const std::string port_s = std::to_string(port), bots_s = std::to_string(bots),
                    seconds_s = std::to_string(seconds);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    ::execl(ZS_CLIENT_SIM_BIN, ZS_CLIENT_SIM_BIN, "--port", port_s.c_str(), "--bots",
            bots_s.c_str(), "--ramp", "200", "--duration", seconds_s.c_str(), "--scenario", "crowd",
            "--verify-every", "10", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

// Starts client_sim with `args` in the background, its output in `log`; returns its pid.
inline pid_t StartClientSim(const std::vector<std::string>& args, const std::string& log) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::dup2(out, 2);
    std::vector<char*> argv = {const_cast<char*>(ZS_CLIENT_SIM_BIN)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(ZS_CLIENT_SIM_BIN, argv.data());
    ::_exit(127);
  }
  return pid;
}

// The exit status of child `pid` (128 + the signal that ended it), once it ends.
inline int WaitExit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace zs::integration
