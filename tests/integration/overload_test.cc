// Overload control end to end: a server whose overload threshold is tiny (0.5 ms of work per
// 10 ms tick) gets a crowd of client_sim bots. Its interest budgets must shrink (level above 0,
// logged once per change), every client must keep getting consecutive ticks, and the budgets
// must grow back to full once the crowd leaves.
#include <gtest/gtest.h>

#include <algorithm>

#include "integration/harness.h"

namespace zs::integration {
namespace {

// Starts client_sim in the background; returns its pid.
pid_t StartBots(uint16_t port, int bots, int seconds) {
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

TEST(Overload, BudgetsShrinkUnderACrowdAndGrowBackWhileTicksKeepComing) {
  ServerProcess server("  idle_timeout_seconds: 60\n  max_connections_per_ip: 1000\n",
                       "tick_rate: 100\n", ZS_TEST_OVERLOAD_WORLD);
  TestClient observer(server.port());
  ASSERT_TRUE(observer.Login("observer"));
  const pid_t bots = StartBots(server.port(), 150, 6);
  TickWatch watch;
  double highest = 0;
  for (int i = 0; i < 12; ++i) {  // while the crowd plays
    watch.Drain(observer, 0.5);
    highest = std::max(highest, MetricValue(server.HttpGet("/metrics"), "zs_interest_level"));
  }
  int status = 0;
  ::waitpid(bots, &status, 0);
  EXPECT_GT(highest, 0) << "budgets shrank under load";
  EXPECT_FALSE(watch.gap) << "the observer saw every tick";
  EXPECT_GT(watch.count, 300u) << "ticks kept coming";
  // The crowd has gone: the budgets grow back one step per quiet period.
  double level = -1;
  for (int i = 0; i < 40 && level != 0; ++i) {
    watch.Drain(observer, 0.25);
    level = MetricValue(server.HttpGet("/metrics"), "zs_interest_level");
  }
  EXPECT_EQ(level, 0) << server.Log();
  EXPECT_NEAR(MetricValue(server.HttpGet("/metrics"), "zs_interest_scale"), 1.0, 1e-9);
  EXPECT_NE(server.Log().find("overload control: interest level"), std::string::npos);
  EXPECT_FALSE(watch.gap);
}

}  // namespace
}  // namespace zs::integration
