#include "net/session.h"

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "host/clock.h"
#include "net/ws_handshake.h"
#include "wire/protocol.h"

namespace zs::net {

namespace asio = boost::asio;
using host::CloseReason;
using std::chrono::duration;

namespace {

std::chrono::steady_clock::duration Seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(duration<double>(s));
}

// One non-blocking send: the bytes the kernel took (0 when its buffer is full), or failed.
struct SendResult {
  size_t taken = 0;
  bool failed = false;
};

// The WebSocket close code of a close (its reason's name goes with it).
wire::WsCloseCode WsCloseCodeOf(CloseReason reason) {
  switch (reason) {
    case CloseReason::kShutdown:
      return wire::WsCloseCode::kGoingAway;
    case CloseReason::kBadFrame:
    case CloseReason::kUnparsable:
    case CloseReason::kUnknownMessage:
    case CloseReason::kBadName:
    case CloseReason::kBadValue:
    case CloseReason::kSecondHello:
    case CloseReason::kProtocolVersion:
    case CloseReason::kNotLoggedIn:
    case CloseReason::kFlood:
    case CloseReason::kBadWebSocket:
    case CloseReason::kSlowReader:
      return wire::WsCloseCode::kPolicy;
    default:  // the client's own close, a login refused, a kick: the reason says which
      return wire::WsCloseCode::kNormal;
  }
}

SendResult SendNow(int fd, std::string_view bytes) {
  for (;;) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n >= 0) return {.taken = static_cast<size_t>(n)};
    if (errno == EINTR) continue;
    return {.failed = errno != EAGAIN && errno != EWOULDBLOCK};
  }
}

}  // namespace

Session::Session(asio::ip::tcp::socket socket, uint64_t id, std::string peer,
                 SessionContext& context, Transport transport)
    : socket_(std::move(socket)),
      transport_(transport),
      fd_(socket_.native_handle()),
      id_(id),
      peer_(std::move(peer)),
      ctx_(context),
      limits_(context.limits),
      login_timer_(socket_.get_executor()),
      idle_timer_(socket_.get_executor()),
      stall_timer_(socket_.get_executor()),
      close_timer_(socket_.get_executor()),
      decoder_(limits_.max_frame_bytes),
      ws_decoder_(limits_.max_frame_bytes),
      send_queue_(limits_, context.send_queues),
      batch_(limits_.ticks_per_send, id),
      move_rate_(limits_.move_rate),
      chat_rate_(limits_.chat_rate),
      skill_rate_(limits_.skill_rate),
      ping_rate_(limits_.ping_rate) {
  if (transport_ == Transport::kWebSocket) state_ = State::kUpgrading;
}

double Session::Now() const { return host::MonotonicSeconds(); }

void Session::CheckOnStrand(const char* what) {
  // The server's sockets run on a strand (Server's acceptor hands each one its own); a socket
  // on a bare io_context (one thread) has nothing to check.
  using Strand = asio::strand<asio::io_context::executor_type>;
  const auto executor = socket_.get_executor();
  const Strand* strand = executor.target<Strand>();
  if (strand != nullptr && !strand->running_in_this_thread()) {
    std::fprintf(stderr, "thread check: %s called off its session's strand\n", what);
    std::abort();
  }
}

void Session::Start() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] {
    boost::system::error_code ignored;
    self->socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
    if (self->limits_.socket_send_buffer_bytes > 0) {
      self->socket_.set_option(asio::socket_base::send_buffer_size(
                                   static_cast<int>(self->limits_.socket_send_buffer_bytes)),
                               ignored);
    }
    if (self->limits_.socket_unsent_bytes > 0) {
      const int lowat = static_cast<int>(self->limits_.socket_unsent_bytes);
      ::setsockopt(self->fd_, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat, sizeof lowat);
    }
    self->login_timer_.expires_after(Seconds(self->limits_.login_timeout_s));
    self->login_timer_.async_wait([self](const boost::system::error_code& ec) {
      if (!ec && self->state_ == State::kUpgrading) {
        self->BeginClose(CloseReason::kLoginTimeout);  // no frame can be sent yet
      } else if (!ec && self->state_ == State::kAwaitHello) {
        self->Fail(wire::ErrorCode::kNotLoggedIn, "no Hello within the login timeout",
                   CloseReason::kLoginTimeout);
      }
    });
    if (self->transport_ == Transport::kWebSocket) {
      self->Upgrade();
    } else {
      self->ReadMore();
    }
  });
}

