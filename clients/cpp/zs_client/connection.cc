#include "zs_client/connection.h"

#include <google/protobuf/arena.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

#include "zone.pb.h"

namespace zs::client {
namespace pb = zone::v1;
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();
// A final failure waits this long for the link's close (and the server's last words) at most.
constexpr double kPendingFailureMs = 1000;

std::optional<Scheme> SchemeOf(std::string_view url, size_t* rest) {
  for (const auto& [prefix, scheme] : {std::pair<std::string_view, Scheme>{"tcp://", Scheme::kTcp},
                                       {"ws://", Scheme::kWs},
                                       {"wss://", Scheme::kWss}}) {
    if (url.size() >= prefix.size()) {
      std::string lower(url.substr(0, prefix.size()));
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](char c) { return static_cast<char>(std::tolower(c)); });
      if (lower == prefix) {
        *rest = prefix.size();
        return scheme;
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::string_view StateName(State state) {
  switch (state) {
    case State::kIdle:
      return "idle";
    case State::kConnecting:
      return "connecting";
    case State::kHandshaking:
      return "handshaking";
    case State::kInWorld:
      return "in_world";
    case State::kReconnecting:
      return "reconnecting";
    case State::kHandingOff:
      return "handing_off";
    case State::kClosed:
      return "closed";
  }
  return "unknown";
}

std::optional<DialTarget> ParseDialTarget(std::string_view url) {
  size_t at = 0;
  const std::optional<Scheme> scheme = SchemeOf(url, &at);
  if (!scheme) return std::nullopt;
  const std::string_view rest = url.substr(at);
  const size_t slash = rest.find('/');
  const std::string_view authority = rest.substr(0, slash);
  const std::string path = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  std::string_view host = authority;
  std::string_view port_text;
  if (authority.starts_with('[')) {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return std::nullopt;
      port_text = authority.substr(close + 2);
    }
  } else if (const size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port_text = authority.substr(colon + 1);
  }
  uint16_t port = *scheme == Scheme::kWss ? 443 : 80;
  if (!port_text.empty()) {
    const auto [end, ec] =
        std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || end != port_text.data() + port_text.size()) return std::nullopt;
  } else if (*scheme == Scheme::kTcp) {
    return std::nullopt;  // tcp:// has no default port
  }
  if (host.empty() || port == 0) return std::nullopt;
  DialTarget target{.url = std::string(url),
                    .scheme = *scheme,
                    .host = std::string(host),
                    .port = port,
                    .path = path,
                    .subprotocols = {},
                    .max_inbound_frame_bytes = kMaxInboundFrameBytes};
  if (*scheme != Scheme::kTcp) {
    for (uint32_t v = kProtocolVersion; v >= kMinProtocolVersion; --v) {
      target.subprotocols.push_back(Subprotocol(v));
    }
  }
  return target;
}

Connection::Connection(ConnectionHandler* handler)
    : handler_(handler),
      deadline_(kNever),
      probe_deadline_(kNever),
      closing_deadline_(kNever),
      pending_failure_deadline_(kNever) {}

Connection::~Connection() = default;

Status Connection::Start(ConnectionOptions options, double now_ms) {
  if (state_ != State::kIdle) return Status::Error(ErrorCode::kInvalidArgument, "started already");
  if (options.name.empty() && options.token.empty() && !options.token_source) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "connect: give a name (auth mode none) or a token (auth mode token)");
  }
  if (!options.name.empty() && options.name.size() > kMaxNameBytes) {
    return Status::Error(ErrorCode::kBadName, "a player name is 1..32 bytes of UTF-8");
  }
  if (!ParseDialTarget(options.url)) {
    return Status::Error(
        ErrorCode::kTransportUnsupported,
        "no transport for " + options.url + " (tcp://host:port, ws://host:port/path or wss://...)");
  }
  options_ = std::move(options);
  arena_block_.assign(options_.parse_block_bytes, 0);
  random_state_ = std::hash<std::string>()(options_.name + "|" + options_.url) | 1U;
  decoder_ = FrameDecoder(options_.max_inbound_frame_bytes);
  Dial(now_ms, options_.url, "", State::kConnecting);
  return Status::Ok();
}

