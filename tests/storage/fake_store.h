// A test-only CharacterStore in memory that fails or stalls on demand, for the StorageWorker's
// logic tests ONLY. (The faults of real databases are tested against real files and a real
// server: sqlite_store_test.cc, postgres_store_test.cc.)
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "core/rng.h"
#include "storage/character_store.h"

namespace zs::storage::test {

using Clock = std::chrono::steady_clock;

// What the fake store holds and how it misbehaves; shared with the test (the worker owns the
// store itself).
struct FakeState {
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, CharacterRecord> rows;
  std::optional<Fault> fail_saves;
  std::optional<Fault> fail_loads;
  bool hold_saves = false;   // Save waits until cleared
  uint32_t fail_one_in = 0;  // > 0: a save fails with probability 1 / fail_one_in
  Rng rng{42};
  bool in_save = false;
  std::vector<size_t> batch_sizes;  // one per Save call
  std::vector<Clock::time_point> save_times;
};

class FakeStore final : public CharacterStore {
 public:
  explicit FakeStore(std::shared_ptr<FakeState> state) : s_(std::move(state)) {}
  std::optional<StoreError> Load(const std::string& name,
                                 std::optional<CharacterRecord>* out) override {
    const std::lock_guard lock(s_->mu);
    if (s_->fail_loads) return StoreError{.fault = *s_->fail_loads, .message = "fake load"};
    const auto it = s_->rows.find(name);
    *out = it == s_->rows.end() ? std::nullopt : std::optional(it->second);
    return std::nullopt;
  }
  std::optional<StoreError> Save(std::span<const CharacterRecord> records) override {
    std::unique_lock lock(s_->mu);
    s_->batch_sizes.push_back(records.size());
    s_->save_times.push_back(Clock::now());
    s_->in_save = true;
    s_->cv.notify_all();
    s_->cv.wait(lock, [&] { return !s_->hold_saves; });
    s_->in_save = false;
    if (s_->fail_saves) return StoreError{.fault = *s_->fail_saves, .message = "fake save"};
    if (s_->fail_one_in > 0 && s_->rng.Below(s_->fail_one_in) == 0) {
      return StoreError{.fault = Fault::kBusy, .message = "fake save, unlucky"};
    }
    for (const CharacterRecord& r : records) s_->rows[r.name] = r;
    return std::nullopt;
  }
  std::string Describe() const override { return "fake store"; }

 private:
  std::shared_ptr<FakeState> s_;
};

}  // namespace zs::storage::test
