// Storage faults on the real zone_server with a real SQLite file (issue 10): the database is
// locked by another process, made read-only, or deleted, while a player plays. Each time: the
// errors are reported (zs_storage_errors_total), the tick keeps its rate, the player's state
// waits in memory (zs_storage_unsaved), and it is saved once the fault clears: after a kill -9
// the character is where it was during the fault.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <string>

#include "integration/harness.h"
#include "support/must_run.h"

namespace zs::integration {
namespace {

struct Fault {
  std::function<bool()> apply;  // false: cannot be applied here (the test is skipped)
  std::function<void()> clear;
};

class StorageFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("zs_faults_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    (void)std::system(("chattr -i " + Files() + " 2>/dev/null").c_str());
    fs::remove_all(dir_);
  }
  [[nodiscard]] fs::path db() const { return dir_ / "characters.db"; }
  [[nodiscard]] std::string Files() const {
    return db().string() + " " + db().string() + "-wal " + db().string() + "-shm";
  }
  [[nodiscard]] std::string Yaml() const {
    return "storage: {path: " + db().string() + ", checkpoint_seconds: 1}\n";
  }

  // A player walks; the fault comes and the player stops meanwhile (a checkpoint fails to save
  // that); the fault clears; the state lands without any logout; kill -9; the restart finds it.
  void Run(const Fault& fault, bool new_logins_refused) {
    auto s = std::make_unique<ServerProcess>("  idle_timeout_seconds: 60\n", Yaml());
    auto c = std::make_unique<TestClient>(s->port());
    ASSERT_TRUE(c->Login("Steady")) << s->Log();
    c->Move(0, 1, 1);
    Sleep(1.3);  // one checkpoint saved
    if (!fault.apply()) ZS_SKIP_OR_FAIL_IN_CI("this fault cannot be made on this machine");
    // The plaza's ticks (each zone ticks on its own thread, with its own count).
    const std::string plaza_ticks = "zs_zone_ticks_total{zone=\"plaza\"}";
    const double ticks_before = MetricValue(s->HttpGet("/metrics"), plaza_ticks);
    c->Move(0, 0, 2);
    Sleep(2.5);
    const std::string during = s->HttpGet("/metrics");
    const double ticks = MetricValue(during, plaza_ticks) - ticks_before;
    EXPECT_GT(MetricValue(during, "zs_storage_errors_total"), 0) << s->Log();
    EXPECT_GE(MetricValue(during, "zs_storage_unsaved"), 1) << "kept in memory";
    if (!kUnderTsan) {
      EXPECT_GE(ticks, 0.85 * 20 * 2.5) << "the tick kept its rate";
    }
    if (new_logins_refused) ExpectStorageUnavailable(s->port());
    pb::Welcome truth;
    {
      TestClient probe(s->port());  // takes Steady over: the server's own state of it
      const auto w = probe.Login("Steady");
      ASSERT_TRUE(w);
      truth = *w;
    }
    fault.clear();
    const double end = NowS() + 15;
    while (NowS() < end && MetricValue(s->HttpGet("/metrics"), "zs_storage_unsaved") != 0) {
      Sleep(0.2);
    }
    EXPECT_EQ(MetricValue(s->HttpGet("/metrics"), "zs_storage_unsaved"), 0) << s->Log();
    s->Signal(SIGKILL);
    ASSERT_TRUE(s->Wait(5));
    c.reset();
    s.reset();
    ServerProcess again("  idle_timeout_seconds: 60\n", Yaml());
    TestClient back(again.port());
    const auto w = back.Login("Steady");
    ASSERT_TRUE(w) << again.Log();
    EXPECT_EQ(w->x(), truth.x());
    EXPECT_EQ(w->y(), truth.y());
  }

  static void ExpectStorageUnavailable(uint16_t port) {
    TestClient c(port);
    c.Hello("Newcomer");
    const auto last = c.ReadUntilClosed(5);
    ASSERT_TRUE(last && last->has_error()) << (last ? last->DebugString() : "nothing");
    EXPECT_EQ(last->error().code(), pb::ERROR_CODE_STORAGE_UNAVAILABLE);
  }

  fs::path dir_;
};

TEST_F(StorageFaults, LockedByAnotherProcess) {
  sqlite3* other = nullptr;
  Run({.apply =
           [&] {
             // This test process is the other process: it holds the write lock.
             if (sqlite3_open(db().c_str(), &other) != SQLITE_OK) return false;
             sqlite3_busy_timeout(other, 2000);
             return sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr) == SQLITE_OK;
           },
       .clear =
           [&] {
             sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
             sqlite3_close(other);
           }},
      /*new_logins_refused=*/false);  // WAL readers still read: logins go on
}

TEST_F(StorageFaults, MadeReadOnly) {
  // Root ignores file permissions; the immutable attribute stops even root's writes. Not on the
  // -shm: SQLite maps it, and a store into a mapped immutable file is a SIGBUS, not an error.
  const std::string files = db().string() + " " + db().string() + "-wal";
  Run({.apply = [&] { return std::system(("chattr +i " + files + " 2>/dev/null").c_str()) == 0; },
       .clear = [&] { (void)std::system(("chattr -i " + files).c_str()); }},
      /*new_logins_refused=*/false);
}

TEST_F(StorageFaults, DeletedThenRestoredFromABackup) {
  const fs::path backup = dir_ / "backup";
  Run({.apply =
           [&] {
             fs::create_directories(backup);
             for (const char* ext : {"", "-wal", "-shm"}) {
               const fs::path f = db().string() + ext;
               if (fs::exists(f)) fs::rename(f, backup / f.filename());
             }
             return true;
           },
       .clear =
           [&] {
             for (const auto& f : fs::directory_iterator(backup)) {
               fs::rename(f.path(), dir_ / f.path().filename());
             }
           }},
      /*new_logins_refused=*/true);  // a character not in memory cannot be loaded
}

}  // namespace
}  // namespace zs::integration