void Connection::Resume(double now_ms) {
  if (state_ == State::kReconnecting && link_ == 0) {
    next_attempt_at_ = now_ms;
    Poll(now_ms);
  } else if (state_ == State::kInWorld) {
    SendPing(now_ms);
    probe_since_ = now_ms;
    probe_deadline_ = now_ms + options_.probe_timeout_ms;
  }
}

void Connection::Close(double now_ms, double grace_ms) {
  if (state_ == State::kClosed) return;
  closing_ = true;
  if (state_ == State::kInWorld && link_ != 0) {
    pb::ClientMessage logout;
    logout.mutable_logout();
    Emit(logout);
    closing_deadline_ = now_ms + grace_ms;
  } else {
    Finish(CloseReason::kClientClosed, Status::Ok());
  }
}

Status Connection::Send(const pb::ClientMessage& message) {
  if (state_ != State::kInWorld || link_ == 0) {
    return Status::Error(ErrorCode::kNotInWorld,
                         "cannot send while " + std::string(StateName(state_)));
  }
  const size_t size = message.ByteSizeLong();
  if (size > options_.max_frame_bytes) {
    return Status::TooLarge(ErrorCode::kFrameTooLarge,
                            "message of " + std::to_string(size) +
                                " bytes is over the server's limit of " +
                                std::to_string(options_.max_frame_bytes),
                            size, options_.max_frame_bytes);
  }
  Emit(message);
  return Status::Ok();
}

Action& Connection::NewAction(ActionKind kind, uint64_t link) {
  if (action_count_ == actions_.size()) actions_.emplace_back();
  Action& a = actions_[action_count_++];
  a.kind = kind;
  a.link = link;
  a.bytes.clear();
  return a;
}

bool Connection::Emit(const google::protobuf::MessageLite& message) {
  if (link_ == 0) return false;
  const size_t size = message.ByteSizeLong();
  Action& a = NewAction(ActionKind::kSend, link_);
  if (!websocket_) AppendVarint(static_cast<uint32_t>(size), &a.bytes);
  const size_t at = a.bytes.size();
  a.bytes.resize(at + size);
  message.SerializeWithCachedSizesToArray(a.bytes.data() + at);
  bytes_out_ += a.bytes.size();
  return true;
}

std::span<const Action> Connection::TakeActions() {
  std::swap(actions_, taken_);
  const size_t n = action_count_;
  action_count_ = 0;
  // Slots past n in the new pending vector are reused (their buffers keep their capacity).
  return {taken_.data(), n};
}

void Connection::Poll(double now_ms) {
  if (pending_failure_ && now_ms >= pending_failure_deadline_) {
    Failure f = std::move(*pending_failure_);
    return Finish(f.reason, std::move(f.error));
  }
  switch (state_) {
    case State::kReconnecting:
      if (link_ == 0 && now_ms >= next_attempt_at_ && !closing_) {
        Dial(now_ms, options_.url, "", State::kReconnecting);
      } else if (link_ != 0 && now_ms >= deadline_) {
        Failed(now_ms, CloseReason::kUnknown,
               Status::Error(ErrorCode::kConnectionLost, "no answer to the login in time"), false);
      }
      break;
    case State::kConnecting:
    case State::kHandshaking:
    case State::kHandingOff:
      if (now_ms >= deadline_) {
        const bool handoff = state_ == State::kHandingOff;
        Failed(now_ms, handoff ? CloseReason::kHandoffFailed : CloseReason::kUnknown,
               Status::Error(handoff ? ErrorCode::kHandoffFailed : ErrorCode::kConnectionLost,
                             "no answer in time"),
               false);
      }
      break;
    case State::kInWorld:
      TimersInWorld(now_ms);
      break;
    default:
      break;
  }
}

void Connection::TimersInWorld(double now_ms) {
  if (closing_ && now_ms >= closing_deadline_) {
    return Finish(CloseReason::kClientClosed, Status::Ok());
  }
  if (now_ms - last_receive_at_ > options_.silence_timeout_ms) {
    return Failed(now_ms, CloseReason::kUnknown,
                  Status::Error(ErrorCode::kConnectionLost,
                                "nothing from the server for " +
                                    std::to_string(options_.silence_timeout_ms) + " ms"),
                  false, true);
  }
  if (now_ms >= probe_deadline_) {
    probe_deadline_ = kNever;
    if (last_receive_at_ < probe_since_) {
      return Failed(
          now_ms, CloseReason::kUnknown,
          Status::Error(ErrorCode::kConnectionLost, "no answer to the probe after resume"), false,
          true);
    }
  }
  if (now_ms >= next_ping_at_ && !closing_) SendPing(now_ms);
}

