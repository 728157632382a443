// PostgresServer: a throwaway PostgreSQL server for tests (storage tests, integration tests).
//
// What it does: makes a temp dir, runs `initdb` (trust auth, user postgres, no fsync) and
// `pg_ctl start` with the server listening only on a unix socket in that dir, and in its
// destructor stops the server and removes the dir. Stop()/Start() restart the same cluster, for
// fault tests (a server that goes away mid-run); Freeze()/Thaw() stop and continue every process
// of it (SIGSTOP/SIGCONT): a server that hangs without closing a connection.
//
// Binaries: the newest /usr/lib/postgresql/<version>/bin with initdb and pg_ctl (Debian's
// `postgresql` package). Missing binaries throw std::runtime_error saying what to install:
// a test that needs a server fails loudly, it is never skipped in silence.
//
// Root: initdb refuses to run as root, so under euid 0 the server's commands run as the
// `postgres` user (runuser) and the dir is handed to it. Clients connect as role `postgres`
// over the socket (trust), whoever runs the test.
//
// Threads: not thread-safe; one test owns one server.
#pragma once

#include <pwd.h>
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace zs::test {

class PostgresServer {
 public:
  PostgresServer() : bin_(FindBinDir()) {
    std::string pattern = "/tmp/zs_pg_XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("PostgresServer: mkdtemp");
    dir_ = pattern;
    if (geteuid() == 0) HandToPostgresUser();
    Run(bin_ + "/initdb -D " + Data() + " -A trust -U postgres -E UTF8 --no-sync > " + dir_ +
            "/initdb.log 2>&1",
        "initdb", dir_ + "/initdb.log");
    Start();
  }
  ~PostgresServer() {
    try {
      if (frozen_) Thaw();  // a stopped server cannot be stopped by pg_ctl
    } catch (const std::exception&) {
      // Its processes are gone already: nothing to continue.
    }
    const std::string stop = as_ + bin_ + "/pg_ctl -D " + Data() + " -m immediate -w stop";
    if (running_ && std::system((stop + " > /dev/null 2>&1").c_str()) != 0) {
      // Nothing more to do in a destructor: the dir goes anyway.
    }
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // libpq connection string of database `dbname` on this server.
  std::string conninfo(const std::string& dbname = "postgres") const {
    return "host=" + dir_ + " dbname=" + dbname + " user=postgres";
  }
  const std::string& dir() const { return dir_; }

  void Start() {
    Run(bin_ + "/pg_ctl -D " + Data() + " -l " + Log() + " -o \"-k " + dir_ +
            " -c listen_addresses='' -c fsync=off\" -w start > /dev/null 2>&1",
        "pg_ctl start", Log());
    running_ = true;
  }
  void Stop() {
    Run(bin_ + "/pg_ctl -D " + Data() + " -m fast -w stop > /dev/null 2>&1", "pg_ctl stop", Log());
    running_ = false;
  }
  // Returns once every process has stopped (signals are delivered asynchronously).
  void Freeze() {
    const std::vector<pid_t> pids = Processes();
    for (const pid_t pid : pids) ::kill(pid, SIGSTOP);
    frozen_ = true;
    for (const pid_t pid : pids) {
      for (int i = 0; i < 500 && State(pid) != 'T' && State(pid) != '\0'; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    }
  }
  void Thaw() {
    Signal(SIGCONT);
    frozen_ = false;
  }
  void CreateDatabase(const std::string& name) const {
    Run(bin_ + "/createdb -h " + dir_ + " -U postgres " + name + " > " + dir_ +
            "/createdb.log 2>&1",
        "createdb", dir_ + "/createdb.log");
  }

 private:
  static std::string FindBinDir() {
    const std::filesystem::path root = "/usr/lib/postgresql";
    std::string best;
    int best_version = -1;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
      const std::string version = entry.path().filename().string();
      const std::string bin = entry.path().string() + "/bin";
      if (!std::filesystem::exists(bin + "/initdb") || !std::filesystem::exists(bin + "/pg_ctl")) {
        continue;
      }
      const int v = std::atoi(version.c_str());
      if (v > best_version) {
        best_version = v;
        best = bin;
      }
    }
    if (best.empty()) {
      throw std::runtime_error(
          "PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql/*/bin: "
          "install the 'postgresql' package (scripts/install-deps.sh)");
    }
    return best;
  }

  void HandToPostgresUser() {
    const passwd* pw = getpwnam("postgres");
    if (pw == nullptr) {
      throw std::runtime_error(
          "PostgresServer: running as root needs a 'postgres' user (initdb "
          "refuses root); install the 'postgresql' package");
    }
    if (chown(dir_.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
      throw std::runtime_error("PostgresServer: cannot chown " + dir_ + " to postgres");
    }
    as_ = "runuser -u postgres -- ";
  }

  void Run(const std::string& command, const std::string& what, const std::string& log) const {
    const std::string full = as_ + command;
    if (std::system(full.c_str()) == 0) return;
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    throw std::runtime_error("PostgresServer: " + what + " failed (" + full + "); " + log + ":\n" +
                             text.str());
  }

  // The postmaster (first line of postmaster.pid) and its children (by their ppid in /proc).
  std::vector<pid_t> Processes() const {
    std::ifstream pid_file(Data() + "/postmaster.pid");
    pid_t postmaster = 0;
    if (!(pid_file >> postmaster) || postmaster <= 0) {
      throw std::runtime_error("PostgresServer: no postmaster.pid in " + Data());
    }
    std::vector<pid_t> pids = {postmaster};
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
      std::ifstream stat(entry.path() / "stat");
      std::string text;
      if (!std::getline(stat, text)) continue;
      const size_t paren = text.rfind(')');  // the command name may hold spaces and parens
      if (paren == std::string::npos) continue;
      std::istringstream rest(text.substr(paren + 1));
      std::string state;
      pid_t ppid = 0;
      if (rest >> state >> ppid && ppid == postmaster) {
        pids.push_back(static_cast<pid_t>(std::atoi(entry.path().filename().c_str())));
      }
    }
    return pids;
  }
  // A process's state letter from /proc (R, S, T: stopped, ...); '\0' when it is gone.
  static char State(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(stat, text)) return '\0';
    const size_t paren = text.rfind(')');
    return paren != std::string::npos && paren + 2 < text.size() ? text[paren + 2] : '\0';
  }
  void Signal(int sig) const {
    for (const pid_t pid : Processes()) ::kill(pid, sig);
  }

  std::string Data() const { return dir_ + "/data"; }
  std::string Log() const { return dir_ + "/server.log"; }

  std::string bin_;
  std::string dir_;
  std::string as_;  // "runuser -u postgres -- " under root
  bool running_ = false;
  bool frozen_ = false;
};

}  // namespace zs::test
