#include "host/zone_runner.h"

#include <spdlog/spdlog.h>

#include <pthread.h>

#include <chrono>

#include "host/clock.h"

namespace zs::host {

namespace {

const char* RejectName(zone::Reject r) {
  switch (r) {
    case zone::Reject::kUnknownEntity:
      return "unknown_entity";
    case zone::Reject::kDead:
      return "dead";
    case zone::Reject::kBadValue:
      return "bad_value";
    case zone::Reject::kUnknownSkill:
      return "unknown_skill";
    case zone::Reject::kCooldown:
      return "cooldown";
    case zone::Reject::kCount:
      break;
  }
  return "unknown";
}

// Takes the entry of `session` out of `parked` (guarded by `mu`): what came with a request.
template <typename T>
std::optional<T> Unpark(std::mutex& mu, std::unordered_map<uint64_t, T>& parked, uint64_t session) {
  std::lock_guard lock(mu);
  const auto it = parked.find(session);
  if (it == parked.end()) return std::nullopt;
  std::optional<T> out = std::move(it->second);
  parked.erase(it);
  return out;
}

}  // namespace

ZoneRunner::ZoneRunner(zone::WorldConfig config, Metrics* metrics, size_t sim_threads,
                       ChurnLog* churn, Persistence persistence, std::span<const uint32_t> hosted,
                       Siblings siblings)
    : local_(siblings.local),
      runner_index_(siblings.index),
      world_(std::move(config), hosted, siblings.ids),
      metrics_(metrics),
      churn_(churn),
      pool_(sim_threads),
      governor_(world_.config().overload),
      tick_rate_(world_.config().tick_rate),
      zone_count_(world_.zone_count()),
      fanout_(zone_count_),
      storage_(persistence.storage),
      keeper_(&world_, &players_, metrics, churn, persistence.storage,
              {.checkpoint_ticks = static_cast<uint32_t>(
                   std::max(1.0, persistence.checkpoint_seconds * tick_rate_)),
               .tick_rate = tick_rate_,
               .token_mode = persistence.token_mode,
               .handoff = persistence.handoff,
               .tickets = persistence.tickets,
               .local = siblings.local,
               .runner = siblings.index,
               .answered =
                   [this](CharacterKeeper::HandoffKey key, HandoffAnswer answer) {
                     {
                       std::lock_guard lock(mu_);
                       answers_.emplace_back(key, std::move(answer));
                     }
                     answered_.notify_one();  // applied now, not at the next tick
                   }},
              [this](uint64_t session, storage::LoadResult r) { Loaded(session, std::move(r)); }) {
  players_.SetRoster(siblings.local, siblings.index);
  for (size_t z = 0; z < zone_count_; ++z) {
    for (const zone::Entity& e : world_.zone(z).entities()) {
      monsters_ += e.kind == zone::EntityKind::kMonster ? 1 : 0;
    }
  }
}

ZoneRunner::~ZoneRunner() { Stop(); }

void ZoneRunner::Start() {
  running_ = true;
  // "zone <name>" (cut to the kernel's 15 bytes): each zone's thread shows in top -H and ps.
  const std::string name = ("zone " + world_.zone(0).config().name).substr(0, 15);
  thread_ = std::thread([this, name] {
    pthread_setname_np(pthread_self(), name.c_str());
    Run();
  });
}

void ZoneRunner::Stop() {
  {
    std::lock_guard lock(mu_);  // a waiting runner sees it at once
    running_ = false;
  }
  answered_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void ZoneRunner::Push(Request r) {
  std::lock_guard lock(mu_);
  // A tick thread that falls behind must not let inputs pile up without bound: beyond the cap
  // inputs are dropped (counted); joins, leaves and resyncs always go through.
  const bool input = r.kind == Request::kMove || r.kind == Request::kSkill ||
                     r.kind == Request::kChat || r.kind == Request::kRefused;
  if (input && pending_.size() >= kMaxPendingRequests) {
    metrics_->RejectInput("server_busy");
    return;
  }
  pending_.push_back(std::move(r));
}

void ZoneRunner::SaveEveryone() {
  Drain();  // logouts queued while the loop stopped
  keeper_.SaveEveryone();
}

void ZoneRunner::Join(uint64_t session, std::weak_ptr<SessionSink> sink, LoginIdentity who) {
  Push({.kind = Request::kJoin,
        .session = session,
        .sink = std::move(sink),
        .name = std::move(who.name),
        .account = who.account});
}

void ZoneRunner::Arrive(uint64_t session, std::weak_ptr<SessionSink> sink,
                        storage::CharacterRecord character) {
  {
    std::lock_guard lock(mu_);
    arriving_[session] = std::move(character);
  }
  Push({.kind = Request::kArrive, .session = session, .sink = std::move(sink)});
}

void ZoneRunner::Adopt(LocalArrival arrival) {
  const uint64_t session = arrival.session;
  {
    std::lock_guard lock(mu_);
    adopting_[session] = std::move(arrival);
  }
  Push({.kind = Request::kAdopt, .session = session});
}

void ZoneRunner::Relay(RelayedChat chat) {
  std::lock_guard lock(mu_);
  if (relayed_in_.size() >= kMaxPendingRequests / 100) {  // a flood from one runner to another
    metrics_->RejectInput("server_busy");
    return;
  }
  relayed_in_.push_back(std::move(chat));
}

void ZoneRunner::Loaded(uint64_t session, storage::LoadResult result) {
  std::lock_guard lock(mu_);
  loaded_.emplace_back(session, std::move(result));
}
void ZoneRunner::Leave(uint64_t session) { Push({.kind = Request::kLeave, .session = session}); }
void ZoneRunner::Move(uint64_t session, const zone::MoveInput& in) {
  Push({.kind = Request::kMove, .session = session, .move = in});
}
void ZoneRunner::Skill(uint64_t session, const zone::SkillInput& in) {
  Push({.kind = Request::kSkill, .session = session, .skill = in});
}
void ZoneRunner::Resync(uint64_t session) { Push({.kind = Request::kResync, .session = session}); }
void ZoneRunner::Chat(uint64_t session, const zone::ChatInput& in, std::string text, bool text_ok,
                      std::string to) {
  Request r{.kind = Request::kChat, .session = session, .name = std::move(to), .chat = in};
  if (text_ok) r.text = std::move(text);  // a refused text (up to a frame's size) is not kept
  if (!text_ok)
    r.result = {.kind = zone::InputKind::kChat, .seq = in.seq, .outcome = zone::Outcome::kBadText};
  Push(std::move(r));
}
void ZoneRunner::Refused(uint64_t session, zone::InputKind kind, uint32_t seq,
                         zone::Outcome outcome) {
  Push({.kind = Request::kRefused,
        .session = session,
        .result = {.kind = kind, .seq = seq, .outcome = outcome}});
}

void ZoneRunner::Run() {
  using Clock = std::chrono::steady_clock;
  const auto interval = std::chrono::nanoseconds(1'000'000'000 / tick_rate_);
  auto next = Clock::now();
  while (running_) {
    next += interval;
    const uint64_t flush_phase = storage_ != nullptr ? storage_->flush_phase() : 0;
    const uint64_t checkpoints = keeper_.checkpoints();
    const auto start = Clock::now();
    Step();
    const auto end = Clock::now();
    const double work = std::chrono::duration<double>(end - start).count();
    last_tick_seconds_ = work;
    // "During a checkpoint": the tick that took a checkpoint's snapshot and handed it over, and
    // every tick during which the storage thread wrote at any moment.
    const bool during_flush =
        storage_ != nullptr && (keeper_.checkpoints() != checkpoints || flush_phase % 2 == 1 ||
                                storage_->flush_phase() != flush_phase);
    metrics_->ObserveTick(work, during_flush);
    ObserveLoad(work / std::chrono::duration<double>(interval).count());
    for (size_t z = 0; z < zone_count_; ++z) {
      metrics_->ObserveZone(world_.zone(z).config().name,
                            {.entities = world_.output(z).states.size(),
                             .tick_seconds = work,
                             .interest_level = governor_.level(),
                             .interest_scale = governor_.scale()});
    }
    if (end > next) {
      metrics_->tick_overruns.fetch_add(1, std::memory_order_relaxed);
      spdlog::warn("tick {} overran its {} ms budget by {:.1f} ms", tick(), 1000 / tick_rate_,
                   std::chrono::duration<double, std::milli>(end - next).count());
      if (end - next > 5 * interval) next = end;  // far behind: start over, do not spiral
    } else {
      WaitForNextTick(next);
    }
  }
}

// Sleeps until `next`, applying hand-off answers as they come: a player whose hand-off was
// accepted is sent on its way at once, not up to a tick later (the world is only touched here,
// on this thread, between ticks, as Drain does).
void ZoneRunner::WaitForNextTick(std::chrono::steady_clock::time_point next) {
  std::unique_lock lock(mu_);
  while (answered_.wait_until(lock, next, [this] { return !answers_.empty() || !running_; })) {
    if (!running_) return;
    answering_.swap(answers_);
    lock.unlock();
    for (auto& [key, answer] : answering_) keeper_.OnHandoffAnswer(key, answer);
    answering_.clear();
    lock.lock();
  }
}

void ZoneRunner::ObserveLoad(double share) {
  if (!governor_.Observe(share)) return;
  metrics_->interest_level.store(governor_.level(), std::memory_order_relaxed);
  metrics_->interest_scale_milli.store(static_cast<uint64_t>(governor_.scale() * 1000),
                                       std::memory_order_relaxed);
  metrics_->interest_level_changes.fetch_add(1, std::memory_order_relaxed);
  spdlog::warn(
      "overload control: interest level {} (scale {:.2f}) after a tick at {:.0f}% of "
      "its interval",
      governor_.level(), governor_.scale(), share * 100);
}

void ZoneRunner::Drain() {
  {
    std::lock_guard lock(mu_);
    draining_.swap(pending_);
    applying_.swap(loaded_);
    answering_.swap(answers_);
    relaying_.swap(relayed_in_);
  }
  moves_.clear();
  skills_.clear();
  chats_.clear();
  chat_text_.clear();
  results_.clear();
  relayed_.clear();
  for (Request& r : draining_) Admit(r, players_.BySession(r.session));
  AdmitRelayed();
  draining_.clear();
  if (draining_.capacity() > 4 * kMaxPendingRequests / 100) {
    draining_.shrink_to_fit();  // do not keep a spike's memory forever
  }
  for (auto& [session, result] : applying_) keeper_.OnLoaded(session, std::move(result));
  applying_.clear();
  for (auto& [key, answer] : answering_) keeper_.OnHandoffAnswer(key, answer);
  answering_.clear();
}

void ZoneRunner::Admit(Request& r, PlayerDirectory::Player* player) {
  if (r.kind == Request::kJoin) {
    if (player == nullptr) {
      keeper_.Login(r.session, std::move(r.sink),
                    {.account = r.account, .name = std::move(r.name)});
    }
    return;
  }
  if (r.kind == Request::kLeave) {
    keeper_.Logout(r.session);  // also cancels a login still loading
    return;
  }
  if (r.kind == Request::kArrive) {
    std::optional<storage::CharacterRecord> character = Unpark(mu_, arriving_, r.session);
    if (character && player == nullptr)
      keeper_.Arrive(r.session, std::move(r.sink), std::move(*character));
    return;
  }
  if (r.kind == Request::kAdopt) {
    if (std::optional<LocalArrival> arrival = Unpark(mu_, adopting_, r.session)) {
      keeper_.Adopt(std::move(*arrival));
    }
    return;
  }
  if (player == nullptr) return;  // not (or no longer) in the world
  switch (r.kind) {
    case Request::kLeave:
      break;
    case Request::kMove:
      r.move.entity = player->entity;
      moves_.push_back(r.move);
      break;
    case Request::kSkill:
      r.skill.entity = player->entity;
      skills_.push_back(r.skill);
      break;
    case Request::kResync:
      if (world_.ForgetKnown(player->entity).ok()) player->resync = true;
      break;
    case Request::kChat:
      AdmitChat(r, *player);
      break;
    case Request::kRefused:
      r.result.player = player->entity;
      results_.push_back(r.result);
      break;
    case Request::kJoin:
    case Request::kArrive:
    case Request::kAdopt:
      break;
  }
}

void ZoneRunner::AdmitChat(Request& r, const PlayerDirectory::Player& player) {
  if (r.result.outcome == zone::Outcome::kBadText) {
    r.result.player = player.entity;
    results_.push_back(r.result);
    return;
  }
  r.chat.entity = player.entity;
  r.chat.text = chat_text_.emplace_back(std::move(r.text));
  if (r.chat.channel == zone::ChatChannel::kWhisper) {
    const PlayerDirectory::Player* to = players_.ByName(r.name);
    r.chat.to = to != nullptr ? to->entity : kInvalidEntity;  // none: NO_SUCH_PLAYER
    if (to == nullptr && local_ != nullptr &&
        local_->RelayWhisper(runner_index_, {.from = player.entity,
                                             .from_name = player.name,
                                             .to_name = r.name,
                                             .text = std::string(r.chat.text)})) {
      r.chat.relayed_to = chat_text_.emplace_back(std::move(r.name));  // online in another zone
    }
  }
  chats_.push_back(r.chat);
}

// Whispers from other runners, to players of this one (by name: they may have left meanwhile).
void ZoneRunner::AdmitRelayed() {
  for (RelayedChat& c : relaying_) {
    const PlayerDirectory::Player* to = players_.ByName(c.to_name);
    if (to == nullptr) continue;
    relayed_.push_back({.from = c.from,
                        .from_name = chat_text_.emplace_back(std::move(c.from_name)),
                        .to = to->entity,
                        .text = chat_text_.emplace_back(std::move(c.text))});
  }
  relaying_.clear();
}

void ZoneRunner::Step() {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  Drain();
  world_.Tick({.moves = moves_,
               .skills = skills_,
               .chats = chats_,
               .results = results_,
               .relayed = relayed_},
              governor_.level(), &pool_);
  const auto t1 = Clock::now();
  tick_.store(world_.tick(), std::memory_order_relaxed);
  metrics_->ticks.fetch_add(1, std::memory_order_relaxed);
  for (size_t z = 0; z < zone_count_; ++z) {
    const zone::ZoneTickOutput& out = world_.output(z);
    for (size_t r = 0; r < out.rejected.size(); ++r) {
      metrics_->RejectInput(RejectName(static_cast<zone::Reject>(r)), out.rejected[r]);
    }
    fanout_.Encode(world_, z, players_, &pool_);
  }
  const auto t2 = Clock::now();
  for (size_t z = 0; z < zone_count_; ++z) fanout_.Deliver(world_, z);
  keeper_.AfterTick();
  if (world_.tick() % tick_rate_ == 0) PublishStorageStats();
  if (observer_ != nullptr)
    observer_->AfterTick(world_, fanout_, {.last_tick_seconds = last_tick_seconds_});
  const auto micros = [](auto d) {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(d).count());
  };
  metrics_->tick_world_us.fetch_add(micros(t1 - t0), std::memory_order_relaxed);
  metrics_->tick_encode_us.fetch_add(micros(t2 - t1), std::memory_order_relaxed);
  metrics_->tick_deliver_us.fetch_add(micros(Clock::now() - t2), std::memory_order_relaxed);
}

void ZoneRunner::PublishStorageStats() {
  if (storage_ == nullptr) return;
  const storage::StorageWorker::Stats st = storage_->stats();
  metrics_->PublishStorage({.errors = st.errors_total,
                            .flushes = st.flushes_total,
                            .rows_saved = st.rows_saved_total,
                            .unsaved = st.unsaved,
                            .pending_loads = st.pending_loads,
                            .last_flush_seconds = st.last_flush_seconds,
                            .last_flush_rows = st.last_flush_rows,
                            .load_failures = st.load_failures_total});
}

}  // namespace zs::host