double Connection::NextPollAt() const {
  double at = kNever;
  if (pending_failure_) at = pending_failure_deadline_;
  switch (state_) {
    case State::kReconnecting:
      return std::min(at, link_ == 0 ? next_attempt_at_ : deadline_);
    case State::kConnecting:
    case State::kHandshaking:
    case State::kHandingOff:
      return std::min(at, deadline_);
    case State::kInWorld:
      at = std::min({at, last_receive_at_ + options_.silence_timeout_ms, probe_deadline_});
      if (closing_) return std::min(at, closing_deadline_);
      return std::min(at, next_ping_at_);
    default:
      return at;
  }
}

void Connection::SetState(State to, CloseReason reason, const Status& error) {
  const State from = state_;
  if (from == to) return;
  state_ = to;
  handler_->OnStateChange(to, from, reason, error);
}

void Connection::Dial(double now_ms, const std::string& url, const std::string& ticket,
                      State state) {
  DropTransport();
  ticket_ = ticket;
  dial_url_ = url;
  kick_.reset();
  server_error_.reset();
  pending_failure_.reset();
  deadline_ = now_ms + options_.connect_timeout_ms;
  SetState(state);
  if (ticket.empty() && options_.token_source) {
    std::string token = options_.token_source();
    if (token.empty()) {
      return Failed(now_ms, CloseReason::kUnknown,
                    Status::Error(ErrorCode::kConnectionLost, "the token source gave no token"),
                    false);
    }
    return Open(now_ms, token);
  }
  Open(now_ms, options_.token);
}

void Connection::Open(double now_ms, const std::string& token) {
  if (token.size() > kMaxTokenBytes) {
    return Failed(now_ms, CloseReason::kServerError,
                  Status::TooLarge(ErrorCode::kTokenTooLong, "a login token is at most 512 bytes",
                                   token.size(), kMaxTokenBytes),
                  true);
  }
  std::optional<DialTarget> target = ParseDialTarget(dial_url_);
  if (!target) {
    return Failed(now_ms, CloseReason::kUnknown,
                  Status::Error(ErrorCode::kTransportUnsupported, "no transport for " + dial_url_),
                  true);
  }
  pending_token_ = token;
  target->max_inbound_frame_bytes = options_.max_inbound_frame_bytes;
  websocket_ = target->scheme != Scheme::kTcp;
  decoder_.Reset();
  link_ = ++next_link_;
  NewAction(ActionKind::kDial, link_).dial = std::move(*target);
}

void Connection::OnConnected(uint64_t link, std::string_view subprotocol, double now_ms) {
  if (link != link_ || link == 0) return;
  if (websocket_) {
    const std::optional<uint32_t> v = VersionOfSubprotocol(subprotocol);
    if (!v || *v < kMinProtocolVersion || *v > kProtocolVersion) {
      return Failed(now_ms, CloseReason::kProtocolVersion,
                    Status::Error(ErrorCode::kProtocolVersion,
                                  "the server accepted subprotocol \"" + std::string(subprotocol) +
                                      "\"; this library speaks zone.v9..zone.v10"),
                    true);
    }
    protocol_version_ = *v;
  } else {
    protocol_version_ = kProtocolVersion;
  }
  if (state_ == State::kConnecting) SetState(State::kHandshaking);
  deadline_ = now_ms + options_.login_timeout_ms;
  SendHello();
  handler_->OnHelloSent(now_ms);
}

void Connection::SendHello() {
  pb::ClientMessage m;
  pb::Hello* hello = m.mutable_hello();
  hello->set_protocol_version(protocol_version_);
  if (!ticket_.empty()) {
    hello->set_ticket(ticket_);
  } else {
    hello->set_player_name(options_.name);
    hello->set_auth_token(pending_token_);
  }
  Emit(m);
}

