// Storage benchmark: the periodic checkpoint of 5,000 dirty characters, and logins (loads of
// existing characters), against a real SQLite file in a temp dir and a real PostgreSQL server
// started for the run (tests/support/postgres_server.h: initdb + pg_ctl on a unix socket, fsync
// off, so its figures are the protocol's and the server's CPU, not a disk's).
//
//   build/release/bench/storage_bench [--benchmark_filter=Sqlite]   # or scripts/bench.sh --storage
//
// BM_Checkpoint/<backend>: one iteration is one StorageWorker::Save of 5,000 records (every
// position changed since the last one) and the flush that commits them in one transaction.
// Counters: storage_thread_ms, the worker's own time for the flush (copying the unsaved set and
// the transaction: the goal is <= 50 ms with SQLite), and tick_thread_save_ms, what the Save
// call costs its caller (merging 5,000 records into the unsaved set).
// BM_StoreSave/<backend>: CharacterStore::Save of the same 5,000 alone (no worker).
// BM_Logins/<backend>: loads of existing characters through the worker, 1,000 queued at once
// and answered on the worker thread; items_per_second is logins per second with persistence on.
// Wall-clock time throughout (UseRealTime): the work happens on the worker thread.
//
// Results: bench/README.md ("Storage").
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "storage/postgres_store.h"
#include "storage/sqlite_store.h"
#include "storage/storage_worker.h"
#include "support/postgres_server.h"

namespace zs::bench {
namespace {

using storage::CharacterRecord;

constexpr uint32_t kCharacters = 5000;
constexpr uint32_t kLoginsPerIteration = 1000;

enum class Backend : uint8_t { kSqlite, kPostgres };

std::vector<CharacterRecord> MakeCharacters() {
  std::vector<CharacterRecord> out;
  out.reserve(kCharacters);
  for (uint32_t i = 0; i < kCharacters; ++i) {
    CharacterRecord r{.name = "player" + std::to_string(i),
                      .account = 1000 + i,
                      .state = {},
                      .saved_at_ms = 1'700'000'000'000};
    r.state.zone = 1 + i % 3;
    r.state.hp = 100;
    r.state.num_cooldowns = 2;
    r.state.cooldowns[0] = {.skill = 1, .remaining_ms = 300};
    r.state.cooldowns[1] = {.skill = 2, .remaining_ms = 1200};
    out.push_back(std::move(r));
  }
  return out;
}

void Move(std::vector<CharacterRecord>* characters, int64_t step) {
  for (CharacterRecord& r : *characters) {
    r.state.position.x = static_cast<float>((step * 7 + r.account) % 4096);
    r.state.position.y = static_cast<float>((step * 13 + r.account * 3) % 4096);
    r.state.facing = static_cast<float>(step % 628) / 100.0f;
    r.saved_at_ms += 5000;
  }
}

// One temp dir and one PostgreSQL server for the whole run (each benchmark function is called
// several times while the library finds its iteration count).
struct Databases {
  std::filesystem::path dir;
  std::unique_ptr<zs::test::PostgresServer> postgres;
  std::string postgres_error;
  int next_file = 0;

  static Databases& Get() {
    static Databases d = [] {
      Databases out;
      std::string pattern = "/tmp/zs_storage_bench_XXXXXX";
      if (mkdtemp(pattern.data()) != nullptr) out.dir = pattern;
      return out;
    }();
    return d;
  }
  ~Databases() {
    postgres.reset();
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
  }
  Databases() = default;
  Databases(Databases&&) = default;
  Databases& operator=(Databases&&) = default;

  // A fresh store; nullptr (with the reason in *error) when PostgreSQL cannot be started.
  std::unique_ptr<storage::CharacterStore> Open(Backend backend, std::string* error) {
    if (backend == Backend::kSqlite) {
      return storage::OpenSqliteStore(dir / ("characters" + std::to_string(next_file++) + ".db"));
    }
    if (!postgres && postgres_error.empty()) {
      try {
        postgres = std::make_unique<zs::test::PostgresServer>();
      } catch (const std::exception& e) {
        postgres_error = e.what();
      }
    }
    if (!postgres) {
      *error = "PostgreSQL left out: " + postgres_error;
      return nullptr;
    }
    return storage::OpenPostgresStore(postgres->conninfo());
  }
};

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

void BM_Checkpoint(benchmark::State& state, Backend backend) {
  std::string error;
  auto store = Databases::Get().Open(backend, &error);
  if (!store) return state.SkipWithError(error.c_str());
  storage::StorageWorker worker(std::move(store), {});
  worker.Start();
  std::vector<CharacterRecord> characters = MakeCharacters();
  worker.Save(characters);  // the rows exist: a checkpoint updates them
  if (!worker.Flush(60)) return state.SkipWithError("the first save did not commit");
  double flush_seconds = 0;
  double save_seconds = 0;
  int64_t step = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Move(&characters, ++step);
    std::vector<CharacterRecord> batch = characters;
    state.ResumeTiming();
    const auto start = std::chrono::steady_clock::now();
    worker.Save(std::move(batch));
    save_seconds += Seconds(std::chrono::steady_clock::now() - start);
    if (!worker.Flush(60)) return state.SkipWithError("a checkpoint did not commit");
    flush_seconds += worker.stats().last_flush_seconds;
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["storage_thread_ms"] = flush_seconds * 1000 / n;
  state.counters["tick_thread_save_ms"] = save_seconds * 1000 / n;
  state.counters["rows"] = kCharacters;
}

void BM_StoreSave(benchmark::State& state, Backend backend) {
  std::string error;
  auto store = Databases::Get().Open(backend, &error);
  if (!store) return state.SkipWithError(error.c_str());
  std::vector<CharacterRecord> characters = MakeCharacters();
  int64_t step = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Move(&characters, ++step);
    state.ResumeTiming();
    if (store->Save(characters)) return state.SkipWithError("save failed");
  }
  state.counters["rows"] = kCharacters;
}

void BM_Logins(benchmark::State& state, Backend backend) {
  std::string error;
  auto store = Databases::Get().Open(backend, &error);
  if (!store) return state.SkipWithError(error.c_str());
  const std::vector<CharacterRecord> characters = MakeCharacters();
  if (store->Save(characters)) return state.SkipWithError("could not store the characters");
  storage::StorageWorker worker(std::move(store), {});
  worker.Start();
  std::mutex mu;
  std::condition_variable cv;
  uint32_t answered = 0;
  uint32_t found = 0;
  uint32_t next = 0;
  for (auto _ : state) {
    answered = 0;
    for (uint32_t i = 0; i < kLoginsPerIteration; ++i) {
      next = (next + 7919) % kCharacters;  // a stride: no two neighbours in a row
      worker.Load(characters[next].name, [&](const storage::LoadResult& r) {
        const std::lock_guard lock(mu);
        found += r.outcome == storage::LoadOutcome::kFound;
        ++answered;
        cv.notify_one();
      });
    }
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return answered == kLoginsPerIteration; });
  }
  if (found != kLoginsPerIteration * state.iterations()) state.SkipWithError("a login failed");
  state.SetItemsProcessed(state.iterations() * kLoginsPerIteration);
}

BENCHMARK_CAPTURE(BM_Checkpoint, Sqlite, Backend::kSqlite)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Checkpoint, Postgres, Backend::kPostgres)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_StoreSave, Sqlite, Backend::kSqlite)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_StoreSave, Postgres, Backend::kPostgres)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Logins, Sqlite, Backend::kSqlite)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Logins, Postgres, Backend::kPostgres)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace zs::bench

BENCHMARK_MAIN();
