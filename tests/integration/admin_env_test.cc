// The admin address from the environment, on the real zone_server binary: ZS_ADMIN_LISTEN /
// ZS_ADMIN_PORT beat server.yaml, and --admin-listen / --admin-port beat them (what the Docker
// image relies on: it sets the variables, and `docker run IMAGE --port ...` keeps them).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <utility>

#include "integration/harness.h"

namespace zs::integration {
namespace {

// A listening socket on 127.0.0.1 and an ephemeral port, for as long as it lives.
class HeldPort {
 public:
  HeldPort() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(fd_, 1) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      ADD_FAILURE() << "cannot hold a port";
    }
    port_ = ntohs(a.sin_port);
  }
  ~HeldPort() { Release(); }
  HeldPort(const HeldPort&) = delete;
  HeldPort& operator=(const HeldPort&) = delete;
  [[nodiscard]] uint16_t port() const { return port_; }
  void Release() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
  uint16_t port_ = 0;
};

// zone_server with its own server.yaml (admin on 127.0.0.2, port 0), extra environment
// variables and flags. Waits until it has written its port file or exited.
class EnvServer {
 public:
  EnvServer(const std::vector<std::pair<std::string, std::string>>& env,
            const std::vector<std::string>& flags) {
    dir_ = fs::temp_directory_path() /
           ("zs_env_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "server.yaml") << "listen: {address: 127.0.0.1, port: 0}\n"
                                        << "admin: {address: 127.0.0.2, port: 0}\n"
                                        << "world: " << ZS_TEST_WORLD << "\n";
    const std::string config = (dir_ / "server.yaml").string();
    const std::string ports = (dir_ / "ports").string();
    const std::string log = (dir_ / "server.log").string();
    std::vector<std::string> args = {ZS_SERVER_BIN, "--config", config, "--port-file", ports};
    args.insert(args.end(), flags.begin(), flags.end());
    pid_ = ::fork();
    if (pid_ == 0) {
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::unsetenv("ZS_ADMIN_LISTEN");
      ::unsetenv("ZS_ADMIN_PORT");
      for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(ZS_SERVER_BIN, argv.data());
      ::_exit(127);
    }
    for (int i = 0; i < 200 && !fs::exists(ports) && !Exited(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // file fully written
    std::ifstream(ports) >> port_ >> admin_port_;
  }
  ~EnvServer() {
    if (!exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    fs::remove_all(dir_);
  }
  EnvServer(const EnvServer&) = delete;
  EnvServer& operator=(const EnvServer&) = delete;

  // True once the process has ended (then exit_code() is its status).
  bool Exited() {
    int status = 0;
    if (!exited_ && ::waitpid(pid_, &status, WNOHANG) == pid_) {
      exited_ = true;
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    return exited_;
  }
  [[nodiscard]] int exit_code() const { return exit_code_; }
  [[nodiscard]] uint16_t admin_port() const { return admin_port_; }
  [[nodiscard]] std::string Log() const {
    std::stringstream s;
    s << std::ifstream(dir_ / "server.log").rdbuf();
    return s.str();
  }

 private:
  static inline int counter_ = 0;
  fs::path dir_;
  pid_t pid_ = -1;
  bool exited_ = false;
  int exit_code_ = -1;
  uint16_t port_ = 0;
  uint16_t admin_port_ = 0;
};

// GET /healthz at address:port; the body, or "" when nothing answers.
std::string Healthz(const std::string& address, uint16_t port) {
  try {
    boost::asio::io_context io;
    boost::asio::ip::tcp::socket s(io);
    s.connect({boost::asio::ip::make_address(address), port});
    boost::asio::write(s, boost::asio::buffer(std::string("GET /healthz HTTP/1.0\r\n\r\n")));
    std::string resp;
    char buf[1024];
    boost::system::error_code ec;
    for (size_t n = 0; (n = s.read_some(boost::asio::buffer(buf), ec)) > 0 || !ec;) {
      resp.append(buf, n);
    }
    const size_t body = resp.find("\r\n\r\n");
    return body == std::string::npos ? "" : resp.substr(body + 4);
  } catch (const std::exception&) {
    return "";
  }
}

TEST(AdminFromEnvironment, TheEnvironmentBeatsTheConfigFile) {
  HeldPort free_port;
  const uint16_t want = free_port.port();
  free_port.Release();  // the server takes it (a tiny race with other tests; ports are many)
  EnvServer server({{"ZS_ADMIN_LISTEN", "127.0.0.1"}, {"ZS_ADMIN_PORT", std::to_string(want)}}, {});
  ASSERT_FALSE(server.Exited()) << server.Log();
  EXPECT_EQ(server.admin_port(), want) << server.Log();
  EXPECT_EQ(Healthz("127.0.0.1", want).substr(0, 2), "ok") << server.Log();
  EXPECT_EQ(Healthz("127.0.0.2", want), "") << "still on the file's address";
}

TEST(AdminFromEnvironment, TheCommandLineBeatsTheEnvironment) {
  HeldPort taken;  // the environment names a port that is in use: only the flags can save it
  EnvServer server(
      {{"ZS_ADMIN_LISTEN", "127.0.0.3"}, {"ZS_ADMIN_PORT", std::to_string(taken.port())}},
      {"--admin-listen", "127.0.0.1", "--admin-port", "0"});
  ASSERT_FALSE(server.Exited()) << server.Log();
  EXPECT_NE(server.admin_port(), taken.port());
  EXPECT_EQ(Healthz("127.0.0.1", server.admin_port()).substr(0, 2), "ok") << server.Log();
}

TEST(AdminFromEnvironment, ABadVariableStopsTheServerWithItsName) {
  EnvServer server({{"ZS_ADMIN_PORT", "nine"}}, {});
  for (int i = 0; i < 100 && !server.Exited(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(server.Exited());
  EXPECT_EQ(server.exit_code(), 2);
  EXPECT_NE(server.Log().find("ZS_ADMIN_PORT"), std::string::npos) << server.Log();
}

}  // namespace
}  // namespace zs::integration
