// PostgreSQL backend beyond the shared contract (store_test.cc): a server that goes away
// mid-run and comes back, a server that is not there at start-up, what Describe shows.
#include <gtest/gtest.h>

#include <future>
#include <vector>

#include "storage/backends.h"
#include "storage/storage_worker.h"

namespace zs::storage::test {
namespace {

TEST(PostgresStore, ServerStoppedMidRunThenStartedAgain) {
  PostgresBackend pg;
  StorageWorker worker(pg.Open(), kRetry);
  worker.Start();
  worker.Save({MakeRecord("A", 1)});
  ASSERT_TRUE(worker.Flush(10));
  pg.server().Stop();
  worker.Save({MakeRecord("B", 2), MakeRecord("A", 3)});
  const auto connection_errors = [&] {
    return worker.stats().errors_by_fault[static_cast<size_t>(Fault::kConnection)];
  };
  ASSERT_TRUE(WaitFor([&] { return connection_errors() >= 2; }, 10));
  EXPECT_EQ(worker.stats().unsaved, 2u);
  EXPECT_FALSE(worker.Flush(0.01));
  pg.server().Start();
  ASSERT_TRUE(worker.Flush(10));
  std::promise<LoadOutcome> loaded;  // the worker's store is usable again for loads too
  ASSERT_TRUE(worker.Load("Nobody", [&](const LoadResult& r) { loaded.set_value(r.outcome); }));
  EXPECT_EQ(loaded.get_future().get(), LoadOutcome::kNotFound);
  worker.Stop();
  auto store = pg.Open();
  for (const CharacterRecord& r : {MakeRecord("A", 3), MakeRecord("B", 2)}) {
    std::optional<CharacterRecord> out;
    ASSERT_FALSE(store->Load(r.name, &out));
    EXPECT_EQ(out, r);
  }
}

TEST(PostgresStore, LoadWhileTheServerIsDownIsAnError) {
  PostgresBackend pg;
  auto store = pg.Open();
  pg.server().Stop();
  std::optional<CharacterRecord> out;
  std::optional<StoreError> error = store->Load("A", &out);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->fault, Fault::kConnection) << error->message;
  error = store->Load("A", &out);  // the reset fails: still a connection error
  ASSERT_TRUE(error);
  EXPECT_EQ(error->fault, Fault::kConnection) << error->message;
  EXPECT_NE(error->message.find(pg.where()), std::string::npos) << error->message;
  pg.server().Start();
  error = store->Load("A", &out);
  EXPECT_FALSE(error) << error->message;
}

TEST(PostgresStore, UnreachableServerIsAStartupErrorNamingIt) {
  TempDir dir;  // no server listens here
  const std::string conninfo = "host=" + dir.path().string() + " dbname=zone user=zone";
  try {
    OpenPostgresStore(conninfo);
    FAIL() << "connected to nothing";
  } catch (const StartupError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("host=" + dir.path().string()), std::string::npos) << what;
    EXPECT_NE(what.find("dbname=zone"), std::string::npos) << what;
  }
}

TEST(PostgresStore, DescribeNeverShowsThePassword) {
  const std::string d = DescribePostgres(
      "host=db.example port=5433 dbname=zone user=zs "
      "password=hunter2");
  EXPECT_EQ(d, "postgres host=db.example port=5433 dbname=zone user=zs");
  EXPECT_EQ(DescribePostgres("postgresql://zs:hunter2@db.example/zone"),
            "postgres host=db.example dbname=zone user=zs");
}

}  // namespace
}  // namespace zs::storage::test