void Session::Upgrade() {
  CheckOnStrand("Session::Upgrade");
  upgrade_ = std::make_unique<WsUpgrade>(socket_, ctx_.allowed_origins);
  upgrade_->Run(shared_from_this(), [this](WsUpgrade::Outcome outcome) {
    // Not destroyed from inside its own handler: after it returns.
    asio::post(socket_.get_executor(), [self = shared_from_this()] { self->upgrade_.reset(); });
    OnUpgraded(std::move(outcome));
  });
}

void Session::OnUpgraded(WsUpgrade::Outcome outcome) {
  CheckOnStrand("Session::OnUpgraded");
  if (state_ != State::kUpgrading) return;  // timed out meanwhile: closing
  if (const auto* refused = std::get_if<WsUpgrade::Refused>(&outcome)) {
    spdlog::debug("session {} ({}): WebSocket upgrade refused: {}", id_, peer_, refused->why);
    BeginClose(CloseReason::kWsRefused);
    return;
  }
  auto& upgraded = std::get<WsUpgrade::Upgraded>(outcome);
  {
    const std::lock_guard lock(out_mu_);
    ws_open_ = true;
  }
  ws_version_ = upgraded.version;
  state_ = State::kAwaitHello;
  if (upgraded.early.empty() || Consume(upgraded.early)) ReadMore();
}

void Session::ReadMore() {
  CheckOnStrand("Session::ReadMore");
  if (state_ == State::kClosing || state_ == State::kClosed) return;
  ReadSome();
}

void Session::OnRead(const boost::system::error_code& ec, size_t n) {
  CheckOnStrand("Session::OnRead");
  read_pending_ = false;
  if (state_ == State::kClosing && awaiting_close_) {
    ReadPeerClose(ec, n);
    return;
  }
  if (state_ == State::kClosing || state_ == State::kClosed) return;
  if (ec) {
    BeginClose(ec == asio::error::eof ? CloseReason::kClientClosed : CloseReason::kReadError);
    return;
  }
  ctx_.traffic.bytes_in.Add(n);
  if (Consume(std::string_view(read_buf_.data(), n))) ReadMore();
}

bool Session::Consume(std::string_view bytes) {
  if (transport_ == Transport::kWebSocket) return ConsumeWebSocket(bytes);
  decoder_.Feed(bytes);
  for (;;) {
    const wire::FrameDecoder::Result r = decoder_.Next(&frame_);
    if (r == wire::FrameDecoder::Result::kNeedMore) return true;
    if (r == wire::FrameDecoder::Result::kError) {
      FailFrame(decoder_.error());
      return false;
    }
    ctx_.traffic.messages_in.Add(1);
    if (!HandleFrame(frame_)) return false;
  }
}

bool Session::ConsumeWebSocket(std::string_view bytes) {
  CheckOnStrand("Session::ConsumeWebSocket");
  ws_decoder_.Feed(bytes);
  for (;;) {
    switch (ws_decoder_.Next(&frame_)) {
      case wire::WsDecoder::Result::kNeedMore:
        return true;
      case wire::WsDecoder::Result::kError:
        FailWebSocket(ws_decoder_.error());
        return false;
      case wire::WsDecoder::Result::kMessage:
        ctx_.traffic.messages_in.Add(1);
        if (!HandleFrame(frame_)) return false;
        break;
      case wire::WsDecoder::Result::kPing:
        if (!AnswerPing(frame_)) return false;
        break;
      case wire::WsDecoder::Result::kPong:  // unasked pongs are allowed (RFC 6455 5.5.3)
        break;
      case wire::WsDecoder::Result::kClose:  // answered with our close frame, then closed
        ws_peer_closed_ = true;
        BeginClose(CloseReason::kClientClosed);
        return false;
    }
  }
}

bool Session::AnswerPing(std::string_view payload) {
  const RateLimiter::Verdict v = ping_rate_.Take(Now());
  if (v == RateLimiter::Verdict::kKick) {
    Fail(wire::ErrorCode::kRateLimited, "sustained flooding (WebSocket pings)",
         CloseReason::kFlood);
    return false;
  }
  if (v == RateLimiter::Verdict::kDrop) return true;  // over the rate: not answered
  std::string pong;
  wire::AppendWsFrame(wire::kWsPong, payload, &pong);
  SendFramed(pong);
  return true;
}

