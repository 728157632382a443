// SQLite backend: start-up (first run, bad files) and the faults of a real file mid-run, each
// through the StorageWorker: errors counted, nothing lost, everything saved once the fault
// clears (checked by reopening the file).
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <fstream>
#include <future>
#include <vector>

#include "storage/backends.h"
#include "storage/storage_worker.h"
#include "support/must_run.h"

namespace zs::storage::test {
namespace {

namespace fs = std::filesystem;

std::string StartupMessage(const fs::path& file) {
  try {
    OpenSqliteStore(file);
  } catch (const StartupError& e) {
    return e.what();
  }
  return "(opened without an error)";
}

TEST(SqliteStartup, FirstRunCreatesTheDirectoryAndTheFileInWalMode) {
  TempDir dir;
  const fs::path file = dir.path() / "deep" / "er" / "characters.db";
  auto store = OpenSqliteStore(file);
  EXPECT_TRUE(fs::exists(file));
  EXPECT_EQ(store->Describe(), "sqlite " + file.string());
  const std::vector<CharacterRecord> rows = {MakeRecord("A", 1)};
  ASSERT_FALSE(store->Save(rows));
  EXPECT_TRUE(fs::exists(file.string() + "-wal"));
  SqliteConnection own(file);
  EXPECT_EQ(own.Scalar("PRAGMA journal_mode"), "wal");
}

TEST(SqliteStartup, MissingFileBesideItsWalIsAStartupError) {
  TempDir dir;
  const fs::path file = dir.path() / "characters.db";
  std::ofstream(file.string() + "-wal") << "frames of a file that is gone";
  const std::string message = StartupMessage(file);
  EXPECT_NE(message.find(file.string() + " is missing but its " + file.string() + "-wal"),
            std::string::npos)
      << message;
  EXPECT_FALSE(fs::exists(file));
}

TEST(SqliteStartup, RelativePathIsMadeAbsolute) {
  TempDir dir;
  const fs::path old = fs::current_path();
  fs::current_path(dir.path());
  auto store = OpenSqliteStore("data/characters.db");
  fs::current_path(old);
  EXPECT_EQ(store->Describe(), "sqlite " + (dir.path() / "data/characters.db").string());
}

TEST(SqliteStartup, UncreatableDirectoryIsAStartupErrorNamingIt) {
  TempDir dir;
  std::ofstream(dir.path() / "blocker") << "a file where a directory should be";
  const std::string message = StartupMessage(dir.path() / "blocker" / "sub" / "characters.db");
  EXPECT_NE(message.find("cannot create directory " + (dir.path() / "blocker/sub").string()),
            std::string::npos)
      << message;
}

TEST(SqliteStartup, NonDatabaseFileIsAStartupErrorNamingTheFile) {
  TempDir dir;
  const fs::path file = dir.path() / "characters.db";
  {
    std::ofstream out(file);
    for (int i = 0; i < 400; ++i) out << "this is not a database, it is a text file\n";
  }
  const std::string message = StartupMessage(file);
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;
  EXPECT_NE(message.find("not a database"), std::string::npos) << message;
}

TEST(SqliteStartup, CorruptFileIsAStartupErrorNamingTheFile) {
  TempDir dir;
  const fs::path file = dir.path() / "characters.db";
  {
    auto store = OpenSqliteStore(file);
    std::vector<CharacterRecord> rows;
    for (uint32_t i = 0; i < 2000; ++i) rows.push_back(MakeRecord("c" + std::to_string(i), i));
    ASSERT_FALSE(store->Save(rows));
  }  // closing checkpoints the WAL into the file
  ASSERT_GT(fs::file_size(file), 16u * 4096u);
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(2 * 4096);  // pages 3..10: table and index pages
    const std::string garbage(8 * 4096, '\x5a');
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  const std::string message = StartupMessage(file);
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;
  EXPECT_TRUE(message.find("corrupt") != std::string::npos ||
              message.find("malformed") != std::string::npos)
      << message;
}

class SqliteFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    worker_ = std::make_unique<StorageWorker>(OpenSqliteStore(file()), kRetry);
    worker_->Start();
  }
  fs::path file() const { return dir_.path() / "characters.db"; }
  uint64_t Errors(Fault f) const { return worker_->stats().errors_by_fault[size_t(f)]; }
  bool WaitForErrors(Fault f, uint64_t n) {
    return WaitFor([&] { return Errors(f) >= n; }, 10);
  }
  LoadOutcome LoadOutcomeOf(const std::string& name) {
    std::promise<LoadOutcome> promise;
    auto future = promise.get_future();
    EXPECT_TRUE(worker_->Load(name, [&](const LoadResult& r) { promise.set_value(r.outcome); }));
    return future.get();
  }
  // Stops the worker and reads every row back through a new store on the file.
  void ExpectInFile(const std::vector<CharacterRecord>& rows) {
    worker_.reset();
    auto store = OpenSqliteStore(file());
    for (const CharacterRecord& r : rows) {
      std::optional<CharacterRecord> out;
      ASSERT_FALSE(store->Load(r.name, &out));
      EXPECT_EQ(out, r) << r.name;
    }
  }

