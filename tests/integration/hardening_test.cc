// Hardening end to end, against the real binary: what one client can make the server hold is
// bounded by the config whatever it does; the file descriptor limit and the admin port's caps
// keep /healthz answering; connection churn does not flood the log; names cannot fake a line.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <algorithm>
#include <memory>

#include "integration/harness.h"
#include "names/player_name.h"

namespace zs::integration {
namespace {

// Samples /metrics every half second for `seconds` (or until `done` says so) while the
// observer's ticks are drained; keeps the largest send-queue total the server reported.
struct QueueWatch {
  double most_queued = 0;
  long most_rss_kib = 0;
  void Sample(const ServerProcess& server) {
    most_queued =
        std::max(most_queued, MetricValue(server.HttpGet("/metrics"), "zs_send_queue_bytes"));
    most_rss_kib = std::max(most_rss_kib, server.RssKiB());
  }
};

bool Kicked(const ServerProcess& server, const std::string& reason) {
  return server.HttpGet("/metrics").find("zs_kicks_total{reason=\"" + reason + "\"}") !=
         std::string::npos;
}

// Issue scenario 1: a client that logs in, never reads, and sends one input every 2 s (so it
// is never idle) while standing in a 150-bot crowd. It used to grow the server by 80 MB.
TEST(MemoryBound, AClientThatNeverReadsInACrowdIsCutOffAndHoldsAtMostItsCap) {
  ServerProcess server(
      "  idle_timeout_seconds: 60\n  max_connections_per_ip: 1000\n"
      "  send_queue_bytes: 524288\n  stall_timeout_seconds: 5\n");
  TestClient sleeper(server.port(), 4096);
  ASSERT_TRUE(sleeper.Login("sleeper"));
  const long rss_start = server.RssKiB();
  const pid_t bots = StartBots(server.port(), 150, 25);
  QueueWatch watch;
  uint32_t seq = 1;
  sleeper.Move(1, 1, seq++);  // into the crowd at the plaza's centre, reading nothing
  const double start = NowS();
  bool kicked = false;
  while (NowS() - start < 25 && !kicked) {
    if (seq < 2 + static_cast<uint32_t>((NowS() - start) / 2)) sleeper.Move(0, 0, seq++);
    watch.Sample(server);
    kicked = Kicked(server, "slow_reader");
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  ::kill(bots, SIGTERM);
  ::waitpid(bots, nullptr, 0);
  EXPECT_TRUE(kicked) << server.Log();
  // Every queue together: the sleeper's 512 KiB cap plus what the reading bots have in flight.
  EXPECT_GT(watch.most_queued, 0.0);
  EXPECT_LE(watch.most_queued, 512 * 1024 + 1024 * 1024);
  if (!kSanitizerBuild) {  // ASan's quarantine, TSan's shadow memory: RSS says nothing there
    EXPECT_LT(watch.most_rss_kib - rss_start, 40 * 1024) << "RSS growth (150 bots included)";
  }
}

// Issue scenario 2: the same client, once its kernel buffer is full, walks to where it sees
// nobody: its frames are tiny, so no byte cap is ever reached. With caps far too large to
// matter (50 MB, 60 s of queue age) only the lack of progress on the socket can catch it.
TEST(MemoryBound, AStalledSocketIsCutOffByLackOfProgressEvenWithTinyFrames) {
  ServerProcess server(
      "  idle_timeout_seconds: 60\n  max_connections_per_ip: 1000\n"
      "  send_queue_bytes: 50000000\n  send_queue_delay_seconds: 60\n"
      "  stall_timeout_seconds: 3\n");
  TestClient sleeper(server.port(), 4096);
  ASSERT_TRUE(sleeper.Login("sleeper"));
  const pid_t bots = StartBots(server.port(), 100, 25);
  QueueWatch watch;
  sleeper.Move(1, 1, 1);  // into the crowd: the kernel buffers fill within a second
  std::this_thread::sleep_for(std::chrono::milliseconds(3000));
  sleeper.Move(-1, 1, 2);  // then off to the empty corner (0, 400)
  const double start = NowS();
  bool kicked = false;
  uint32_t seq = 3;
  while (NowS() - start < 20 && !kicked) {
    if (seq < 3 + static_cast<uint32_t>((NowS() - start) / 2)) sleeper.Move(-1, 1, seq++);
    watch.Sample(server);
    kicked = Kicked(server, "slow_reader");
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  ::kill(bots, SIGTERM);
  ::waitpid(bots, nullptr, 0);
  EXPECT_TRUE(kicked) << server.Log();
  EXPECT_LT(NowS() - start, 12.0) << "cut off within the stall timeout, not left to grow";
  EXPECT_LE(watch.most_queued, 4.0 * 1024 * 1024);
}

// Several clients that stop reading while a global cap far below the sum of their own caps
// holds: the ones behind skip ticks (counted), the total stays near the global cap, and a
// client that keeps reading sees every tick.
TEST(MemoryBound, TheGlobalCapDropsTheClientsThatAreBehindNotTheOnesKeepingUp) {
  ServerProcess server(
      "  idle_timeout_seconds: 60\n  max_connections_per_ip: 1000\n"
      "  send_queue_bytes: 4000000\n  send_queue_delay_seconds: 60\n"
      "  stall_timeout_seconds: 60\n  total_send_queue_bytes: 65536\n");
  TestClient observer(server.port());
  ASSERT_TRUE(observer.Login("observer"));
  std::vector<std::unique_ptr<TestClient>> sleepers;
  for (int i = 0; i < 4; ++i) {
    sleepers.push_back(std::make_unique<TestClient>(server.port(), 4096));
    ASSERT_TRUE(sleepers.back()->Login("sleeper" + std::to_string(i)));
    sleepers.back()->Move(1, 1, 1);
  }
  observer.Move(1, 1, 1);
  const pid_t bots = StartBots(server.port(), 60, 12);
  TickWatch ticks;
  QueueWatch watch;
  const double start = NowS();
  while (NowS() - start < 8) {
    ticks.Drain(observer, 0.5);
    watch.Sample(server);
  }
  ::kill(bots, SIGTERM);
  ::waitpid(bots, nullptr, 0);
  const std::string metrics = server.HttpGet("/metrics");
  EXPECT_GT(MetricValue(metrics, "zs_send_queue_global_overflows_total"), 0.0) << metrics;
  // The cap plus at most one frame per connection (those keeping up) and per sleeper.
  EXPECT_LE(watch.most_queued, 65536 + 70 * 16 * 1024);
  EXPECT_FALSE(ticks.gap) << "the observer kept up and lost no tick";
  EXPECT_FALSE(observer.closed());
}

// RLIMIT_NOFILE 256 with max_connections 10,000: the server clamps max_connections (and
// says so), refuses the excess with a reason, and /healthz answers throughout.
TEST(Descriptors, TheConnectionCapIsClampedToTheFdLimitAndHealthzKeepsAnswering) {
  ServerProcess server(
      "  idle_timeout_seconds: 60\n  max_connections: 10000\n"
      "  max_connections_per_ip: 10000\n",
      "", ZS_TEST_WORLD, 256);
  const std::string log = server.Log();
  ASSERT_NE(log.find("max_connections 10000 does not fit in 256 file descriptors"),
            std::string::npos)
      << log;
  std::vector<std::unique_ptr<TestClient>> clients;
  for (int i = 0; i < 260; ++i) clients.push_back(std::make_unique<TestClient>(server.port()));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(server.HttpGet("/healthz"), "ok\n");
  const std::string metrics = server.HttpGet("/metrics");
  EXPECT_GT(MetricValue(metrics, "zs_connections_refused_total"), 0.0);
  EXPECT_LT(MetricValue(metrics, "zs_connections"), 256.0);
  // A refused client is told why.
  auto refused = clients.back()->ReadUntilClosed(3);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->error().message(), "server full");
  // Once some close, a new client logs in.
  clients.resize(100);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  TestClient late(server.port());
  EXPECT_TRUE(late.Login("late").has_value());
}

// A raw HTTP exchange with the admin port: sends `request`, returns the whole response.
std::string AdminRaw(uint16_t port, const std::string& request) {
  TestClient c(port);
  c.SendRaw(request);
  std::string out;
  char buf[4096];
  for (;;) {
    pollfd p{c.native_handle(), POLLIN, 0};
    if (::poll(&p, 1, 3000) <= 0) break;
    const ssize_t n = ::recv(c.native_handle(), buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

TEST(AdminPort, OversizedRequestsGet431And413) {
  ServerProcess server;
  const std::string big_header =
      "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(16 * 1024, 'a') + "\r\n\r\n";
  EXPECT_EQ(AdminRaw(server.admin_port(), big_header).rfind("HTTP/1.1 431", 0), 0u);
  const std::string big_body =
      "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" +
      std::string(100000, 'b');
  EXPECT_EQ(AdminRaw(server.admin_port(), big_body).rfind("HTTP/1.1 413", 0), 0u);
  EXPECT_EQ(server.HttpGet("/healthz"), "ok\n");
}

TEST(AdminPort, IdleConnectionsAreCappedAndHealthzStillAnswers) {
  ServerProcess server("  idle_timeout_seconds: 60\n",
                       "admin: {address: 127.0.0.1, port: 0, max_connections: 4}\n");
  std::vector<std::unique_ptr<TestClient>> idle;
  for (int i = 0; i < 50; ++i) idle.push_back(std::make_unique<TestClient>(server.admin_port()));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const double start = NowS();
  EXPECT_EQ(server.HttpGet("/healthz"), "ok\n");
  EXPECT_LT(NowS() - start, 1.0) << "answered at once, not after the idle ones time out";
  const std::string metrics = server.HttpGet("/metrics");
  EXPECT_LE(MetricValue(metrics, "zs_admin_connections"), 4.0);
  EXPECT_GE(MetricValue(metrics, "zs_admin_evictions_total"), 46.0);
  // The server's own descriptors: the 50 idle connections do not each hold one.
  size_t fds = 0;
  for ([[maybe_unused]] const auto& e :
       fs::directory_iterator("/proc/" + std::to_string(server.pid()) + "/fd")) {
    ++fds;
  }
  EXPECT_LT(fds, 40u);
}

// 300 connect/disconnect cycles: a few lines verbatim, then one summary line per second.
TEST(Logging, ConnectionChurnIsSummedUpNotLoggedLineByLine) {
  ServerProcess server("  idle_timeout_seconds: 60\n  max_connections_per_ip: 1000\n");
  for (int i = 0; i < 300; ++i) {
    TestClient c(server.port());
    c.Close();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  const std::string log = server.Log();
  const auto count = [&log](const std::string& what) {
    size_t n = 0;
    for (size_t at = log.find(what); at != std::string::npos; at = log.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_LT(count("connected from"), 40u);
  EXPECT_LT(count("disconnected:"), 40u);
  EXPECT_GE(count("churn in the last"), 1u) << log;
}

TEST(Names, InvisibleAndDirectionCharactersAreRefusedAndNeverLogged) {
  ServerProcess server;
  TestClient c(server.port());
  c.Hello(
      "\xe2\x80\xae"
      "nimda");  // U+202E RIGHT-TO-LEFT OVERRIDE: shows as "admin"
  auto m = c.ReadUntilClosed(3);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->error().code(), pb::ERROR_CODE_BAD_NAME);
  EXPECT_EQ(m->error().message(), names::NameProblemText(names::NameProblem::kInvisible));
  EXPECT_EQ(server.Log().find("\xe2\x80\xae"), std::string::npos);
}

// Invalid UTF-8 in a string field fails protobuf's own parse, which logs a line of its own:
// that line goes through the server's log at debug level, never raw to stderr.
TEST(Names, ProtobufsOwnParseErrorsFollowTheLogLevel) {
  ServerProcess server;
  TestClient c(server.port());
  c.Hello("bad\xff\xfename");
  auto m = c.ReadUntilClosed(3);
  ASSERT_TRUE(m.has_value());
  EXPECT_TRUE(m->has_error());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const std::string log = server.Log();
  EXPECT_EQ(log.find("libprotobuf"), std::string::npos) << log;
  EXPECT_EQ(log.find("invalid UTF-8"), std::string::npos) << log;  // a debug line at info level
}

}  // namespace
}  // namespace zs::integration