void Session::FailWebSocket(wire::WsError err) {
  CheckOnStrand("Session::FailWebSocket");
  ws_close_code_ = wire::CloseCodeFor(err);
  if (err == wire::WsError::kTooLarge) {  // as over TCP: BAD_FRAME (or a token Hello's refusal)
    FailFrame(wire::FrameError::kTooLarge);
    return;
  }
  Fail(wire::ErrorCode::kBadFrame, wire::WsErrorName(err), CloseReason::kBadWebSocket);
}

void Session::SendFramed(std::string_view bytes) {
  Followup next = Followup::kNone;
  {
    const std::lock_guard lock(out_mu_);
    if (out_ == Out::kOpen) next = SendOrQueueLocked(bytes, host::FrameKind::kControl, 0, true);
  }
  Follow(next);
}

void Session::FailFrame(wire::FrameError err) {
  CheckOnStrand("Session::FailFrame");
  if (state_ == State::kAwaitHello && err == wire::FrameError::kTooLarge) {
    if (const auto refusal = ctx_.login.OversizedHello()) {
      Fail(refusal->code, refusal->text, refusal->reason);
      return;
    }
  }
  Fail(wire::ErrorCode::kBadFrame, wire::FrameErrorName(err), CloseReason::kBadFrame);
}

void Session::FailParse(wire::ParseError err, const wire::ClientIntent& in) {
  CheckOnStrand("Session::FailParse");
  switch (err) {
    case wire::ParseError::kUnparsable:
      Fail(wire::ErrorCode::kBadFrame, "not a ClientMessage", CloseReason::kUnparsable);
      break;
    case wire::ParseError::kEmpty:
      Fail(wire::ErrorCode::kBadFrame, "unknown message", CloseReason::kUnknownMessage);
      break;
    case wire::ParseError::kBadName:
      Fail(wire::ErrorCode::kBadName, names::NameProblemText(in.name_problem),
           CloseReason::kBadName);
      break;
    case wire::ParseError::kBadValue:
      Fail(wire::ErrorCode::kBadValue, "NaN, infinite or out-of-range value",
           CloseReason::kBadValue);
      break;
    case wire::ParseError::kNone:
      break;
  }
}

bool Session::HandleHello(const wire::ClientIntent& in) {
  CheckOnStrand("Session::HandleHello");
  if (state_ != State::kAwaitHello) {
    Fail(wire::ErrorCode::kAlreadyLoggedIn, "a second Hello", CloseReason::kSecondHello);
    return false;
  }
  if (transport_ == Transport::kWebSocket && in.protocol_version != ws_version_) {
    Fail(wire::ErrorCode::kProtocolVersion,
         "the Hello names protocol " + std::to_string(in.protocol_version) +
             " but the WebSocket's subprotocol is " + SubprotocolName(ws_version_),
         CloseReason::kProtocolVersion);
    return false;
  }
  LoginGate::Decision decision =
      ctx_.login.Admit(in, Now(), static_cast<int64_t>(host::WallClockMs() / 1000));
  if (const auto* refusal = std::get_if<LoginGate::Refusal>(&decision)) {
    Fail(refusal->code, refusal->text, refusal->reason);
    return false;
  }
  protocol_version_.store(in.protocol_version, std::memory_order_relaxed);
  Enter(std::move(decision));
  return true;
}

void Session::Enter(LoginGate::Decision decision) {
  CheckOnStrand("Session::Enter");
  state_ = State::kLoggedIn;
  login_timer_.cancel();
  if (auto* join = std::get_if<LoginGate::Join>(&decision)) {
    ctx_.players.Join(id_, weak_from_this(), std::move(join->who));
  } else if (auto* arrive = std::get_if<LoginGate::Arrive>(&decision)) {
    ctx_.players.Arrive(id_, weak_from_this(), std::move(arrive->character));
  }
  NoteInput();
  ArmIdle(limits_.idle_timeout_s);
}

