// ChurnLog: the first lines of each kind per window are logged, the rest are counted and
// summed up once per window, by kind and reason.
#include "host/churn_log.h"

#include <gtest/gtest.h>

#include <string>

namespace zs::host {
namespace {

TEST(ChurnLog, QuietTrafficIsLoggedLineByLineWithNoSummary) {
  ChurnLog log(1.0, 5);
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(log.Admit(ChurnLog::Kind::kConnected, "", 10.0 + i * 0.1));
    EXPECT_TRUE(log.Admit(ChurnLog::Kind::kDisconnected, "client_closed", 10.0 + i * 0.1));
  }
  EXPECT_EQ(log.TakeSummary(10.5), std::nullopt);  // the window is not over
  EXPECT_EQ(log.TakeSummary(11.0), std::nullopt);  // over, but every line was shown
}

TEST(ChurnLog, AFloodKeepsTheFirstFewOfEachKindAndSumsUpTheRest) {
  ChurnLog log(1.0, 5);
  int shown = 0;
  for (int i = 0; i < 1000; ++i) {
    const double t = 100.0 + i * 0.0009;
    shown += log.Admit(ChurnLog::Kind::kConnected, "", t);
    shown += log.Admit(ChurnLog::Kind::kDisconnected, i % 10 == 0 ? "idle" : "client_closed", t);
  }
  for (int i = 0; i < 3; ++i) shown += log.Admit(ChurnLog::Kind::kRefused, "server full", 100.5);
  EXPECT_EQ(shown, 5 + 5 + 3);
  EXPECT_EQ(log.TakeSummary(100.9), std::nullopt);
  const auto line = log.TakeSummary(101.0);
  ASSERT_TRUE(line.has_value());
  EXPECT_NE(line->find("1000 connected"), std::string::npos) << *line;
  EXPECT_NE(line->find("1000 disconnected (client_closed 900, idle 100)"), std::string::npos)
      << *line;
  EXPECT_NE(line->find("3 refused (server full 3)"), std::string::npos) << *line;
  EXPECT_NE(line->find("1990 lines not shown"), std::string::npos) << *line;
  // A new window: the first lines are shown again.
  EXPECT_TRUE(log.Admit(ChurnLog::Kind::kConnected, "", 101.1));
  EXPECT_EQ(log.TakeSummary(102.2), std::nullopt);
}

TEST(ChurnLog, FlushSumsUpBeforeTheWindowEnds) {
  ChurnLog log(1.0, 1);
  EXPECT_TRUE(log.Admit(ChurnLog::Kind::kJoined, "", 5.0));
  EXPECT_FALSE(log.Admit(ChurnLog::Kind::kJoined, "", 5.1));
  const auto line = log.TakeSummary(5.2, /*flush=*/true);
  ASSERT_TRUE(line.has_value());
  EXPECT_NE(line->find("2 joined; 1 lines not shown"), std::string::npos) << *line;
}

}  // namespace
}  // namespace zs::host
