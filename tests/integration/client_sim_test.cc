// End to end: the zone server and client_sim, 50 bots for 5 s in `crowd` and `raid`: every bot
// logs in and not one protocol promise is broken, chat and input results included (every bot
// says something about once a second: each line must reach exactly the bots within the radius).
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

INSTANTIATE_TEST_SUITE_P(Scenarios, ClientSimEndToEnd, ::testing::Values("crowd", "raid"),
                         [](const auto& param_info) { return std::string(param_info.param); });

}  // namespace
}  // namespace zs::integration