bool Session::HandleFrame(const std::string& frame) {
  CheckOnStrand("Session::HandleFrame");
  wire::ClientIntent in;
  const wire::ParseError err = wire::ParseClientMessage(frame, limits_.recursion_limit, &in);
  if (err != wire::ParseError::kNone) {
    FailParse(err, in);
    return false;
  }
  if (in.kind == wire::ClientKind::kHello) return HandleHello(in);
  if (state_ == State::kAwaitHello) {
    Fail(wire::ErrorCode::kNotLoggedIn, "send Hello first", CloseReason::kNotLoggedIn);
    return false;
  }
  if (in.kind != wire::ClientKind::kLogout) {
    const RateLimiter::Verdict v = LimiterFor(in.kind).Take(Now());
    if (v == RateLimiter::Verdict::kKick) {
      Fail(wire::ErrorCode::kRateLimited, "sustained flooding", CloseReason::kFlood);
      return false;
    }
    if (v == RateLimiter::Verdict::kDrop) {
      ctx_.traffic.rate_limited_inputs.Add(1);
      TellRateLimited(in);
      return true;
    }
  }
  return HandleInput(in);
}

bool Session::HandleInput(wire::ClientIntent& in) {
  CheckOnStrand("Session::HandleInput");
  if (in.is_input()) {  // any game input, whatever its kind: the zone's to judge
    ctx_.players.Submit(id_, std::move(in.input));
    NoteInput();
    return true;
  }
  switch (in.kind) {
    case wire::ClientKind::kPing:  // not activity: a client that only pings is idle
      DeliverFrame(wire::PongFrame(in.client_time, ctx_.players.TickOf(id_), host::WallClockMs()),
                   host::FrameKind::kControl);
      break;
    case wire::ClientKind::kLogout:
      DeliverFrame(wire::KickFrame(host::CloseReasonName(CloseReason::kLogout)),
                   host::FrameKind::kControl);
      BeginClose(CloseReason::kLogout);
      return false;
    default:  // a second Hello: ignored
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
  if (!in.is_input()) return;
  ctx_.players.Submit(id_, host::RefusedInput{.kind = zone::KindOf(in.input),
                                              .seq = zone::SeqOf(in.input),
                                              .outcome = zone::Outcome::kRateLimited});
}

void Session::ArmIdle(double after_s) {
  CheckOnStrand("Session::ArmIdle");
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
    self->DeliverFrame(wire::KickFrame(host::CloseReasonName(CloseReason::kIdle)),
                       host::FrameKind::kControl);
    self->BeginClose(CloseReason::kIdle);
  });
}

void Session::Fail(wire::ErrorCode code, const std::string& text, CloseReason reason) {
  CheckOnStrand("Session::Fail");
  if (state_ == State::kClosing || state_ == State::kClosed) return;
  DeliverFrame(wire::ErrorFrame(code, text), host::FrameKind::kControl);
  BeginClose(reason);
}

void Session::CloseWith(std::string last_frame, CloseReason reason) {
  // The last frame goes out in call order with the ticks, and no tick after it.
  Followup next = Followup::kNone;
  {
    const std::lock_guard lock(out_mu_);
    if (!last_frame.empty() || batch_.holding()) {  // held ticks go before the last frame
      next = SendLocked(last_frame, host::FrameKind::kControl);
    }
    if (out_ == Out::kOpen) {
      out_ = Out::kClosing;
      closing_for_ = reason;  // BeginClose takes this reason, whatever the strand saw meanwhile
    }
  }
  Follow(next);
  asio::post(socket_.get_executor(),
             [self = shared_from_this(), reason] { self->BeginClose(reason); });
}

void Session::DeliverFrame(std::string_view frame, host::FrameKind kind) {
  Followup next = Followup::kNone;
  {
    const std::lock_guard lock(out_mu_);
    next = SendLocked(frame, kind);
  }
  Follow(next);
}

void Session::DeliverFrameNow(std::string_view frame, host::FrameKind kind) {
  Followup next = Followup::kNone;
  {
    const std::lock_guard lock(out_mu_);
    next = SendLocked(frame, kind, /*may_hold=*/false);
  }
  Follow(next);
}

Session::Followup Session::SendLocked(std::string_view frame, host::FrameKind kind, bool may_hold) {
  if (out_ != Out::kOpen) return Followup::kNone;  // closing: its last frame is already out
  if (may_hold && send_queue_.idle() && batch_.Hold(frame, kind)) return Followup::kNone;
  const TickBatch::Batch batch = batch_.Take(frame, &kind);  // the held ticks go first
  const Followup next = SendOrQueueLocked(batch.bytes, kind, batch.frames);
  batch_.Sent();
  return next;
}