void Connection::OnBytes(uint64_t link, std::span<const uint8_t> bytes, double now_ms) {
  if (link != link_ || link == 0) return;
  bytes_in_ += bytes.size();
  decoder_.Feed(bytes);
  while (link == link_) {
    const std::optional<std::span<const uint8_t>> body = decoder_.Next();
    if (!body) break;
    Deliver(*body, now_ms);
  }
  if (link != link_ || decoder_.error() == FrameError::kNone) return;
  const bool too_large = decoder_.error() == FrameError::kTooLarge;
  Failed(now_ms, CloseReason::kUnknown,
         Status::Error(too_large ? ErrorCode::kInboundFrameTooLarge : ErrorCode::kDecodeFailed,
                       too_large ? "the server sent a frame over max_inbound_frame_bytes"
                                 : "the server sent a malformed frame length"),
         false);
}

void Connection::OnMessage(uint64_t link, std::span<const uint8_t> message, double now_ms) {
  if (link != link_ || link == 0) return;
  bytes_in_ += message.size();
  if (message.size() > options_.max_inbound_frame_bytes) {
    return Failed(now_ms, CloseReason::kUnknown,
                  Status::Error(ErrorCode::kInboundFrameTooLarge,
                                "the server sent a message over max_inbound_frame_bytes"),
                  false);
  }
  Deliver(message, now_ms);
}

void Connection::Deliver(std::span<const uint8_t> body, double now_ms) {
  google::protobuf::ArenaOptions arena_options;
  arena_options.initial_block = arena_block_.data();
  arena_options.initial_block_size = arena_block_.size();
  google::protobuf::Arena arena(arena_options);
  auto* m = google::protobuf::Arena::CreateMessage<pb::ServerMessage>(&arena);
  if (!m->ParseFromArray(body.data(), static_cast<int>(body.size()))) {
    return Failed(now_ms, CloseReason::kUnknown,
                  Status::Error(ErrorCode::kDecodeFailed, "a server frame that does not parse"),
                  false);
  }
  ++frames_;
  Received(*m, now_ms);
}

void Connection::Received(const pb::ServerMessage& m, double now_ms) {
  last_receive_at_ = std::max(last_receive_at_, now_ms);
  const uint64_t link = link_;
  handler_->OnServerMessage(m, now_ms);
  if (link != link_) return;  // the handler closed or left this link
  switch (m.kind_case()) {
    case pb::ServerMessage::kWelcome: {
      const State from = state_;
      deadline_ = kNever;
      attempts_ = 0;
      next_ping_at_ = now_ms;
      probe_deadline_ = kNever;
      current_url_ = dial_url_;
      if (from == State::kHandingOff) {
        ++handoffs_;
      } else if (from == State::kReconnecting || (ever_in_world_ && from != State::kInWorld)) {
        ++reconnects_;
      }
      ever_in_world_ = true;
      SetState(State::kInWorld);
      break;
    }
    case pb::ServerMessage::kZoneChanged:
      FollowHandoff(m, now_ms);
      break;
    case pb::ServerMessage::kKick:
      kick_ = m.kick().reason();
      break;
    case pb::ServerMessage::kError:
      server_error_ = Status::Server(m.error().code(), m.error().message());
      break;
    default:
      break;
  }
}

void Connection::FollowHandoff(const pb::ServerMessage& m, double now_ms) {
  const pb::ZoneChanged& z = m.zone_changed();
  if (z.server_address().empty() || z.ticket().empty()) return;  // a zone of this server
  std::string url = "tcp://" + z.server_address();
  if (websocket_) {
    if (z.websocket_url().empty()) {
      return Failed(now_ms, CloseReason::kHandoffFailed,
                    Status::Error(ErrorCode::kNoWebsocketAddress,
                                  "hand-off to " + z.zone_name() + " at " + z.server_address() +
                                      ": the server gave no WebSocket URL for it "
                                      "(ZoneChanged.websocket_url, protocol 10)"),
                    true);
    }
    url = options_.handoff_url ? options_.handoff_url(z.websocket_url(), dial_url_)
                               : z.websocket_url();
  }
  Dial(now_ms, url, z.ticket(), State::kHandingOff);
}

void Connection::OnClosed(uint64_t link, const CloseInfo& info, double now_ms) {
  if (link != link_ || link == 0) return;
  link_ = 0;
  Lost(info, now_ms);
}

