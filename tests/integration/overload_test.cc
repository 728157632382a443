// Crowd control end to end. Overload control: a server whose overload threshold is tiny (0.5 ms of
// work per 10 ms tick) gets a crowd of client_sim bots. Its interest budgets must shrink (level
// above 0, logged once per change), every client must keep getting consecutive ticks, and the
// budgets must grow back to full once the crowd leaves.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>

#include "integration/harness.h"

namespace zs::integration {
namespace {

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
  // Under TSan even an idle tick takes more than this world's 0.5 ms threshold and 150 bots hold
  // the server below 100 Hz: the promises about time (tick count, recovery) do not hold there.
  if (kUnderTsan) GTEST_SKIP() << "no timing promises under ThreadSanitizer";
  EXPECT_GT(watch.count, 300u) << "ticks kept coming";
  // Growing back takes 10 ticks in a row under a quarter of a millisecond of work (this world's
  // hair trigger); under ASan an idle tick takes about 0.2 ms (p50 bucket <= 0.25 ms), so a
  // streak of 10 rarely happens: recovery is checked in the plain build.
  if (kSanitizerBuild) GTEST_SKIP() << "ASan's idle tick is at this world's recovery threshold";
  // The crowd has gone: the budgets grow back one step per quiet period (10 ticks in a row
  // under a quarter of a millisecond). On a machine busy with other work (the test suite runs
  // two at a time) a streak is often broken by preemption, so the deadline is generous: a
  // minute, where a quiet machine takes about a second.
  double level = -1;
  const double deadline = NowS() + 60;
  while (level != 0 && NowS() < deadline) {
    watch.Drain(observer, 0.25);
    level = MetricValue(server.HttpGet("/metrics"), "zs_interest_level");
  }
  EXPECT_EQ(level, 0) << server.Log();
  EXPECT_NEAR(MetricValue(server.HttpGet("/metrics"), "zs_interest_scale"), 1.0, 1e-9);
  EXPECT_NE(server.Log().find("overload control: interest level"), std::string::npos);
  EXPECT_FALSE(watch.gap);
}

// A client that stops reading for a while in a crowd: with a byte cap far too large to matter,
// the send queue's age bound (send_queue_delay_seconds) is what makes the server drop its ticks
// and resync it, instead of queueing seconds of frames. It is not kicked; when it reads again it
// gets a resync and then consecutive ticks.
TEST(Overload, AStalledReaderIsResyncedByQueueAgeNotQueuedForSeconds) {
  ServerProcess server(
      "  idle_timeout_seconds: 60\n  max_connections_per_ip: 1000\n"
      "  send_queue_bytes: 50000000\n  send_queue_delay_seconds: 0.5\n"
      "  stall_timeout_seconds: 30\n");
  TestClient sleeper(server.port(), 4096);
  ASSERT_TRUE(sleeper.Login("sleeper"));
  const pid_t bots = StartBots(server.port(), 60, 120);  // stopped below, once seen
  sleeper.Move(1, 1, 1);  // walk into the crowd at the plaza's centre (40 m/s from the spawn)
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  sleeper.Move(0, 0, 2);  // and stand in it
  // Rounds of reading nothing for 3 s, then reading for 2 s, until a resync comes. One round
  // does it on a quiet machine; on a busy one the bots may take longer to crowd around it, and
  // its frames to outgrow what the kernel holds.
  bool resynced = false;
  uint64_t last = 0;
  uint64_t after_resync = 0;  // consecutive ticks read after the resync
  bool gap_after_resync = false;
  const double deadline = NowS() + 90;
  while (after_resync < 40 && NowS() < deadline) {
    if (!resynced) std::this_thread::sleep_for(std::chrono::seconds(3));
    const double round_end = NowS() + 2;
    while ((resynced || NowS() < round_end) && after_resync < 40 && NowS() < deadline) {
      auto m = sleeper.Read(std::max(0.1, round_end - NowS()));
      if (!m || !m->has_tick()) continue;
      if (m->tick().resync()) {
        resynced = true;
      } else if (resynced) {
        if (last != 0 && m->tick().tick() != last + 1) gap_after_resync = true;
        ++after_resync;
      }
      last = m->tick().tick();
    }
  }
  ::kill(bots, SIGTERM);
  int status = 0;
  ::waitpid(bots, &status, 0);
  EXPECT_TRUE(resynced) << server.Log();
  EXPECT_EQ(after_resync, 40u) << "consecutive ticks after the resync";
  EXPECT_FALSE(gap_after_resync);
  EXPECT_FALSE(sleeper.closed()) << "not kicked: it was slow, not stuck\n" << server.Log();
  const std::string metrics = server.HttpGet("/metrics");
  EXPECT_EQ(metrics.find("zs_send_queue_overflows_total 0"), std::string::npos);
  EXPECT_EQ(metrics.find("zs_kicks_total{reason=\"slow_reader\"}"), std::string::npos);
}

}  // namespace
}  // namespace zs::integration