Session::Followup Session::SendOrQueueLocked(std::string_view frame, host::FrameKind kind,
                                             uint32_t frames, bool framed) {
  if (frame.empty()) return Followup::kNone;
  if (transport_ == Transport::kWebSocket && !framed) {
    if (!ws_open_) return Followup::kNone;  // before the upgrade: nothing of the game's goes out
    ws_out_.clear();
    // The encoders' own frames: always whole (a failure would be a bug, and sends nothing).
    if (!wire::AppendWsMessages(frame, &ws_out_)) return Followup::kNone;
    frame = ws_out_;
  }
  if (send_queue_.idle()) {
    const SendResult sent = SendNow(fd_, frame);
    if (sent.failed) return Followup::kFailed;
    ctx_.traffic.bytes_out.Add(sent.taken);
    if (sent.taken > 0) ctx_.traffic.sends_out.Add(1);
    if (sent.taken == frame.size()) {
      ctx_.traffic.messages_out.Add(frames);
      return Followup::kNone;
    }
    // The rest of a frame begun on the wire must follow whole, whatever the queue's rules.
    if (sent.taken > 0) kind = host::FrameKind::kControl;
    frame.remove_prefix(sent.taken);
  }
  SendQueue::Chunk chunk{
      .buffer = std::make_shared<const std::string>(frame),
      .offset = 0,
      .size = frame.size(),
      .queued_at = 0,  // Offer's to set
      .frames = frames,
  };
  switch (send_queue_.Offer(std::move(chunk), kind, Now())) {
    case SendQueue::Offered::kQueued:
      if (send_queue_.writing() || write_posted_) return Followup::kNone;
      write_posted_ = true;
      return Followup::kWrite;
    case SendQueue::Offered::kStalled:  // a reader that stopped reading
      return Followup::kKick;
    case SendQueue::Offered::kBeganDropping:
      return Followup::kArmStall;
    case SendQueue::Offered::kDropped:
      return Followup::kNone;
  }
  return Followup::kNone;
}

void Session::Follow(Followup next) {
  if (next == Followup::kNone) return;
  asio::post(socket_.get_executor(), [self = shared_from_this(), next] {
    switch (next) {
      case Followup::kWrite:
        self->WriteMore();
        break;
      case Followup::kArmStall:
        self->ArmStallTimer();
        break;
      case Followup::kKick:  // only the Kick is queued; the close timer bounds the wait
        self->KickSlowReader();
        break;
      case Followup::kFailed:
        self->OnWriteFailed();
        break;
      case Followup::kNone:
        break;
    }
  });
}

void Session::ArmStallTimer() {
  CheckOnStrand("Session::ArmStallTimer");
  const uint64_t generation = ++stall_generation_;
  stall_timer_.expires_after(Seconds(limits_.stall_timeout_s));
  stall_timer_.async_wait(
      [self = shared_from_this(), generation](const boost::system::error_code& ec) {
        if (ec || generation != self->stall_generation_) return;
        bool dropping = false;
        {
          const std::lock_guard lock(self->out_mu_);
          dropping = self->send_queue_.dropping();
        }
        if (dropping) self->KickSlowReader();
      });
}

void Session::KickSlowReader() {
  CheckOnStrand("Session::KickSlowReader");
  // Once: the stall timer and a stalled write may both find the same stall.
  if (state_ == State::kClosing || state_ == State::kClosed) return;
  // The Kick is queued in case it ever reads again.
  DeliverFrame(wire::KickFrame(host::CloseReasonName(CloseReason::kSlowReader)),
               host::FrameKind::kControl);
  BeginClose(CloseReason::kSlowReader);
}

void Session::WriteMore() {
  CheckOnStrand("Session::WriteMore");
  const std::lock_guard lock(out_mu_);
  write_posted_ = false;
  if (out_ == Out::kClosed) return;
  const SendQueue::Chunk* c = send_queue_.StartWrite();
  if (c == nullptr) return;
  // Asio never calls the handler from inside async_write, so holding the lock here is safe.
  // The handler holds the buffer too: it outlives the chunk whatever the queue does meanwhile.
  asio::async_write(
      socket_, asio::buffer(c->buffer->data() + c->offset, c->size),
      [self = shared_from_this(), keep = c->buffer, frames = c->frames](
          const boost::system::error_code& ec, size_t n) { self->OnWritten(ec, n, frames); });
}

