#include "host/zone_runner.h"

#include <spdlog/spdlog.h>

#include <pthread.h>

#include <algorithm>
#include <chrono>

#include "host/clock.h"
#include "wire/wire_cost.h"

namespace zs::host {

namespace {

// The world as this server hosts it: its interest budgets count the encoder's bytes.
zone::WorldConfig StatedForTheWire(zone::WorldConfig config) {
  config.wire_cost = wire::kWireCost;
  return config;
}

}  // namespace

ZoneRunner::ZoneRunner(zone::WorldConfig config, RunnerMetrics* metrics, size_t sim_threads,
                       ChurnLog* churn, Persistence persistence, std::span<const uint32_t> hosted,
                       Siblings siblings, std::span<const zone::HostedCell> cells)
    : local_(siblings.local),
      runner_index_(siblings.index),
      world_(StatedForTheWire(std::move(config)), hosted, siblings.ids, cells),
      metrics_(metrics),
      pool_(sim_threads),
      governor_(world_.config().overload),
      tick_rate_(world_.config().tick_rate),
      zone_count_(world_.zone_count()),
      fanout_(zone_count_),
      storage_(persistence.storage),
      keeper_(&world_, &players_, metrics->keeper(), churn, persistence.storage,
              {.checkpoint_ticks = static_cast<uint32_t>(
                   std::max(1.0, persistence.checkpoint_seconds * tick_rate_)),
               .tick_rate = tick_rate_,
               .token_mode = persistence.token_mode,
               .tickets = persistence.tickets,
               .local = siblings.local,
               .runner = siblings.index,
               .answered =
                   [this](CharacterKeeper::HandoffKey key, HandoffAnswer answer) {
                     answers_.PushAlways({key, std::move(answer)});
                     {
                       std::lock_guard lock(wake_mu_);
                       answer_waiting_ = true;
                     }
                     wake_.notify_one();  // applied now, not at the next tick
                   }},
              [this](SessionKey session, storage::LoadResult r) {
                loaded_.PushAlways({session, std::move(r)});
              }),
      relay_(world_, players_, keeper_, metrics->cells().relay),
      border_(world_, relay_, metrics->cells()) {
  players_.SetRoster(siblings.local, siblings.index);
  for (size_t z = 0; z < zone_count_; ++z) {
    for (const zone::Entity& e : world_.zone(z).store().entities()) {
      monsters_ += e.is_monster() ? 1 : 0;
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
    std::lock_guard lock(wake_mu_);  // a waiting runner sees it at once
    running_ = false;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void ZoneRunner::SaveEveryone() {
  loop_.Check("ZoneRunner::SaveEveryone");  // REQUIRES: after Stop (nobody owns the loop)
  Drain();                                  // logouts queued while the loop stopped
  keeper_.SaveEveryone();
}

void ZoneRunner::Join(SessionKey session, std::weak_ptr<SessionSink> sink, LoginIdentity who) {
  requests_.PushAlways(
      {.session = session, .what = JoinRequest{.sink = std::move(sink), .who = std::move(who)}});
}

void ZoneRunner::Arrive(SessionKey session, std::weak_ptr<SessionSink> sink,
                        storage::CharacterRecord character) {
  requests_.PushAlways(
      {.session = session,
       .what = ArriveRequest{.sink = std::move(sink), .character = std::move(character)}});
}

void ZoneRunner::Adopt(LocalArrival arrival) {
  const SessionKey session = arrival.session;
  requests_.PushAlways({.session = session, .what = std::move(arrival)});
}

void ZoneRunner::SubmitRelayed(SessionKey session, std::optional<ClientInput> input) {
  if (!input) {
    if (session.relayed()) {
      requests_.PushAlways({.session = session, .what = LeaveRequest{}});
    }
    return;
  }
  if (!requests_.Push({.session = session, .what = std::move(*input), .relayed = true})) {
    metrics_->RejectInput(InputRefusal::kServerBusy, 1);
  }
}

void ZoneRunner::TakeWhisper(SiblingWhisper chat) {
  // A flood from one runner to another is cut like inputs.
  if (!whispers_in_.Push(std::move(chat))) metrics_->RejectInput(InputRefusal::kServerBusy, 1);
}

void ZoneRunner::Leave(SessionKey session) {
  requests_.PushAlways({.session = session, .what = LeaveRequest{}});
}

void ZoneRunner::Submit(SessionKey session, ClientInput input) {
  if (auto* in = std::get_if<zone::PlayerInput>(&input)) {
    if (auto* chat = std::get_if<zone::ChatInput>(in); chat != nullptr && !chat->text_ok) {
      chat->text.clear();  // a refused text (up to a frame's size) is not kept
      chat->text.shrink_to_fit();
    }
  }
  if (std::holds_alternative<ResyncRequest>(input)) {  // the client waits for it: never lost
    requests_.PushAlways({.session = session, .what = std::move(input)});
  } else if (!requests_.Push({.session = session, .what = std::move(input)})) {
    metrics_->RejectInput(InputRefusal::kServerBusy, 1);
  }
}

void ZoneRunner::Run() {
  loop_.Claim();
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
      metrics_->ticks().overruns.Add(1);
      spdlog::warn("tick {} overran its {} ms budget by {:.1f} ms", tick(), 1000 / tick_rate_,
                   std::chrono::duration<double, std::milli>(end - next).count());
      if (end - next > 5 * interval) next = end;  // far behind: start over, do not spiral
    } else {
      WaitForNextTick(next);
    }
  }
  loop_.Release();  // stopped: SaveEveryone and ApplyQueued run on the stopping thread
}

// Sleeps until `next`, applying hand-off answers as they come: a player whose hand-off was
// accepted is sent on its way at once, not up to a tick later (the world is only touched here,
// on this thread, between ticks, as Drain does).
void ZoneRunner::WaitForNextTick(std::chrono::steady_clock::time_point next) {
  std::unique_lock lock(wake_mu_);
  while (wake_.wait_until(lock, next, [this] { return answer_waiting_ || !running_; })) {
    if (!running_) return;
    answer_waiting_ = false;
    lock.unlock();
    ApplyAnswers();
    lock.lock();
  }
}

void ZoneRunner::ApplyAnswers() {
  loop_.Check("ZoneRunner::ApplyAnswers");
  for (auto& [key, answer] : answers_.Take()) keeper_.OnHandoffAnswer(key, answer);
}

void ZoneRunner::ObserveLoad(double share) {
  if (!governor_.Observe(share)) return;
  metrics_->interest().level.Set(governor_.level());
  metrics_->interest().scale_milli.Set(static_cast<int64_t>(governor_.scale() * 1000));
  metrics_->interest().level_changes.Add(1);
  spdlog::warn(
      "overload control: interest level {} (scale {:.2f}) after a tick at {:.0f}% of "
      "its interval",
      governor_.level(), governor_.scale(), share * 100);
}

void ZoneRunner::Drain(std::vector<Request>& requests) {
  loop_.Check("ZoneRunner::Drain");
  inputs_.clear();
  chat_text_.clear();
  results_.clear();
  relayed_.clear();
  for (Request& r : requests) {
    Admit(r);
    ForgetTakenOver();  // before the new connection's own inputs, which come after its login
  }
  AdmitWhispers(whispers_in_.Take());
  for (auto& [session, result] : loaded_.Take()) keeper_.OnLoaded(session, std::move(result));
  ForgetTakenOver();
  ApplyAnswers();
  ForgetTakenOver();
  if (!early_.empty()) ApplyEarly();
}

void ZoneRunner::ApplyEarly() {
  for (const SessionKey session : early_.Sessions()) {
    if (PlayerDirectory::Player* player = players_.BySession(session)) {
      for (ClientInput& in : early_.Take(session)) Apply(in, *player);
    } else if (!keeper_.Joining(session)) {
      early_.Drop(session);  // refused, routed elsewhere, or gone: its connection is closing
    }
  }
}

void ZoneRunner::Admit(Request& r) {
  PlayerDirectory::Player* player = players_.BySession(r.session);
  if (auto* join = std::get_if<JoinRequest>(&r.what)) {
    if (player == nullptr && !relay_.RefuseJoinOfAway(r.session, join->who, join->sink)) {
      keeper_.Login(r.session, std::move(join->sink), std::move(join->who));
    }
  } else if (auto* arrive = std::get_if<ArriveRequest>(&r.what)) {
    if (player == nullptr) {
      keeper_.Arrive(r.session, std::move(arrive->sink), std::move(arrive->character));
    }
  } else if (auto* adopt = std::get_if<LocalArrival>(&r.what)) {
    keeper_.Adopt(std::move(*adopt));
  } else if (std::holds_alternative<LeaveRequest>(r.what)) {
    relay_.ToOwner(r.session, player, nullptr);  // a player away: its owner saves it
    keeper_.Logout(r.session);                   // also cancels a login still loading
  } else if (relay_.ToOwner(r.session, player, &std::get<ClientInput>(r.what))) {
    // a player owned by another node now
  } else if (player != nullptr) {  // an input from a player in the world
    Apply(std::get<ClientInput>(r.what), *player, r.relayed);
  } else if (keeper_.Joining(r.session) &&  // ... or one pipelined behind its Hello
             !early_.Hold(r.session, std::move(std::get<ClientInput>(r.what)))) {
    metrics_->RejectInput(InputRefusal::kServerBusy, 1);
  }
}

// Logins that took over an online character (CharacterKeeper::TakeOver, from a join, an
// arrival, an adoption or a finished load): the inputs their old connections sent this tick, and
// their refusals, were those connections'. A new client never sent them, so it must not be told
// their results (it would find answers to inputs it does not know). A whisper among them that
// already went to another runner still reaches its listener.
void ZoneRunner::ForgetTakenOver() {
  for (const EntityId entity : keeper_.TakeTakenOver()) {
    std::erase_if(inputs_,
                  [entity](const zone::PlayerInput& in) { return zone::PlayerOf(in) == entity; });
    std::erase_if(results_, [entity](const zone::InputResult& r) { return r.player == entity; });
  }
}

void ZoneRunner::Apply(ClientInput& input, PlayerDirectory::Player& player, bool relayed) {
  if (auto* in = std::get_if<zone::PlayerInput>(&input)) {
    if (zone::KindOf(*in) != zone::InputKind::kChat) {
      const uint32_t seq = zone::SeqOf(*in);
      // A relayed move older than the newest move or skill came by a slower path (the home's
      // queue, a node that had let the player go) after a newer one: it is stale.
      if (relayed && std::holds_alternative<zone::MoveInput>(*in) &&
          !zone::SeqNewer(seq, player.newest_seq)) {
        return;
      }
      if (zone::SeqNewer(seq, player.newest_seq)) player.newest_seq = seq;
    }
    zone::SetPlayer(*in,
                    player.entity);  // who acts is the connection's player, never the client's say
    if (auto* chat = std::get_if<zone::ChatInput>(in)) ResolveWhisper(*chat, player);
    inputs_.push_back(std::move(*in));
  } else if (std::holds_alternative<ResyncRequest>(input)) {
    if (world_.ForgetKnown(player.entity).ok()) player.resync = true;
  } else if (const auto* refused = std::get_if<RefusedInput>(&input)) {
    results_.push_back({.player = player.entity,
                        .kind = refused->kind,
                        .seq = refused->seq,
                        .outcome = refused->outcome,
                        .order = 0});
  }
}

void ZoneRunner::ResolveWhisper(zone::ChatInput& chat, const PlayerDirectory::Player& player) {
  if (chat.channel != zone::ChatChannel::kWhisper || !chat.text_ok) return;
  const PlayerDirectory::Player* to = players_.ByName(chat.to_name);
  chat.to = to != nullptr ? to->entity : kInvalidEntity;  // none: NO_SUCH_PLAYER
  if (to == nullptr && local_ != nullptr) {
    chat.relayed = local_->PassOnWhisper(runner_index_, {.from = player.entity,
                                                         .from_name = player.name,
                                                         .to_name = chat.to_name,
                                                         .text = chat.text});  // online elsewhere
  }
}

// Whispers from other runners, to players of this one (by name: they may have left meanwhile).
void ZoneRunner::AdmitWhispers(std::vector<SiblingWhisper>& relayed) {
  for (SiblingWhisper& c : relayed) {
    const PlayerDirectory::Player* to = players_.ByName(c.to_name);
    if (to == nullptr) continue;
    relayed_.push_back({.from = c.from,
                        .from_name = chat_text_.emplace_back(std::move(c.from_name)),
                        .to = to->entity,
                        .text = chat_text_.emplace_back(std::move(c.text))});
  }
}

void ZoneRunner::Step() {
  loop_.Check("ZoneRunner::Step");
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  // The requests before the batches: an input relayed after the batch that brought its player
  // here (they come in that order from one node) is then never taken before that batch.
  std::vector<Request>& requests = requests_.Take();
  const double now = MonotonicSeconds();
  border_.TakeQueued(now);
  relay_.Watch(now, world_.tick() % tick_rate_ == 0);
  Drain(requests);
  world_.Tick({.inputs = inputs_, .results = results_, .relayed = relayed_}, governor_.level(),
              &pool_);
  keeper_.DismissArrived();  // real since this tick: the ones whose clients left meanwhile
  const auto t1 = Clock::now();
  tick_.store(world_.tick(), std::memory_order_relaxed);
  metrics_->ticks().count.Add(1);
  for (size_t z = 0; z < zone_count_; ++z) {
    const zone::ZoneTickOutput& out = world_.output(z);
    for (size_t r = 0; r < out.rejected.size(); ++r) {
      metrics_->RejectInput(RefusalOf(static_cast<zone::Reject>(r)), out.rejected[r]);
    }
    fanout_.Encode(world_, z, players_, &pool_);
  }
  const auto t2 = Clock::now();
  for (size_t z = 0; z < zone_count_; ++z) fanout_.Deliver(world_, z, &pool_);
  border_.SendTick();
  keeper_.AfterTick();
  if (world_.tick() % tick_rate_ == 0) PublishStorageStats();
  if (observer_ != nullptr)
    observer_->AfterTick(world_, fanout_, {.last_tick_seconds = last_tick_seconds_});
  const auto micros = [](auto d) {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(d).count());
  };
  metrics_->ticks().world_us.Add(micros(t1 - t0));
  metrics_->ticks().encode_us.Add(micros(t2 - t1));
  metrics_->ticks().deliver_us.Add(micros(Clock::now() - t2));
}

void ZoneRunner::AttachPorts(const Ports& ports) {
  keeper_.AttachHandoff(ports.handoff);
  border_.Attach(ports.border);
  relay_.Attach(ports.relay);
  world_.SetPlayersCross(ports.relay != nullptr);
}

void ZoneRunner::DetachRelay() {
  relay_.Attach(nullptr);
  world_.SetPlayersCross(false);
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