void Connection::Lost(const CloseInfo& info, double now_ms) {
  if (closing_) {
    return Finish(kick_ == "logout" ? CloseReason::kLogout : CloseReason::kClientClosed,
                  Status::Ok());
  }
  if (pending_failure_) {
    Failure f = std::move(*pending_failure_);
    return Finish(f.reason, std::move(f.error));
  }
  if (server_error_) {
    Status e = std::move(*server_error_);
    // A hand-off's ticket refused: log in afresh at the entry (the login is routed).
    if (e.server_code == pb::ERROR_CODE_BAD_TICKET) {
      return Failed(now_ms, CloseReason::kHandoffFailed, std::move(e), false);
    }
    const bool final = IsFinalServerError(e.server_code);
    return Failed(now_ms, CloseReason::kServerError, std::move(e), final);
  }
  LostWithServerAnswer(info, now_ms);
}

void Connection::LostWithServerAnswer(const CloseInfo& info, double now_ms) {
  std::string kick = kick_.value_or("");
  if (!kick_ && info.websocket_code != 0 && info.websocket_code != 1000 &&
      info.websocket_code != 1006) {
    kick = info.reason;
  }
  if (!kick.empty()) {
    const CloseReason reason = CloseReasonOf(kick);
    if (reason == CloseReason::kZoneHandoff) {
      return Failed(
          now_ms, reason,
          Status::Error(ErrorCode::kHandoffFailed, "kicked for a hand-off without a ticket"),
          false);
    }
    return Failed(now_ms, reason, Status::Kicked(kick), IsFinalKick(reason));
  }
  if (info.http_status != 0 && info.http_status != 503) {
    const bool version = info.http_status == 400;
    return Failed(now_ms, version ? CloseReason::kProtocolVersion : CloseReason::kUnknown,
                  Status::Error(version ? ErrorCode::kProtocolVersion : ErrorCode::kConnectionLost,
                                "the WebSocket upgrade was refused with HTTP " +
                                    std::to_string(info.http_status) + ": " + info.reason),
                  true);
  }
  const std::string what = info.reason.empty() ? "closed" : info.reason;
  Failed(now_ms, state_ == State::kHandingOff ? CloseReason::kHandoffFailed : CloseReason::kUnknown,
         Status::Error(ErrorCode::kConnectionLost, what), false);
}

void Connection::Failed(double now_ms, CloseReason reason, Status error, bool final,
                        bool immediate) {
  if (final || !options_.reconnect.enabled) {
    if (link_ != 0) {
      // Let the server's close (and its Kick or Error) come first; the close finishes.
      pending_failure_ = Failure{.reason = reason, .error = std::move(error)};
      pending_failure_deadline_ = now_ms + kPendingFailureMs;
      NewAction(ActionKind::kClose, link_);
      return;
    }
    return Finish(reason, std::move(error));
  }
  DropTransport();
  ++attempts_;
  if (attempts_ > options_.reconnect.max_attempts) return Finish(CloseReason::kGaveUp, error);
  const double backoff =
      std::min(options_.reconnect.max_delay_ms,
               options_.reconnect.initial_delay_ms *
                   std::pow(2.0, static_cast<double>(std::min<uint32_t>(attempts_ - 1, 30))));
  next_attempt_at_ = immediate ? now_ms : now_ms + backoff * (0.5 + 0.5 * Random());
  last_failure_ = error;
  SetState(State::kReconnecting, reason, error);
}

void Connection::Finish(CloseReason reason, Status error) {
  DropTransport();
  pending_failure_.reset();
  pending_failure_deadline_ = kNever;
  close_reason_ = reason;
  close_error_ = std::move(error);
  deadline_ = kNever;
  const Status copy = close_error_;
  SetState(State::kClosed, reason, copy);
}

void Connection::DropTransport() {
  if (link_ == 0) return;
  NewAction(ActionKind::kClose, link_);
  link_ = 0;  // its events are ignored from now on
}

void Connection::SendPing(double now_ms) {
  pb::ClientMessage m;
  m.mutable_ping()->set_client_time(static_cast<uint64_t>(std::max(0.0, std::round(now_ms))));
  Emit(m);
  next_ping_at_ = now_ms + options_.ping_interval_ms;
}

double Connection::Random() {
  if (options_.random) return options_.random();
  // splitmix64: a few bits of spread per client, no clock read.
  random_state_ += 0x9E3779B97F4A7C15ULL;
  uint64_t z = random_state_;
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  z ^= z >> 31U;
  return static_cast<double>(z >> 11U) * 0x1.0p-53;
}

}  // namespace zs::client
