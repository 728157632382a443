// End to end: the zone server and client_sim, 50 bots for 5 s in `crowd` and `raid`: every bot
// logs in and not one protocol promise is broken, chat and input results included (every bot
// says something about once a second: each line must reach exactly the bots within the radius).
// And client_sim stopped by SIGTERM (what `docker stop` sends to a container's PID 1) ends
// promptly with its summary and report.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "integration/harness.h"

namespace zs::integration {
namespace {

// Runs client_sim to completion; returns its exit status and fills *report. One bot in
// `verify_every` checks every protocol promise; the others read cheaply.
int RunClientSim(uint16_t port, const std::string& scenario, std::string* report,
                 int verify_every = 1) {
  const fs::path path = fs::temp_directory_path() /
                        ("zs_sim_" + std::to_string(::getpid()) + "_" + scenario + ".json");
  const std::string port_s = std::to_string(port), verify_s = std::to_string(verify_every);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::execl(ZS_CLIENT_SIM_BIN, ZS_CLIENT_SIM_BIN, "--port", port_s.c_str(), "--bots", "50",
            "--ramp", "100", "--duration", "5", "--scenario", scenario.c_str(), "--verify-every",
            verify_s.c_str(), "--say-rate", "1", "--report", path.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  *report = s.str();
  fs::remove(path);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The report's fields; a discarded (empty) object when it is missing or not valid JSON.
nlohmann::json Parse(const std::string& report) {
  return nlohmann::json::parse(report, nullptr, /*allow_exceptions=*/false);
}

class ClientSimEndToEnd : public ::testing::TestWithParam<const char*> {};

TEST_P(ClientSimEndToEnd, FiftyBotsAllLogInWithZeroViolations) {
  ServerProcess server;
  std::string report;
  EXPECT_EQ(RunClientSim(server.port(), GetParam(), &report), 0) << report << server.Log();
  const nlohmann::json j = Parse(report);
  ASSERT_TRUE(j.is_object()) << report;
  EXPECT_EQ(j.value("logins_ok", -1), 50) << report;
  EXPECT_EQ(j.value("logins_failed", -1), 0) << report;
  EXPECT_EQ(j.value("violations_total", -1), 0) << report;
  EXPECT_GT(j.value("ticks_received", 0), 0) << report;
  // Chat was said and checked against the radius; inputs got results.
  EXPECT_GT(j.value("says_checked", 0), 100) << report;
  EXPECT_GT(j.value("chat_heard", 0), j.value("says_checked", 0)) << report;
  ASSERT_TRUE(j.contains("results")) << report;
  EXPECT_GT(j["results"].value("OUTCOME_ACCEPTED", 0), 50) << report;
}

// The cheap readers (every bot but one in 7) still see consecutive ticks, and the verifying ones
// find every promise kept, whatever the mix.
TEST(ClientSimEndToEnd, CheapReadersAndVerifiersTogetherSeeNoViolation) {
  ServerProcess server;
  std::string report;
  EXPECT_EQ(RunClientSim(server.port(), "crowd", &report, 7), 0) << report << server.Log();
  const nlohmann::json j = Parse(report);
  ASSERT_TRUE(j.is_object()) << report;
  EXPECT_EQ(j.value("verifying_bots", -1), 8) << report;
  EXPECT_EQ(j.value("logins_ok", -1), 50) << report;
  EXPECT_EQ(j.value("violations_total", -1), 0) << report;
}

// A run meant to last two minutes, stopped by SIGTERM once every bot is in the world: it exits
// within a few seconds, with status 0 (no violation), and writes its report saying why it ended.
TEST(ClientSimSignals, SigtermEndsTheRunWithSummaryAndReport) {
  ServerProcess server;
  const fs::path path =
      fs::temp_directory_path() / ("zs_sim_" + std::to_string(::getpid()) + "_sigterm.json");
  const fs::path out =
      fs::temp_directory_path() / ("zs_sim_" + std::to_string(::getpid()) + "_sigterm.out");
  const std::string port_s = std::to_string(server.port());
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::execl(ZS_CLIENT_SIM_BIN, ZS_CLIENT_SIM_BIN, "--port", port_s.c_str(), "--bots", "5", "--ramp",
            "100", "--duration", "120", "--scenario", "wander", "--report", path.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const double give_up = NowS() + 10;
  while (NowS() < give_up && MetricValue(server.HttpGet("/metrics"), "zs_players") < 5) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // a few ticks each
  const double signalled = NowS();
  ::kill(pid, SIGTERM);
  int status = 0;
  pid_t done = 0;
  while ((done = ::waitpid(pid, &status, WNOHANG)) == 0 && NowS() < signalled + 10) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (done == 0) {  // still running: fail, and do not leave it behind
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    ADD_FAILURE() << "client_sim still running 10 s after SIGTERM";
  }
  const double took = NowS() - signalled;
  std::stringstream report, stdout_text;
  report << std::ifstream(path).rdbuf();
  stdout_text << std::ifstream(out).rdbuf();
  fs::remove(path);
  fs::remove(out);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << stdout_text.str() << report.str();
  EXPECT_LT(took, 5.0);  // well within `docker stop`'s 10 s grace period
  const nlohmann::json j = Parse(report.str());
  ASSERT_TRUE(j.is_object()) << report.str();
  EXPECT_EQ(j.value("stopped_by", ""), "SIGTERM") << report.str();
  EXPECT_EQ(j.value("logins_ok", -1), 5) << report.str();
  EXPECT_EQ(j.value("violations_total", -1), 0) << report.str();
  EXPECT_LT(j.value("duration_s", 1e9), 60) << report.str();
  EXPECT_NE(stdout_text.str().find("stopped early by SIGTERM"), std::string::npos)
      << stdout_text.str();
}

INSTANTIATE_TEST_SUITE_P(Scenarios, ClientSimEndToEnd, ::testing::Values("crowd", "raid"),
                         [](const auto& param_info) { return std::string(param_info.param); });

}  // namespace
}  // namespace zs::integration