  TempDir dir_;  // outlives the worker
  std::unique_ptr<StorageWorker> worker_;
};

TEST_F(SqliteFaultTest, LockedByAnotherConnection) {
  auto own = std::make_unique<SqliteConnection>(file());
  own->Exec("BEGIN EXCLUSIVE");
  worker_->Save({MakeRecord("A", 1)});
  ASSERT_TRUE(WaitForErrors(Fault::kBusy, 2));
  EXPECT_FALSE(worker_->Flush(0.01));
  EXPECT_EQ(worker_->stats().unsaved, 1u);
  own->Exec("COMMIT");
  ASSERT_TRUE(worker_->Flush(10));
  ExpectInFile({MakeRecord("A", 1)});
}

// Deleted mid-run: errors (kMissing), no new empty file, logins unavailable; restored from a
// copy (another inode): the store opens it and the unsaved records land.
TEST_F(SqliteFaultTest, DeletedMidRunThenRestoredFromACopy) {
  worker_->Save({MakeRecord("A", 1)});
  ASSERT_TRUE(worker_->Flush(10));
  const fs::path copy = dir_.path() / "copy.db";  // a whole backup: checkpointed, then copied
  SqliteConnection(file()).Exec("PRAGMA wal_checkpoint(TRUNCATE)");
  fs::copy_file(file(), copy);
  fs::remove(file());
  worker_->Save({MakeRecord("B", 2)});
  ASSERT_TRUE(WaitForErrors(Fault::kMissing, 2));
  EXPECT_FALSE(fs::exists(file()));  // not silently created again
  EXPECT_EQ(LoadOutcomeOf("Newcomer"), LoadOutcome::kUnavailable);
  EXPECT_EQ(worker_->stats().unsaved, 1u);
  fs::copy_file(copy, file());
  ASSERT_TRUE(worker_->Flush(10));
  EXPECT_EQ(LoadOutcomeOf("A"), LoadOutcome::kFound);
  ExpectInFile({MakeRecord("A", 1), MakeRecord("B", 2)});
}

// Something that is not a database put where the file was: errors (kCorrupt), nothing lost;
// the real file put back: the records land.
TEST_F(SqliteFaultTest, ReplacedByANonDatabaseThenByTheRealFile) {
  worker_->Save({MakeRecord("A", 1)});
  ASSERT_TRUE(worker_->Flush(10));
  const fs::path away = dir_.path() / "away.db";
  fs::rename(file(), away);
  std::ofstream(file()) << std::string(8192, 'x');
  worker_->Save({MakeRecord("B", 2)});
  ASSERT_TRUE(WaitForErrors(Fault::kCorrupt, 2));
  EXPECT_EQ(worker_->stats().unsaved, 1u);
  fs::rename(away, file());  // replaces the impostor
  ASSERT_TRUE(worker_->Flush(10));
  ExpectInFile({MakeRecord("A", 1), MakeRecord("B", 2)});
}

TEST_F(SqliteFaultTest, MovedAwayMidRunThenBack) {
  worker_->Save({MakeRecord("A", 1)});
  ASSERT_TRUE(worker_->Flush(10));
  const fs::path away = dir_.path() / "away.db";
  fs::rename(file(), away);
  worker_->Save({MakeRecord("B", 2)});
  ASSERT_TRUE(WaitForErrors(Fault::kMissing, 1));
  fs::rename(away, file());  // the same inode comes back
  ASSERT_TRUE(worker_->Flush(10));
  ExpectInFile({MakeRecord("A", 1), MakeRecord("B", 2)});
}

