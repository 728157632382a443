// NatsServer: a throwaway nats-server with JetStream for tests (cluster tests).
//
// What it does: picks a free loopback port, makes a temp dir, and runs
// `nats-server -js -a 127.0.0.1 -p <port> -sd <dir>/store` with its log in <dir>/server.log;
// returns once the port accepts connections. Stop() (SIGTERM) and Kill() (SIGKILL) end it, and
// Start() runs it again on the same port and store dir, for fault tests (a NATS server that goes
// away mid-run, with its JetStream data kept on disk); Pause() and Resume() make it hang
// (SIGSTOP, SIGCONT). The destructor stops it and removes the dir.
//
// Binary: $ZS_NATS_SERVER, else `nats-server` on PATH, /usr/sbin or /usr/bin (Debian's
// `nats-server` package). Missing, it throws std::runtime_error saying what to install: a test
// that needs a server fails loudly, it is never skipped in silence.
//
// Network: loopback only (-a 127.0.0.1). The port is found by binding port 0 and closing it, so
// another process (a zone_server of a test running beside this one, say) could take it before
// the server does: "accepting" means the port answers with NATS's INFO banner, not merely that
// something listens there, and a first start whose server could not bind is tried again on a
// fresh port (up to kStartAttempts). A restart (Start after Stop) keeps its port.
//
// Threads: not thread-safe; one test owns one server.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>

namespace zs::test {

class NatsServer {
 public:
  NatsServer() : bin_(FindBinary()), port_(FreePort()) {
    std::string pattern = "/tmp/zs_nats_XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("NatsServer: mkdtemp");
    dir_ = pattern;
    for (int attempt = 1;; ++attempt) {
      try {
        Start();
        return;
      } catch (const std::runtime_error&) {
        if (attempt == kStartAttempts) throw;
        port_ = FreePort();  // the port was taken meanwhile: another one
      }
    }
  }
  ~NatsServer() {
    if (pid_ > 0) Signal(SIGTERM);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  NatsServer(const NatsServer&) = delete;
  NatsServer& operator=(const NatsServer&) = delete;

  std::string url() const { return "nats://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  const std::string& dir() const { return dir_; }
  bool running() const { return pid_ > 0; }

  // Runs the server (again) on the same port and store dir; returns when the port accepts.
  void Start() {
    if (pid_ > 0) return;
    const std::string port = std::to_string(port_);
    const std::string store = dir_ + "/store";
    const std::string log = Log();
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("NatsServer: fork failed");
    if (pid_ == 0) {
      execl(bin_.c_str(), bin_.c_str(), "-js", "-a", "127.0.0.1", "-p", port.c_str(), "-sd",
            store.c_str(), "-l", log.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    WaitUntilAccepting();
  }
  void Stop() { Signal(SIGTERM); }  // graceful: the server closes its clients and exits
  void Kill() { Signal(SIGKILL); }  // a crash: no goodbye to anyone
  // A hung server (SIGSTOP): connections stay open, nothing is answered. Resume: SIGCONT.
  // Returns once the server has stopped (a signal is delivered asynchronously: a request sent
  // right after kill() could still be answered).
  void Pause() {
    if (pid_ <= 0) return;
    kill(pid_, SIGSTOP);
    int status = 0;
    waitpid(pid_, &status, WUNTRACED);
  }
  void Resume() {
    if (pid_ > 0) kill(pid_, SIGCONT);
  }

 private:
  static constexpr std::chrono::seconds kStartTimeout{10};
  static constexpr int kStartAttempts = 5;
  static constexpr std::chrono::milliseconds kPollInterval{20};

  static std::string FindBinary() {
    if (const char* env = std::getenv("ZS_NATS_SERVER"); env != nullptr && env[0] != '\0') {
      return env;
    }
    std::string path = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
    path += ":/usr/sbin:/usr/bin:/usr/local/bin";
    std::stringstream dirs(path);
    for (std::string d; std::getline(dirs, d, ':');) {
      const std::filesystem::path candidate = std::filesystem::path(d) / "nats-server";
      if (!d.empty() && access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
    throw std::runtime_error(
        "nats-server not found (PATH, /usr/sbin, /usr/bin; or set ZS_NATS_SERVER): install the "
        "'nats-server' package (scripts/install-deps.sh)");
  }

  static int FreePort() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) throw std::runtime_error("NatsServer: socket");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof(addr);
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      close(fd);
      throw std::runtime_error("NatsServer: cannot find a free port");
    }
    close(fd);
    return ntohs(addr.sin_port);
  }

  bool Accepting() const {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return false;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port_));
    bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    if (ok) {  // a NATS server greets first: "INFO {...}"
      timeval wait{.tv_sec = 1, .tv_usec = 0};
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
      char banner[5] = {};
      ok = recv(fd, banner, sizeof(banner), MSG_WAITALL) == 5 &&
           std::string_view(banner, 5) == "INFO ";
    }
    close(fd);
    return ok;
  }

  void WaitUntilAccepting() {
    const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
    while (!Accepting()) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        throw std::runtime_error("NatsServer: " + bin_ + " exited at start; " + Log() + ":\n" +
                                 ReadLog());
      }
      if (std::chrono::steady_clock::now() > deadline) {
        Signal(SIGKILL);
        throw std::runtime_error("NatsServer: port " + std::to_string(port_) +
                                 " not accepting after 10 s; " + Log() + ":\n" + ReadLog());
      }
      std::this_thread::sleep_for(kPollInterval);
    }
  }

  void Signal(int sig) {
    if (pid_ <= 0) return;
    kill(pid_, sig);
    if (sig != SIGKILL) kill(pid_, SIGCONT);  // a paused server must wake to see SIGTERM
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  std::string ReadLog() const {
    std::ifstream in(Log());
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  std::string Log() const { return dir_ + "/server.log"; }

  std::string bin_;
  int port_ = 0;
  std::string dir_;
  pid_t pid_ = -1;
};

}  // namespace zs::test
