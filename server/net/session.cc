#include "net/session.h"

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include <chrono>

#include "host/clock.h"
#include "net/server.h"
#include "wire/protocol.h"

namespace zs::net {

namespace asio = boost::asio;
using std::chrono::duration;

namespace {

std::chrono::steady_clock::duration Seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(duration<double>(s));
}

}  // namespace

Session::Session(asio::ip::tcp::socket socket, uint64_t id, std::string peer, Server* server)
    : socket_(std::move(socket)),
      id_(id),
      peer_(std::move(peer)),
      server_(server),
      limits_(server->limits()),
      login_timer_(socket_.get_executor()),
      idle_timer_(socket_.get_executor()),
      stall_timer_(socket_.get_executor()),
      close_timer_(socket_.get_executor()),
      decoder_(limits_.max_frame_bytes),
      move_rate_(limits_.move_rate),
      chat_rate_(limits_.chat_rate),
      skill_rate_(limits_.skill_rate),
      ping_rate_(limits_.ping_rate) {}

double Session::Now() const { return host::MonotonicSeconds(); }

void Session::Start() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] {
    boost::system::error_code ignored;
    self->socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
    if (self->limits_.socket_send_buffer_bytes > 0) {
      self->socket_.set_option(asio::socket_base::send_buffer_size(
                                   static_cast<int>(self->limits_.socket_send_buffer_bytes)),
                               ignored);
    }
    self->login_timer_.expires_after(Seconds(self->limits_.login_timeout_s));
    self->login_timer_.async_wait([self](const boost::system::error_code& ec) {
      if (!ec && self->state_ == State::kAwaitHello) {
        self->Fail(wire::ErrorCode::kNotLoggedIn, "no Hello within the login timeout",
                   "login_timeout");
      }
    });
    self->ReadMore();
  });
}

void Session::ReadMore() {
  if (state_ == State::kClosing || state_ == State::kClosed) return;
  socket_.async_read_some(asio::buffer(read_buf_),
                          [self = shared_from_this()](const boost::system::error_code& ec,
                                                      size_t n) { self->OnRead(ec, n); });
}

void Session::OnRead(const boost::system::error_code& ec, size_t n) {
  if (state_ == State::kClosing || state_ == State::kClosed) return;
  if (ec) {
    BeginClose(ec == asio::error::eof ? "client_closed" : "read_error");
    return;
  }
  server_->metrics().bytes_in.fetch_add(n, std::memory_order_relaxed);
  decoder_.Feed(std::string_view(read_buf_.data(), n));
  for (;;) {
    const wire::FrameDecoder::Result r = decoder_.Next(&frame_);
    if (r == wire::FrameDecoder::Result::kNeedMore) break;
    if (r == wire::FrameDecoder::Result::kError) {
      FailFrame(decoder_.error());
      return;
    }
    server_->metrics().messages_in.fetch_add(1, std::memory_order_relaxed);
    if (!HandleFrame(frame_)) return;
  }
  ReadMore();
}

void Session::FailFrame(wire::FrameError err) {
  // In token mode a Hello too large for a frame is an oversized token: it is refused like any
  // bad token, so the answer does not tell which part was wrong.
  if (state_ == State::kAwaitHello && err == wire::FrameError::kTooLarge &&
      server_->authenticator().mode() == auth::AuthMode::kToken) {
    constexpr const char* kReason = "auth_oversized";
    server_->metrics().LoginRefused(kReason);
    Fail(wire::ErrorCode::kAuthFailed, "authentication failed", kReason);
    return;
  }
  Fail(wire::ErrorCode::kBadFrame, wire::FrameErrorName(err), "bad_frame");
}

void Session::FailParse(wire::ParseError err, const wire::ClientIntent& in) {
  switch (err) {
    case wire::ParseError::kUnparsable:
      Fail(wire::ErrorCode::kBadFrame, "not a ClientMessage", "unparsable");
      break;
    case wire::ParseError::kEmpty:
      Fail(wire::ErrorCode::kBadFrame, "unknown message", "unknown_message");
      break;
    case wire::ParseError::kBadName:
      Fail(wire::ErrorCode::kBadName, wire::NameProblemText(in.name_problem), "bad_name");
      break;
    case wire::ParseError::kBadValue:
      Fail(wire::ErrorCode::kBadValue, "NaN, infinite or out-of-range value", "bad_value");
      break;
    case wire::ParseError::kNone:
      break;
  }
}