// chattr +i: even root cannot write an immutable file.
class Immutable {
 public:
  explicit Immutable(std::vector<fs::path> files) : files_(std::move(files)) {}
  ~Immutable() { Set(false); }
  Immutable(const Immutable&) = delete;
  Immutable& operator=(const Immutable&) = delete;
  bool Set(bool on) {
    bool ok = true;
    for (const fs::path& f : files_) {
      const std::string command =
          std::string("chattr ") + (on ? "+i " : "-i ") + f.string() + " 2>/dev/null";
      ok = std::system(command.c_str()) == 0 && ok;
    }
    return ok;
  }

 private:
  std::vector<fs::path> files_;
};

TEST_F(SqliteFaultTest, ReadOnlyMidRun) {
  worker_->Save({MakeRecord("A", 1)});
  ASSERT_TRUE(worker_->Flush(10));
  const std::string base = file().string();
  // Not the -shm: SQLite maps it, and a store to a mapped immutable file is a SIGBUS. Writes go
  // to the -wal (and the file, at a checkpoint).
  Immutable immutable({base, base + "-wal"});
  if (!immutable.Set(true)) ZS_SKIP_OR_FAIL_IN_CI("chattr +i is not permitted here");
  if (std::ofstream(base + "-wal", std::ios::app).write("x", 1).flush()) {
    ZS_SKIP_OR_FAIL_IN_CI("chattr +i does not stop writes here");
  }
  worker_->Save({MakeRecord("B", 2)});
  ASSERT_TRUE(WaitForErrors(Fault::kReadOnly, 2)) << "errors: " << worker_->stats().errors_total;
  EXPECT_EQ(worker_->stats().unsaved, 1u);
  ASSERT_TRUE(immutable.Set(false));
  ASSERT_TRUE(worker_->Flush(10));
  ExpectInFile({MakeRecord("A", 1), MakeRecord("B", 2)});
}

// Disk full, cheaply: a file size limit (RLIMIT_FSIZE, SIGXFSZ ignored so writes fail with
// EFBIG) in a forked child, which runs a worker, sees the errors, lifts the limit and flushes.
// Exit codes say which step failed.
int DiskFullChild(const fs::path& file, const std::vector<CharacterRecord>& rows) {
  std::signal(SIGXFSZ, SIG_IGN);
  rlimit original{};
  if (getrlimit(RLIMIT_FSIZE, &original) != 0) return 10;
  rlimit small = original;
  small.rlim_cur = 64 * 1024;  // the WAL cannot take the batch
  if (setrlimit(RLIMIT_FSIZE, &small) != 0) return 11;
  StorageWorker worker(OpenSqliteStore(file), kRetry);
  worker.Start();
  worker.Save(rows);
  const auto full = [&] { return worker.stats().errors_by_fault[size_t(Fault::kFull)]; };
  if (!WaitFor([&] { return full() >= 2; }, 10)) return 12;
  if (worker.stats().unsaved != rows.size()) return 13;
  if (setrlimit(RLIMIT_FSIZE, &original) != 0) return 14;
  if (!worker.Flush(10)) return 15;
  return 0;
}

TEST(SqliteDiskFull, FileSizeLimitMidRunThenLifted) {
  TempDir dir;
  const fs::path file = dir.path() / "characters.db";
  const std::vector<CharacterRecord> first = {MakeRecord("A", 1)};
  ASSERT_FALSE(OpenSqliteStore(file)->Save(first));
  std::vector<CharacterRecord> rows;
  for (uint32_t i = 0; i < 2000; ++i) rows.push_back(MakeRecord("b" + std::to_string(i), i));
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) _exit(DiskFullChild(file, rows));
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "child died: status " << status;
  ASSERT_EQ(WEXITSTATUS(status), 0) << "DiskFullChild failed at step " << WEXITSTATUS(status);
  auto store = OpenSqliteStore(file);
  for (const CharacterRecord& r : {first[0], rows[0], rows[1999]}) {
    std::optional<CharacterRecord> out;
    ASSERT_FALSE(store->Load(r.name, &out));
    EXPECT_EQ(out, r);
  }
}

}  // namespace
}  // namespace zs::storage::test