void Session::OnWritten(const boost::system::error_code& ec, size_t n, uint32_t frames) {
  CheckOnStrand("Session::OnWritten");
  if (ec) {
    OnWriteFailed();
    return;
  }
  ctx_.traffic.bytes_out.Add(n);
  ctx_.traffic.messages_out.Add(frames);
  bool resync = false;
  bool more = false;
  {
    const std::lock_guard lock(out_mu_);
    resync = send_queue_.Written(Now(), out_ != Out::kOpen);
    more = !send_queue_.empty();
  }
  if (resync) {
    ++stall_generation_;  // drained: resume, starting with a full picture
    stall_timer_.cancel();
    ctx_.players.Submit(id_, host::ResyncRequest{});
  }
  if (more) {
    WriteMore();
  } else if (state_ == State::kClosing) {
    Drained();
  }
}

void Session::OnWriteFailed() {
  CheckOnStrand("Session::OnWriteFailed");
  if (state_ != State::kClosed) Finish();  // close_reason_: BeginClose's, or a write error
}

void Session::BeginClose(CloseReason reason) {
  CheckOnStrand("Session::BeginClose");
  if (state_ == State::kClosing || state_ == State::kClosed) return;
  state_ = State::kClosing;
  login_timer_.cancel();
  idle_timer_.cancel();
  bool flushed = false;
  Followup next = Followup::kNone;
  {
    const std::lock_guard lock(out_mu_);
    if (closing_for_) reason = *closing_for_;  // CloseWith's, however the strand got here
    if (ws_open_ && out_ != Out::kClosed) {    // WebSocket: the close frame ends what is sent
      next = SendOrQueueLocked(wire::WsCloseFrame(ws_close_code_.value_or(WsCloseCodeOf(reason)),
                                                  host::CloseReasonName(reason)),
                               host::FrameKind::kControl, 0, true);
    }
    out_ = Out::kClosing;  // nothing more is sent; the queue is flushed
    flushed = !send_queue_.writing() && send_queue_.empty();
  }
  Follow(next);
  close_reason_ = reason;
  ctx_.players.Leave(id_);
  // Flush what is queued (the error or kick), then close. The close timer bounds the wait.
  if (flushed) {
    Drained();
  } else {
    close_timer_.expires_after(Seconds(std::min(2.0, limits_.stall_timeout_s)));
    close_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (!ec && self->state_ == State::kClosing) self->Finish();
    });
  }
}

void Session::Drained() {
  CheckOnStrand("Session::Drained");
  // A WebSocket's closing handshake (RFC 6455 7.1.1): after our close frame, the server closes
  // the TCP connection once the client's close came (else the client's reply meets a reset).
  // A client that broke the framing is not waited for (RFC 6455 7.1.7).
  if (ws_version_ == 0 || ws_peer_closed_ || ws_decoder_.failed()) {
    Finish();
    return;
  }
  awaiting_close_ = true;
  close_timer_.expires_after(Seconds(std::min(2.0, limits_.stall_timeout_s)));
  close_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (!ec && self->state_ == State::kClosing) self->Finish();
  });
  if (!read_pending_) ReadSome();
}

void Session::ReadSome() {
  read_pending_ = true;
  socket_.async_read_some(asio::buffer(read_buf_),
                          [self = shared_from_this()](const boost::system::error_code& ec,
                                                      size_t n) { self->OnRead(ec, n); });
}

void Session::ReadPeerClose(const boost::system::error_code& ec, size_t n) {
  if (ec || ws_decoder_.failed()) {
    Finish();
    return;
  }
  ws_decoder_.Feed(std::string_view(read_buf_.data(), n));
  for (;;) {
    const wire::WsDecoder::Result r = ws_decoder_.Next(&frame_);
    if (r == wire::WsDecoder::Result::kClose || r == wire::WsDecoder::Result::kError) {
      Finish();
      return;
    }
    if (r == wire::WsDecoder::Result::kNeedMore) break;  // other frames: no longer read
  }
  ReadSome();
}

void Session::Finish() {
  CheckOnStrand("Session::Finish");
  if (state_ == State::kClosed) return;
  if (state_ != State::kClosing) ctx_.players.Leave(id_);
  state_ = State::kClosed;
  login_timer_.cancel();
  idle_timer_.cancel();
  stall_timer_.cancel();
  close_timer_.cancel();
  {
    // Under the lock: no other thread may be inside a send on fd_ when it is closed (and
    // possibly reused by the next accept).
    const std::lock_guard lock(out_mu_);
    out_ = Out::kClosed;
    boost::system::error_code ignored;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
    send_queue_.Clear();  // whatever is queued goes with the socket (closed first: no write runs)
  }
  ctx_.on_closed(*this, close_reason_);
}

}  // namespace zs::net
