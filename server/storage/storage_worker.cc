// The storage worker's thread: loads first, then one transaction for everything unsaved.
#include "storage/storage_worker.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

namespace zs::storage {

namespace {

// Loads served between two flushes: logins are answered first, but a stream of them cannot
// hold the checkpoint back forever.
constexpr size_t kLoadsPerTurn = 64;
// While failing, the log repeats itself at most this often.
constexpr std::chrono::seconds kFailureLogInterval{10};

double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

StorageWorker::StorageWorker(std::unique_ptr<CharacterStore> store, WorkerOptions options)
    : store_(std::move(store)), options_(options), describe_(store_->Describe()) {}

StorageWorker::~StorageWorker() { Stop(); }

void StorageWorker::Start() {
  const std::lock_guard lock(mu_);
  if (thread_.joinable()) return;
  stop_ = false;
  exited_ = false;
  thread_ = std::thread([this] {
    Run();
    const std::lock_guard done(mu_);
    exited_ = true;
    exited_cv_.notify_all();
  });
}

bool StorageWorker::StopWithin(double timeout_seconds) {
  {
    std::unique_lock lock(mu_);
    stop_ = true;
    wake_.notify_all();
    if (thread_.joinable() &&
        !exited_cv_.wait_for(lock, std::chrono::duration<double>(timeout_seconds),
                             [&] { return exited_; })) {
      return false;
    }
  }
  Stop();
  return true;
}

void StorageWorker::Stop() {
  {
    const std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::deque<PendingLoad> refused;
  {
    const std::lock_guard lock(mu_);
    refused.swap(loads_);
  }
  for (PendingLoad& load : refused)
    load.done(LoadResult{.outcome = LoadOutcome::kUnavailable, .record = {}});
}

bool StorageWorker::Load(std::string name, std::function<void(LoadResult)> done) {
  {
    const std::lock_guard lock(mu_);
    if (loads_.size() >= options_.max_pending_loads || unsaved_.size() >= options_.max_unsaved) {
      ++stats_.loads_refused_total;
      return false;
    }
    loads_.push_back(PendingLoad{.name = std::move(name), .done = std::move(done)});
  }
  wake_.notify_one();
  return true;
}

void StorageWorker::Save(std::vector<CharacterRecord> records) {
  if (records.empty()) return;
  {
    const std::lock_guard lock(mu_);
    for (CharacterRecord& record : records) {
      Unsaved& slot = unsaved_[record.name];
      slot.record = std::move(record);
      slot.generation = ++last_generation_;
    }
  }
  wake_.notify_one();
}

bool StorageWorker::Flush(double timeout_seconds) {
  std::unique_lock lock(mu_);
  const uint64_t target = last_generation_;
  retry_at_ = Clock::time_point{};
  wake_.notify_one();
  return committed_.wait_for(lock, std::chrono::duration<double>(timeout_seconds),
                             [&] { return committed_generation_ >= target; });
}

StorageWorker::Stats StorageWorker::stats() const {
  const std::lock_guard lock(mu_);
  Stats s = stats_;
  s.unsaved = unsaved_.size();
  s.pending_loads = loads_.size();
  s.flushing = flushing();
  s.failing = failed_attempts_ > 0;
  return s;
}

void StorageWorker::Run() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    for (size_t n = 0; n < kLoadsPerTurn && !loads_.empty() && !stop_; ++n) {
      PendingLoad load = std::move(loads_.front());
      loads_.pop_front();
      ServeLoad(lock, std::move(load));
    }
    if (stop_) break;
    const bool flush_due = !unsaved_.empty() && Clock::now() >= retry_at_;
    if (flush_due) {
      FlushOnce(lock);
    } else if (loads_.empty()) {
      if (unsaved_.empty()) {
        wake_.wait(lock);
      } else {
        wake_.wait_until(lock, retry_at_);
      }
    }
  }
}

void StorageWorker::ServeLoad(std::unique_lock<std::mutex>& lock, PendingLoad load) {
  LoadResult result;
  if (const auto it = unsaved_.find(load.name); it != unsaved_.end()) {
    result = LoadResult{.outcome = LoadOutcome::kFound, .record = it->second.record};
    ++stats_.loads_total;
    lock.unlock();
    load.done(std::move(result));
    lock.lock();
    return;
  }
  lock.unlock();
  std::optional<CharacterRecord> record;
  const std::optional<StoreError> error = store_->Load(load.name, &record);
  if (!error) {
    result.outcome = record ? LoadOutcome::kFound : LoadOutcome::kNotFound;
    if (record) result.record = std::move(*record);
  }
  lock.lock();
  if (error) {
    ++stats_.load_failures_total;
    CountError(error->fault);
    if (Clock::now() - last_load_failure_log_ >= kFailureLogInterval) {
      last_load_failure_log_ = Clock::now();
      spdlog::error(
          "storage: loading character '{}' from {} failed ({}): {}; the login gets "
          "\"storage unavailable\"",
          load.name, describe_, FaultName(error->fault), error->message);
    }
  } else {
    ++stats_.loads_total;
  }
  lock.unlock();
  load.done(std::move(result));
  lock.lock();
}

void StorageWorker::FlushOnce(std::unique_lock<std::mutex>& lock) {
  const Clock::time_point start = Clock::now();
  std::vector<CharacterRecord> batch;
  std::vector<uint64_t> generations;
  batch.reserve(unsaved_.size());
  generations.reserve(unsaved_.size());
  for (const auto& [name, slot] : unsaved_) {
    batch.push_back(slot.record);
    generations.push_back(slot.generation);
  }
  const uint64_t through = last_generation_;
  flush_phase_.fetch_add(1, std::memory_order_relaxed);  // odd: writing
  lock.unlock();
  const std::optional<StoreError> error = store_->Save(batch);
  lock.lock();
  flush_phase_.fetch_add(1, std::memory_order_relaxed);
  if (error) {
    OnFlushFailed(*error, batch.size());
    return;
  }
  for (size_t i = 0; i < batch.size(); ++i) {
    const auto it = unsaved_.find(batch[i].name);
    if (it != unsaved_.end() && it->second.generation == generations[i]) unsaved_.erase(it);
  }
  committed_generation_ = through;
  OnFlushCommitted(batch.size(), SecondsSince(start));
  committed_.notify_all();
}

void StorageWorker::CountError(Fault fault) {
  ++stats_.errors_total;
  ++stats_.errors_by_fault[static_cast<size_t>(fault)];
}

void StorageWorker::OnFlushFailed(const StoreError& error, size_t rows) {
  CountError(error.fault);
  retry_delay_ = retry_delay_ == 0 ? options_.retry_min_seconds
                                   : std::min(retry_delay_ * 2, options_.retry_max_seconds);
  const Clock::time_point now = Clock::now();
  retry_at_ = now + std::chrono::duration_cast<Clock::duration>(
                        std::chrono::duration<double>(retry_delay_));
  if (failed_attempts_++ == 0) {
    failing_since_ = now;
    last_failure_log_ = now;
    spdlog::error(
        "storage: saving {} characters to {} failed ({}): {}; keeping {} characters "
        "in memory, retrying in {:.2f} s",
        rows, describe_, FaultName(error.fault), error.message, unsaved_.size(), retry_delay_);
  } else if (now - last_failure_log_ >= kFailureLogInterval) {
    last_failure_log_ = now;
    spdlog::error(
        "storage: still failing to save to {} ({} attempts in {:.0f} s; last: {}: {}); "
        "keeping {} characters in memory, retrying in {:.2f} s",
        describe_, failed_attempts_, SecondsSince(failing_since_), FaultName(error.fault),
        error.message, unsaved_.size(), retry_delay_);
  }
}

void StorageWorker::OnFlushCommitted(size_t rows, double seconds) {
  ++stats_.flushes_total;
  stats_.rows_saved_total += rows;
  stats_.last_flush_seconds = seconds;
  stats_.last_flush_rows = rows;
  if (failed_attempts_ > 0) {
    spdlog::info(
        "storage: saving to {} recovered after {} failed attempts in {:.1f} s: {} "
        "characters saved, {} still unsaved",
        describe_, failed_attempts_, SecondsSince(failing_since_), rows, unsaved_.size());
  }
  failed_attempts_ = 0;
  retry_delay_ = 0;
  retry_at_ = Clock::time_point{};
}

}  // namespace zs::storage