bool Session::HandleHello(const wire::ClientIntent& in) {
  if (state_ != State::kAwaitHello) {
    Fail(wire::ErrorCode::kAlreadyLoggedIn, "a second Hello", "second_hello");
    return false;
  }
  if (in.protocol_version < wire::kMinProtocolVersion ||
      in.protocol_version > wire::kProtocolVersion) {
    Fail(wire::ErrorCode::kProtocolVersion,
         "protocol version " + std::to_string(in.protocol_version) +
             " not supported; this server speaks " + std::to_string(wire::kMinProtocolVersion) +
             " to " + std::to_string(wire::kProtocolVersion),
         "protocol_version");
    return false;
  }
  if (!in.ticket.empty()) return HandleTicket(in.ticket);
  const std::optional<host::LoginIdentity> who = Identify(in);
  if (!who) return false;
  state_ = State::kJoining;
  login_timer_.cancel();
  server_->players().Join(id_, weak_from_this(), *who);
  NoteInput();
  ArmIdle(limits_.idle_timeout_s);
  return true;
}

bool Session::HandleTicket(const std::string& ticket) {
  host::TicketBook* book = server_->tickets();
  std::optional<storage::CharacterRecord> character =
      book != nullptr ? book->Redeem(ticket, host::MonotonicSeconds()) : std::nullopt;
  if (!character) {
    server_->metrics().LoginRefused("bad_ticket");
    Fail(wire::ErrorCode::kBadTicket, "unknown, used or expired ticket", "bad_ticket");
    return false;
  }
  state_ = State::kJoining;
  login_timer_.cancel();
  server_->players().Arrive(id_, weak_from_this(), std::move(*character));
  NoteInput();
  ArmIdle(limits_.idle_timeout_s);
  return true;
}

std::optional<host::LoginIdentity> Session::Identify(const wire::ClientIntent& in) {
  auth::Authenticator& auth = server_->authenticator();
  if (auth.mode() == auth::AuthMode::kNone) {
    if (in.name_problem != wire::NameProblem::kNone) {  // a token came with it: not refused yet
      Fail(wire::ErrorCode::kBadName, wire::NameProblemText(in.name_problem), "bad_name");
      return std::nullopt;
    }
    return host::LoginIdentity{.account = 0, .name = in.player_name};
  }
  auth::Identity id;
  const auth::Refusal refusal =
      auth.Check(in.auth_token, static_cast<int64_t>(host::WallClockMs() / 1000), &id);
  if (refusal != auth::Refusal::kNone) {
    // The client learns only that it failed; the log and the metric say why.
    const std::string why = std::string("auth_") + auth::RefusalName(refusal);
    server_->metrics().LoginRefused(why);
    Fail(wire::ErrorCode::kAuthFailed, "authentication failed", why);
    return std::nullopt;
  }
  return host::LoginIdentity{.account = id.account, .name = std::move(id.name)};
}

bool Session::HandleFrame(const std::string& frame) {
  wire::ClientIntent in;
  const wire::ParseError err = wire::ParseClientMessage(frame, limits_.recursion_limit, &in);
  if (err != wire::ParseError::kNone) {
    FailParse(err, in);
    return false;
  }
  if (in.kind == wire::ClientKind::kHello) return HandleHello(in);
  if (state_ == State::kAwaitHello) {
    Fail(wire::ErrorCode::kNotLoggedIn, "send Hello first", "not_logged_in");
    return false;
  }
  if (in.kind != wire::ClientKind::kLogout) {
    const RateLimiter::Verdict v = LimiterFor(in.kind).Take(Now());
    if (v == RateLimiter::Verdict::kKick) {
      Fail(wire::ErrorCode::kRateLimited, "sustained flooding", "flood");
      return false;
    }
    if (v == RateLimiter::Verdict::kDrop) {
      server_->metrics().rate_limited_inputs.fetch_add(1, std::memory_order_relaxed);
      TellRateLimited(in);
      return true;
    }
  }
  switch (in.kind) {
    case wire::ClientKind::kMove:
      server_->players().Move(id_, in.move);
      NoteInput();
      break;
    case wire::ClientKind::kSkill:
      server_->players().Skill(id_, in.skill);
      NoteInput();
      break;
    case wire::ClientKind::kChat:
      server_->players().Chat(id_, in.chat, std::move(in.chat_text), in.chat_text_ok,
                              std::move(in.chat_to));
      NoteInput();
      break;
    case wire::ClientKind::kPing:  // not activity: a client that only pings is idle
      Enqueue(wire::PongFrame(in.client_time, server_->players().TickOf(id_), host::WallClockMs()),
              host::FrameKind::kControl);
      break;
    case wire::ClientKind::kLogout:
      Enqueue(wire::KickFrame("logout"), host::FrameKind::kControl);
      BeginClose("logout");
      return false;
    case wire::ClientKind::kHello:
      break;
  }
  return true;
}

