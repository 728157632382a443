// Randomized tests against an oracle (a std::map of what was saved): the stores, typed over
// SQLite and PostgreSQL, through random batches, loads and reopenings; and the worker, through
// random saves and loads from the caller's thread while its store fails now and then.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "core/rng.h"
#include "storage/backends.h"
#include "storage/fake_store.h"
#include "storage/storage_worker.h"

namespace zs::storage::test {
namespace {

constexpr uint32_t kNames = 60;  // a small pool: names come back often

std::string NameOf(uint32_t i) { return "p" + std::to_string(i); }

// 1..max records of distinct names from the pool, with random contents.
std::vector<CharacterRecord> RandomBatch(Rng& rng, uint32_t max) {
  std::set<uint32_t> picked;
  const uint32_t n = 1 + rng.Below(max);
  while (picked.size() < n) picked.insert(rng.Below(kNames));
  std::vector<CharacterRecord> batch;
  for (const uint32_t i : picked) {
    batch.push_back(MakeRecord(NameOf(i), static_cast<uint32_t>(rng.Next())));
  }
  return batch;
}

template <typename Backend>
class StoreOracleTest : public ::testing::Test {
 protected:
  Backend backend_;
};
using Backends = ::testing::Types<SqliteBackend, PostgresBackend>;
class BackendNames {
 public:
  template <typename T>
  static std::string GetName(int) {
    return T::kPostgres ? "Postgres" : "Sqlite";
  }
};
TYPED_TEST_SUITE(StoreOracleTest, Backends, BackendNames);

TYPED_TEST(StoreOracleTest, RandomSavesLoadsAndReopeningsMatchAMap) {
  Rng rng(7);
  std::map<std::string, CharacterRecord> oracle;
  auto store = this->backend_.Open();
  for (int step = 0; step < 400; ++step) {
    const uint32_t op = rng.Below(20);
    if (op < 10) {
      const std::vector<CharacterRecord> batch = RandomBatch(rng, 12);
      const std::optional<StoreError> error = store->Save(batch);
      ASSERT_FALSE(error) << error->message;
      for (const CharacterRecord& r : batch) oracle[r.name] = r;
    } else if (op < 19) {
      const std::string name = NameOf(rng.Below(kNames + 5));  // some never saved
      std::optional<CharacterRecord> out;
      ASSERT_FALSE(store->Load(name, &out));
      const auto it = oracle.find(name);
      ASSERT_EQ(out.has_value(), it != oracle.end()) << name << " at step " << step;
      if (out) {
        ASSERT_EQ(*out, it->second) << name << " at step " << step;
      }
    } else {
      store = this->backend_.Open();
    }
  }
  EXPECT_EQ(this->backend_.Scalar("SELECT count(*) FROM characters"),
            std::to_string(oracle.size()));
}

// Every version ever saved under each name, in order, shared by the caller's thread (which
// appends) and the worker's (which checks load answers).
class History {
 public:
  void Saved(const std::vector<CharacterRecord>& batch) {
    const std::lock_guard lock(mu_);
    for (const CharacterRecord& r : batch) versions_[r.name].push_back(r);
  }
  // How many versions `name` has now.
  size_t Count(const std::string& name) {
    const std::lock_guard lock(mu_);
    return versions_[name].size();
  }
  // A load asked when `name` had `count` versions may answer the newest of those or any later
  // one, never an older one, and "not found" only if there was none.
  bool Acceptable(const std::string& name, size_t count, const LoadResult& r) {
    const std::lock_guard lock(mu_);
    const std::vector<CharacterRecord>& v = versions_[name];
    if (r.outcome == LoadOutcome::kNotFound) return count == 0;
    if (r.outcome != LoadOutcome::kFound) return false;
    const size_t oldest = count == 0 ? 0 : count - 1;
    return std::find(v.begin() + static_cast<std::ptrdiff_t>(oldest), v.end(), r.record) != v.end();
  }
  std::map<std::string, CharacterRecord> Latest() {
    const std::lock_guard lock(mu_);
    std::map<std::string, CharacterRecord> out;
    for (const auto& [name, v] : versions_) {
      if (!v.empty()) out[name] = v.back();
    }
    return out;
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::vector<CharacterRecord>> versions_;
};

// The caller saves and loads at random while one save in three fails: every load answers what
// was last saved under that name before the load was asked, or something saved since (from
// memory or from the store), never an older version; once the store is healthy it holds
// exactly the newest version of every name.
TEST(WorkerOracle, LoadsNeverSeeAnOlderVersionWhileTheStoreFlakes) {
  auto state = std::make_shared<FakeState>();
  state->fail_one_in = 3;
  StorageWorker worker(std::make_unique<FakeStore>(state), {.max_unsaved = 50000,
                                                            .max_pending_loads = 100000,
                                                            .retry_min_seconds = 0.0005,
                                                            .retry_max_seconds = 0.002});
  worker.Start();
  Rng rng(11);
  History history;
  std::atomic<int> answered{0};
  std::atomic<int> wrong{0};
  int asked = 0;
  for (int step = 0; step < 5000; ++step) {
    if (rng.Below(2) == 0) {
      std::vector<CharacterRecord> batch = RandomBatch(rng, 8);
      history.Saved(batch);
      worker.Save(std::move(batch));
    } else {
      const std::string name = NameOf(rng.Below(kNames + 5));
      const size_t count = history.Count(name);
      ++asked;
      ASSERT_TRUE(worker.Load(name, [&, name, count](const LoadResult& r) {
        wrong += history.Acceptable(name, count, r) ? 0 : 1;
        ++answered;
      }));
    }
    if (step % 500 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_TRUE(WaitFor([&] { return answered.load() == asked; }, 20));
  EXPECT_EQ(wrong.load(), 0);
  {
    const std::lock_guard lock(state->mu);
    state->fail_one_in = 0;
  }
  ASSERT_TRUE(worker.Flush(10));
  EXPECT_GT(worker.stats().errors_total, 0u);
  worker.Stop();
  EXPECT_EQ(state->rows, history.Latest());
}

}  // namespace
}  // namespace zs::storage::test
