#include "zs_client/client.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "zone.pb.h"

namespace zs::client {
namespace pb = zone::v1;

Client::Client() : connection_(this) { store_.set_listener(this); }

Client::~Client() = default;

Status Client::Connect(ClientOptions options, double now_ms) {
  input_seq_ = options.first_input_seq - 1U;
  prediction_ = Prediction(options.prediction);
  options_ = options;
  return connection_.Start(std::move(options), now_ms);
}

void Client::OnConnected(uint64_t link, std::string_view subprotocol, double now_ms) {
  connection_.OnConnected(link, subprotocol, now_ms);
}

void Client::OnBytes(uint64_t link, std::span<const uint8_t> bytes, double now_ms) {
  connection_.OnBytes(link, bytes, now_ms);
}

void Client::OnMessage(uint64_t link, std::span<const uint8_t> message, double now_ms) {
  connection_.OnMessage(link, message, now_ms);
}

void Client::OnClosed(uint64_t link, const CloseInfo& info, double now_ms) {
  connection_.OnClosed(link, info, now_ms);
}

void Client::Poll(double now_ms) {
  last_now_ms_ = now_ms;
  connection_.Poll(now_ms);
  ExpireResults(now_ms);
  UpdateStats(now_ms);
}

double Client::NextPollAt() const {
  double at = connection_.NextPollAt();
  for (const PendingResult& p : pending_) at = std::min(at, p.deadline_ms);
  return at;
}

uint32_t Client::self_id() const { return store_.self() ? store_.self()->id : 0; }

// ------------------------------------------------------------------ inputs

uint32_t Client::NextSeq() {
  input_seq_ = SeqNext(input_seq_);
  return input_seq_;
}

InputHandle Client::Move(double x, double y, double now_ms, bool force) {
  if (!std::isfinite(x) || !std::isfinite(y)) {
    return {.status = Status::Error(ErrorCode::kInvalidArgument, "move: direction must be finite"),
            .seq = 0};
  }
  const double len = std::hypot(x, y);
  const bool moving = len > 0 && std::isfinite(len);
  desired_ = Position{.x = moving ? x / len : 0, .y = moving ? y / len : 0};
  if (state() != State::kInWorld) return {};
  if (!force && last_sent_dir_ && std::abs(desired_.x - last_sent_dir_->x) < 1e-6 &&
      std::abs(desired_.y - last_sent_dir_->y) < 1e-6) {
    return {};
  }
  pb::ClientMessage m;
  pb::MoveInput* move = m.mutable_move();
  const uint32_t seq = SeqNext(input_seq_);
  move->set_seq(seq);
  move->set_direction_x(static_cast<float>(desired_.x));
  move->set_direction_y(static_cast<float>(desired_.y));
  Status sent = connection_.Send(m);
  if (!sent.ok()) return {.status = std::move(sent), .seq = 0};
  input_seq_ = seq;
  last_sent_dir_ = desired_;
  prediction_.AddMove(seq, desired_.x, desired_.y, now_ms);
  return {.status = Status::Ok(), .seq = seq};
}

std::optional<double> Client::CooldownLeft(uint32_t skill_id, double now_ms) const {
  const Cooldown* c = FindCooldown(skill_id);
  if (c == nullptr) return std::nullopt;
  return std::max(0.0, c->ready_at_ms - now_ms);
}

InputHandle Client::UseSkill(uint32_t skill_id, uint32_t facing, std::optional<Position> target,
                             double now_ms, ResultCallback on_result) {
  const auto refuse = [](ErrorCode code, std::string text) {
    return InputHandle{.status = Status::Error(code, std::move(text)), .seq = 0};
  };
  if (state() != State::kInWorld) {
    return refuse(ErrorCode::kNotInWorld,
                  "cannot use a skill while " + std::string(StateName(state())));
  }
  if (facing >= kTurn)
    return refuse(ErrorCode::kInvalidArgument, "facing is 0..65535 (1/65536 turn)");
  if (target && (!std::isfinite(target->x) || !std::isfinite(target->y) ||
                 std::abs(target->x) > 2e9 || std::abs(target->y) > 2e9)) {
    return refuse(ErrorCode::kInvalidArgument, "target must be finite centimetres");
  }
  const std::optional<double> left = CooldownLeft(skill_id, now_ms);
  if (!left) {
    return refuse(ErrorCode::kUnknownSkill,
                  "skill " + std::to_string(skill_id) + " is not one of your skills");
  }
  const double rtt = clock_.rtt_smoothed();
  const double tolerance = std::min(100.0, std::isnan(rtt) ? 50.0 : rtt / 2);
  if (*left > tolerance) {
    return refuse(ErrorCode::kSkillOnCooldown,
                  "skill " + std::to_string(skill_id) + " is ready in " +
                      std::to_string(static_cast<int>(std::ceil(*left))) + " ms");
  }
  pb::ClientMessage m;
  pb::SkillInput* skill = m.mutable_skill();
  const uint32_t seq = SeqNext(input_seq_);
  skill->set_seq(seq);
  skill->set_skill_id(skill_id);
  skill->set_facing(facing);
  if (target) {
    skill->set_target_x(static_cast<int32_t>(std::lround(target->x)));
    skill->set_target_y(static_cast<int32_t>(std::lround(target->y)));
  }
  Status sent = connection_.Send(m);
  if (!sent.ok()) return {.status = std::move(sent), .seq = 0};
  input_seq_ = seq;
  prediction_.AddOtherInput(seq);
  pending_.push_back(PendingResult{.kind = pb::INPUT_KIND_SKILL,
                                   .seq = seq,
                                   .skill_id = skill_id,
                                   .sent_ms = now_ms,
                                   .deadline_ms = now_ms + options_.result_timeout_ms,
                                   .callback = std::move(on_result)});
  return {.status = Status::Ok(), .seq = seq};
}

InputHandle Client::Chat(std::string_view text, int channel, std::string_view to, double now_ms,
                         ResultCallback on_result) {
  const auto refuse = [](Status s) { return InputHandle{.status = std::move(s), .seq = 0}; };
  if (text.size() > kMaxChatBytes) {
    return refuse(
        Status::TooLarge(ErrorCode::kChatTooLong,
                         "chat text is " + std::to_string(text.size()) + " bytes; at most 256",
                         text.size(), kMaxChatBytes));
  }
  if (text.empty()) return refuse(Status::Error(ErrorCode::kBadText, "chat text is empty"));
  if (!IsCleanText(text)) {
    return refuse(
        Status::Error(ErrorCode::kBadText, "chat text is not UTF-8 or has a control character"));
  }
  if (!pb::ChatChannel_IsValid(channel) || channel == pb::CHAT_CHANNEL_UNSPECIFIED) {
    return refuse(Status::Error(ErrorCode::kInvalidArgument, "no such chat channel"));
  }
  if (channel == pb::CHAT_CHANNEL_WHISPER && to.empty()) {
    return refuse(Status::Error(ErrorCode::kInvalidArgument, "a whisper needs `to`"));
  }
  if (state() != State::kInWorld) {
    return refuse(Status::Error(ErrorCode::kNotInWorld,
                                "cannot chat while " + std::string(StateName(state()))));
  }
  pb::ClientMessage m;
  pb::Chat* chat = m.mutable_chat();
  const uint32_t seq = SeqNext(chat_seq_);
  chat->set_seq(seq);
  chat->set_channel(static_cast<pb::ChatChannel>(channel));
  chat->set_text(std::string(text));
  chat->set_to(std::string(to));
  Status sent = connection_.Send(m);
  if (!sent.ok()) return refuse(std::move(sent));
  chat_seq_ = seq;
  pending_.push_back(PendingResult{.kind = pb::INPUT_KIND_CHAT,
                                   .seq = seq,
                                   .skill_id = 0,
                                   .sent_ms = now_ms,
                                   .deadline_ms = now_ms + options_.result_timeout_ms,
                                   .callback = std::move(on_result)});
  return {.status = Status::Ok(), .seq = seq};
}

void Client::ExpireResults(double now_ms) {
  for (size_t i = 0; i < pending_.size();) {
    if (now_ms < pending_[i].deadline_ms) {
      ++i;
      continue;
    }
    PendingResult p = std::move(pending_[i]);
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
    if (p.callback) {
      p.callback(
          InputOutcome{.kind = p.kind,
                       .seq = p.seq,
                       .outcome = 0,
                       .accepted = false,
                       .error = Status::Error(ErrorCode::kResultTimeout,
                                              "no result for seq " + std::to_string(p.seq))});
    }
  }
}

void Client::RejectAll(const Status& error) {
  std::vector<PendingResult> all = std::move(pending_);
  pending_.clear();
  for (PendingResult& p : all) {
    if (p.callback) {
      p.callback(InputOutcome{
          .kind = p.kind, .seq = p.seq, .outcome = 0, .accepted = false, .error = error});
    }
  }
}

void Client::RejectLostSkills(uint32_t last_input_seq) {
  for (size_t i = 0; i < pending_.size();) {
    const PendingResult& p = pending_[i];
    if (p.kind != pb::INPUT_KIND_SKILL ||
        !SeqAcked(p.seq, last_input_seq, session_seq_base_, input_seq_)) {
      ++i;
      continue;
    }
    PendingResult lost = std::move(pending_[i]);
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
    if (lost.callback) {
      lost.callback(
          InputOutcome{.kind = lost.kind,
                       .seq = lost.seq,
                       .outcome = 0,
                       .accepted = false,
                       .error = Status::Error(ErrorCode::kResultLost,
                                              "skill seq " + std::to_string(lost.seq) +
                                                  " was judged but its result was lost (resync)")});
    }
  }
}

Client::Cooldown* Client::FindCooldown(uint32_t skill_id) {
  for (Cooldown& c : cooldowns_) {
    if (c.skill_id == skill_id) return &c;
  }
  return nullptr;
}

const Client::Cooldown* Client::FindCooldown(uint32_t skill_id) const {
  for (const Cooldown& c : cooldowns_) {
    if (c.skill_id == skill_id) return &c;
  }
  return nullptr;
}

// ------------------------------------------------------------------ rendering

double Client::RenderTick(double now_ms) const {
  return ticks_.RenderTick(now_ms, options_.interpolation_margin_ticks);
}

bool Client::StateAt(uint32_t id, double now_ms, MotionState* out) const {
  const Entity* e = store_.Find(id);
  if (e == nullptr) return false;
  if (!ticks_.known()) {
    *out = MotionState{.x = static_cast<double>(e->x),
                       .y = static_cast<double>(e->y),
                       .facing = static_cast<double>(e->facing)};
    return true;
  }
  return interpolation_.StateAt(id, RenderTick(now_ms), out);
}

// ------------------------------------------------------------------ server messages

void Client::OnServerMessage(const pb::ServerMessage& m, double now_ms) {
  last_now_ms_ = now_ms;
  events_.clear();
  switch (m.kind_case()) {
    case pb::ServerMessage::kWelcome:
      return ApplyWelcome(m, now_ms);
    case pb::ServerMessage::kTick:
      return ApplyTick(m, now_ms);
    case pb::ServerMessage::kZoneChanged:
      return ApplyZoneChanged(m);
    case pb::ServerMessage::kPong: {
      const pb::Pong& p = m.pong();
      const auto sent = static_cast<double>(p.client_time());
      clock_.AddSample(sent, now_ms, static_cast<double>(p.server_time_ms()));
      ticks_.Anchor(p.server_tick(), static_cast<double>(p.server_time_ms()));
      if (listener_ != nullptr) listener_->OnPong(now_ms - sent);
      return;
    }
    default:
      CollectEvents(m, &events_);
      return Dispatch(now_ms);
  }
}

void Client::ApplyWelcome(const pb::ServerMessage& m, double now_ms) {
  const pb::Welcome& w = m.welcome();
  if (!welcome_) welcome_ = std::make_unique<pb::Welcome>();
  welcome_->CopyFrom(w);
  interpolation_.Forget();
  store_.Apply(m);
  ticks_.SetTickRate(w.tick_rate());
  ticks_.Reset();
  ticks_.Anchor(w.server_tick(), static_cast<double>(w.server_time_ms()));
  if (!std::isnan(hello_sent_at_)) {
    clock_.AddSample(hello_sent_at_, now_ms, static_cast<double>(w.server_time_ms()), false);
  }
  prediction_.Configure(w.you().speed(), w.tick_rate(), store_.zone());
  session_seq_base_ = input_seq_;
  prediction_.Reset(w.x(), w.y(), !w.you().dead(), input_seq_);
  last_sent_dir_ = Position{};
  cooldowns_.clear();
  for (const pb::SkillInfo& s : w.you().skills()) {
    cooldowns_.push_back(Cooldown{.skill_id = s.id(),
                                  .cooldown_ms = s.cooldown_ms(),
                                  .ready_at_ms = now_ms + s.ready_in_ms()});
  }
  if (listener_ != nullptr) listener_->OnWelcome(w);
}

void Client::ApplyTick(const pb::ServerMessage& m, double now_ms) {
  const pb::TickUpdate& t = m.tick();
  ++stats_.ticks;
  if (t.resync()) {
    ++stats_.resyncs;
    interpolation_.Forget();
  }
  ticks_.Observe(t.tick(), now_ms);
  applying_tick_ = t.tick();
  store_.Apply(m);
  interpolation_.EndFrame();
  // Results first: a refused move never changed the direction.
  for (const pb::InputResult& r : t.results()) {
    if (r.kind() == pb::INPUT_KIND_MOVE && r.outcome() != pb::OUTCOME_ACCEPTED) {
      prediction_.MoveRefused(r.seq());
    }
  }
  if (const std::optional<Self>& self = store_.self()) {
    prediction_.OnFrame(t.tick(), t.last_input_seq(), self->x, self->y, self->alive, now_ms,
                        ticks_.LocalTimeOfTick(static_cast<double>(t.tick())),
                        clock_.rtt_smoothed());
  }
  CollectEvents(m, &events_);
  Dispatch(now_ms);
  // A skill acknowledged without its result: the result was in a frame that was dropped.
  RejectLostSkills(t.last_input_seq());
  if (listener_ != nullptr) listener_->OnTick(t);
}

void Client::ApplyZoneChanged(const pb::ServerMessage& m) {
  const pb::ZoneChanged& z = m.zone_changed();
  store_.Apply(m);
  interpolation_.Clear();
  prediction_.set_bounds(store_.zone());
  prediction_.Reset(z.x(), z.y(), store_.self() ? store_.self()->alive : true, input_seq_);
  last_sent_dir_ = Position{};
  desired_ = Position{};
  ticks_.Reset();
  ticks_.ClearAnchor();
  CollectEvents(m, &events_);
  if (listener_ == nullptr) return;
  for (const Event& e : events_) listener_->OnEvent(e);
}

void Client::Dispatch(double now_ms) {
  for (const Event& e : events_) {
    if (const auto* r = std::get_if<ResultEvent>(&e)) ResolveResult(*r, now_ms);
    if (listener_ != nullptr) listener_->OnEvent(e);
  }
}

void Client::ResolveResult(const ResultEvent& r, double now_ms) {
  const auto it = std::find_if(pending_.begin(), pending_.end(), [&](const PendingResult& p) {
    return p.kind == r.kind && p.seq == r.seq;
  });
  if (it == pending_.end()) return;
  PendingResult p = std::move(*it);
  pending_.erase(it);
  const bool accepted = r.outcome == pb::OUTCOME_ACCEPTED;
  if (p.kind == pb::INPUT_KIND_SKILL && accepted) {
    if (Cooldown* c = FindCooldown(p.skill_id)) {
      const double rtt = clock_.rtt_smoothed();
      const double one_way = std::isnan(rtt) ? 0 : rtt / 2;
      c->ready_at_ms = std::max(p.sent_ms, now_ms - one_way) + c->cooldown_ms;
    }
  }
  if (p.callback) {
    p.callback(InputOutcome{
        .kind = r.kind, .seq = r.seq, .outcome = r.outcome, .accepted = accepted, .error = {}});
  }
}

void Client::OnStateChange(State to, State from, CloseReason reason, const Status& error) {
  stats_.reconnects = connection_.reconnects();
  stats_.handoffs = connection_.handoffs();
  if (from == State::kInWorld && to != State::kInWorld) {
    RejectAll(error.ok() ? Status::Error(ErrorCode::kConnectionLost,
                                         "left the world (" + std::string(StateName(to)) + ")")
                         : error);
    last_sent_dir_.reset();
  }
  if (listener_ != nullptr) listener_->OnState(to, from, reason, error);
  if (to == State::kInWorld && from == State::kReconnecting && options_.resume_movement &&
      (desired_.x != 0 || desired_.y != 0)) {
    (void)Move(desired_.x, desired_.y, last_now_ms_, true);
  }
  if (to == State::kClosed) {
    RejectAll(Status::Error(ErrorCode::kClosed, "closed: " + std::string(CloseReasonName(reason))));
    if (listener_ != nullptr) listener_->OnClosed(reason, error);
  }
}

void Client::OnEnter(const Entity& entity) {
  interpolation_.Enter(entity, applying_tick_);
  if (listener_ != nullptr) listener_->OnEnter(entity);
}

void Client::OnChange(const Entity& entity) {
  interpolation_.Change(entity, applying_tick_);
  if (listener_ != nullptr) listener_->OnChange(entity);
}

void Client::OnLeave(const Entity& entity) {
  interpolation_.Leave(entity.id);
  if (listener_ != nullptr) listener_->OnLeave(entity);
}

void Client::UpdateStats(double now_ms) {
  ClientStats& s = stats_;
  s.rtt_last_ms = clock_.rtt_last();
  s.rtt_smoothed_ms = clock_.rtt_smoothed();
  s.rtt_min_ms = clock_.rtt_min();
  s.clock_offset_ms = clock_.offset();
  s.jitter_ms = ticks_.jitter_ms();
  s.bytes_in = connection_.bytes_in();
  s.bytes_out = connection_.bytes_out();
  s.frames = connection_.frames();
  s.prediction_error_cm = prediction_.correction();
  s.prediction_snaps = prediction_.snaps();
  if (std::isnan(rate_at_)) {
    rate_at_ = now_ms;
    rate_bytes_in_ = s.bytes_in;
    rate_bytes_out_ = s.bytes_out;
  } else if (now_ms - rate_at_ >= 1000) {
    const double dt = (now_ms - rate_at_) / 1000;
    s.bytes_in_per_sec = static_cast<double>(s.bytes_in - rate_bytes_in_) / dt;
    s.bytes_out_per_sec = static_cast<double>(s.bytes_out - rate_bytes_out_) / dt;
    rate_at_ = now_ms;
    rate_bytes_in_ = s.bytes_in;
    rate_bytes_out_ = s.bytes_out;
  }
}

}  // namespace zs::client