RateLimiter& Session::LimiterFor(wire::ClientKind kind) {
  switch (kind) {
    case wire::ClientKind::kMove:
      return move_rate_;
    case wire::ClientKind::kSkill:
      return skill_rate_;
    case wire::ClientKind::kChat:
      return chat_rate_;
    default:
      return ping_rate_;
  }
}

void Session::TellRateLimited(const wire::ClientIntent& in) {
  const auto refuse = [this](zone::InputKind kind, uint32_t seq) {
    server_->players().Refused(id_, kind, seq, zone::Outcome::kRateLimited);
  };
  if (in.kind == wire::ClientKind::kMove) refuse(zone::InputKind::kMove, in.move.seq);
  if (in.kind == wire::ClientKind::kSkill) refuse(zone::InputKind::kSkill, in.skill.seq);
  if (in.kind == wire::ClientKind::kChat) refuse(zone::InputKind::kChat, in.chat.seq);
}

void Session::ArmIdle(double after_s) {
  // One timer per idle period, not one re-arm per input: when it fires, it checks the time of
  // the last input and sleeps again for the rest of the period if there was one.
  idle_timer_.expires_after(Seconds(after_s));
  idle_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (ec || self->state_ == State::kClosing || self->state_ == State::kClosed) return;
    const double quiet = self->Now() - self->last_input_s_;
    if (quiet < self->limits_.idle_timeout_s) {
      self->ArmIdle(self->limits_.idle_timeout_s - quiet);
      return;
    }
    self->Enqueue(wire::KickFrame("idle"), host::FrameKind::kControl);
    self->BeginClose("idle");
  });
}

void Session::Fail(wire::ErrorCode code, const std::string& text, const std::string& reason) {
  if (state_ == State::kClosing || state_ == State::kClosed) return;
  Enqueue(wire::ErrorFrame(code, text), host::FrameKind::kControl);
  BeginClose(reason);
}

void Session::DeliverFrame(std::string frame, host::FrameKind kind) {
  asio::post(socket_.get_executor(),
             [self = shared_from_this(), f = std::move(frame), kind]() mutable {
               if (self->state_ == State::kJoining) self->state_ = State::kInWorld;
               self->Enqueue(std::move(f), kind);
             });
}

void Session::DeliverShared(std::shared_ptr<const std::string> frame, host::FrameKind kind) {
  asio::post(socket_.get_executor(),
             [self = shared_from_this(), f = std::move(frame), kind]() mutable {
               if (self->state_ == State::kJoining) self->state_ = State::kInWorld;
               const size_t size = f->size();
               self->Enqueue(Chunk{std::move(f), 0, size}, kind);
             });
}

void Session::CloseWith(std::string last_frame, std::string reason) {
  asio::post(socket_.get_executor(), [self = shared_from_this(), f = std::move(last_frame),
                                      r = std::move(reason)]() mutable {
    if (!f.empty()) self->Enqueue(std::move(f), host::FrameKind::kControl);
    self->BeginClose(r);
  });
}

void Session::Enqueue(std::string frame, host::FrameKind kind) {
  const size_t size = frame.size();
  Enqueue(Chunk{std::make_shared<const std::string>(std::move(frame)), 0, size}, kind);
}

void Session::Enqueue(Chunk chunk, host::FrameKind kind) {
  const bool tick = kind != host::FrameKind::kControl;
  if (state_ == State::kClosed || (state_ == State::kClosing && tick)) return;
  if (kind == host::FrameKind::kResyncTick && awaiting_resync_) {
    awaiting_resync_ = false;  // the full picture: the client starts over from here
  } else if (tick && writing_ && Now() - last_progress_s_ > limits_.stall_timeout_s) {
    // The kernel has taken nothing for the whole stall timeout, however small the queue: a
    // reader that stopped reading. Only the Kick is queued; the close timer bounds the wait.
    server_->metrics().send_queue_overflows.fetch_add(1, std::memory_order_relaxed);
    KickSlowReader();
    return;
  } else if (tick && (dropping_ || awaiting_resync_ || Backlogged(Cost(chunk)))) {
    // Backlogged: drop tick updates; once drained, the client gets a full resync. Until the
    // resync tick arrives every later tick is dropped too, so the client never sees a gap.
    server_->metrics().send_queue_overflows.fetch_add(1, std::memory_order_relaxed);
    if (!dropping_ && !awaiting_resync_ && GlobalBacklog(Cost(chunk))) {
      server_->metrics().send_queue_global_overflows.fetch_add(1, std::memory_order_relaxed);
    }
    if (!dropping_ && !awaiting_resync_) {
      dropping_ = true;
      const uint64_t generation = ++stall_generation_;
      stall_timer_.expires_after(Seconds(limits_.stall_timeout_s));
      stall_timer_.async_wait(
          [self = shared_from_this(), generation](const boost::system::error_code& ec) {
            if (!ec && self->dropping_ && generation == self->stall_generation_) {
              self->KickSlowReader();
            }
          });
    }
    return;
  }
  Account(static_cast<int64_t>(Cost(chunk)));
  chunk.queued_at = Now();
  queue_.push_back(std::move(chunk));
  if (!writing_) {
    last_progress_s_ = Now();
    WriteMore();
  }
}

void Session::KickSlowReader() {
  Enqueue(wire::KickFrame("slow_reader"), host::FrameKind::kControl);  // if it ever reads again
  BeginClose("slow_reader");
}

bool Session::Backlogged(size_t extra) const {
  if (queue_.empty()) return false;
  return queued_bytes_ + extra > limits_.send_queue_bytes ||
         Now() - queue_.front().queued_at > limits_.send_queue_delay_s || GlobalBacklog(extra);
}

bool Session::GlobalBacklog(size_t extra) const {
  // Under global pressure the clients that are behind (more queued than the frame in flight)
  // skip ticks first; a client that keeps up is never dropped for others.
  const int64_t total = server_->metrics().send_queue_bytes.load(std::memory_order_relaxed);
  return queue_.size() > 1 &&
         static_cast<size_t>(std::max<int64_t>(total, 0)) + extra > limits_.total_send_queue_bytes;
}

void Session::Account(int64_t delta) {
  queued_bytes_ = static_cast<size_t>(static_cast<int64_t>(queued_bytes_) + delta);
  server_->metrics().send_queue_bytes.fetch_add(delta, std::memory_order_relaxed);
}

void Session::WriteMore() {
  if (queue_.empty() || state_ == State::kClosed) return;
  writing_ = true;
  const Chunk& c = queue_.front();
  asio::async_write(socket_, asio::buffer(c.buffer->data() + c.offset, c.size),
                    [self = shared_from_this()](const boost::system::error_code& ec, size_t n) {
                      self->OnWritten(ec, n);
                    });
}

void Session::OnWritten(const boost::system::error_code& ec, size_t n) {
  writing_ = false;
  if (ec) {
    queue_.clear();
    Account(-static_cast<int64_t>(queued_bytes_));
    if (state_ != State::kClosed) {
      close_reason_ = close_reason_.empty() ? "write_error" : close_reason_;
      Finish();
    }
    return;
  }
  server_->metrics().bytes_out.fetch_add(n, std::memory_order_relaxed);
  server_->metrics().messages_out.fetch_add(1, std::memory_order_relaxed);
  Account(-static_cast<int64_t>(Cost(queue_.front())));
  queue_.pop_front();
  last_progress_s_ = Now();
  const bool drained =
      queued_bytes_ <= limits_.send_queue_bytes / 2 &&
      (queue_.empty() || Now() - queue_.front().queued_at <= limits_.send_queue_delay_s / 2);
  if (dropping_ && state_ != State::kClosing && drained) {
    dropping_ = false;  // drained: resume, starting with a full picture
    awaiting_resync_ = true;
    ++stall_generation_;
    stall_timer_.cancel();
    server_->players().Resync(id_);
  }
  if (!queue_.empty()) {
    WriteMore();
  } else if (state_ == State::kClosing) {
    Finish();
  }
}

void Session::BeginClose(const std::string& reason) {
  if (state_ == State::kClosing || state_ == State::kClosed) return;
  state_ = State::kClosing;
  close_reason_ = reason;
  login_timer_.cancel();
  idle_timer_.cancel();
  server_->players().Leave(id_);
  // Flush what is queued (the error or kick), then close. The stall timer bounds the wait.
  if (!writing_ && queue_.empty()) {
    Finish();
  } else {
    close_timer_.expires_after(Seconds(std::min(2.0, limits_.stall_timeout_s)));
    close_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (!ec && self->state_ == State::kClosing) self->Finish();
    });
  }
}

void Session::Finish() {
  if (state_ == State::kClosed) return;
  if (state_ != State::kClosing) server_->players().Leave(id_);
  state_ = State::kClosed;
  Account(-static_cast<int64_t>(queued_bytes_));  // whatever is queued goes with the socket
  login_timer_.cancel();
  idle_timer_.cancel();
  stall_timer_.cancel();
  close_timer_.cancel();
  boost::system::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  server_->OnClosed(*this, close_reason_);
}

}  // namespace zs::net
