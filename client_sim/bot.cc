#include "client_sim/bot.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <span>

#include "client_sim/wire_scan.h"
#include "client_sim/ws_client.h"
#include "wire/frame_codec.h"
#include "wire/protocol.h"
#include "zone.pb.h"

namespace zs::sim {

namespace asio = boost::asio;
namespace pb = ::zs::zone::v1;
using Clock = std::chrono::steady_clock;

namespace {

constexpr float kArrived = 3.0f;       // metres: close enough to a goal
constexpr float kBorderSwing = 25.0f;  // border: metres beyond the centre line each way

std::chrono::milliseconds Ms(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

}  // namespace

Bot::Bot(asio::io_context& io, const BotOptions& options, Stats* stats, uint32_t index,
         uint64_t seed, ChatCheck* chat)
    : io_(io),
      loop_(io.get_executor()),
      options_(options),
      stats_(stats),
      index_(index),
      verify_(index % std::max(1u, options.verify_every) == 0),
      rng_(seed),
      socket_(loop_),
      resolver_(loop_),
      act_timer_(loop_),
      ping_timer_(loop_),
      life_timer_(loop_),
      model_(stats, verify_ ? chat : nullptr),
      ledger_(stats),
      raid_offset_(FromAngle(rng_.Range(-kPi, kPi)) * rng_.Range(0.5f, 1.5f)) {}

void Bot::Start() {
  asio::post(loop_, [self = shared_from_this()] { self->Connect(); });
}

void Bot::Stop() {
  asio::post(loop_, [self = shared_from_this()] {
    self->stopped_ = true;
    self->Disconnect("stopped", false);
  });
}

void Bot::Connect() {
  if (stopped_) return;
  ++conn_;  // handlers of the previous connection see a different number and stand down
  socket_ = asio::ip::tcp::socket(loop_);
  reader_ = FrameReader(1 << 22, options_.transport == Transport::kWebSocket
                                     ? FrameReader::Framing::kWebSocket
                                     : FrameReader::Framing::kVarint);
  upgraded_ = false;
  model_.Reset();
  ledger_.Reset();
  in_world_ = false;
  out_.clear();  // the old socket is closed: its write, if any, ends with conn_ no longer its own
  in_flight_.clear();
  writing_ = false;
  corked_ = false;
  if (host_.empty()) {
    host_ = options_.host;
    port_ = options_.port;
  }
  boost::system::error_code ec;
  const asio::ip::address ip = asio::ip::make_address(host_, ec);
  if (!ec) {
    ConnectTo(asio::ip::tcp::endpoint(ip, port_));
    return;
  }
  // A host name: a hand-off to a node that announces one (a compose service such as
  // `zone-field:7777`; options_.host was resolved once at start). Resolved off the loop by
  // Asio's resolver thread; a name that does not resolve fails like a refused connection.
  resolver_.async_resolve(
      host_, std::to_string(port_),
      [self = shared_from_this(), c = conn_](const boost::system::error_code& e,
                                             const asio::ip::tcp::resolver::results_type& found) {
        if (c != self->conn_) return;
        if (e || found.empty()) {
          self->OnConnected(e ? e : make_error_code(asio::error::host_not_found));
          return;
        }
        self->ConnectTo(found.begin()->endpoint());
      });
}

void Bot::ConnectTo(const asio::ip::tcp::endpoint& ep) {
  if (stopped_) return;
  socket_.async_connect(ep,
                        [self = shared_from_this(), c = conn_](const boost::system::error_code& e) {
                          if (c == self->conn_) self->OnConnected(e);
                        });
}

void Bot::OnConnected(const boost::system::error_code& ec) {
  if (stopped_) return;
  if (ec) {
    stats_->logins_failed.fetch_add(1);
    stats_->Error("connect: " + ec.message());
    if (options_.scenario == Scenario::kZones) RetryFromTheStart();
    return;
  }
  stats_->connected.fetch_add(1);
  boost::system::error_code ignored;
  socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
  pb::ClientMessage hello;
  hello.mutable_hello()->set_protocol_version(wire::kProtocolVersion);
  const std::string name = "bot" + std::to_string(index_);
  hello.mutable_hello()->set_player_name(name);
  if (options_.tokens != nullptr && ticket_.empty()) {  // a token logs in once: one per login
    constexpr int64_t kTokenSeconds = 300;
    const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    hello.mutable_hello()->set_auth_token(
        options_.tokens->Sign({.account = options_.token_account_base + index_,
                               .name = name,
                               .expiry = now + kTokenSeconds}));
  }
  if (!ticket_.empty()) hello.mutable_hello()->set_ticket(ticket_);
  ticket_.clear();                                    // a ticket is good once
  if (options_.transport == Transport::kWebSocket) {  // the upgrade, then the Hello behind it
    std::array<uint8_t, 16> nonce{};
    for (uint8_t& b : nonce) b = static_cast<uint8_t>(rng_.Next());
    ws_key_ = WsKey(nonce);
    out_ += WsUpgradeRequest(host_, port_, ws_key_, wire::kProtocolVersion);
  }
  SendFrame(hello.SerializeAsString());
  ReadMore();
}

void Bot::ReadMore() {
  const std::span<char> room = reader_.Writable();
  socket_.async_read_some(
      asio::buffer(room.data(), room.size()),
      [self = shared_from_this(), c = conn_](const boost::system::error_code& ec, size_t n) {
        if (c != self->conn_ || !self->socket_.is_open()) return;
        if (ec) {
          self->Disconnect(ec == asio::error::eof ? "closed_by_server" : ec.message(), true);
          return;
        }
        if (self->OnRead(n) && c == self->conn_) self->ReadMore();
      });
}

bool Bot::OnRead(size_t n) {
  const uint32_t c = conn_;
  stats_->bytes_in.fetch_add(n);
  reader_.Commit(n);
  if (options_.transport == Transport::kWebSocket && !upgraded_ && !ReadUpgrade()) {
    return upgraded_ || socket_.is_open();  // waiting for the rest of the answer, or refused
  }
  std::string_view body;
  for (;;) {
    const auto r = reader_.Next(&body);
    if (r == FrameReader::Result::kNeedMore) return true;
    if (r == FrameReader::Result::kError) {
      stats_->Violation("bad_frame");
      Disconnect("bad_frame", true);
      return false;
    }
    if (r == FrameReader::Result::kClose) {  // the close frame names why, as a Kick does
      Disconnect(body.empty() ? "closed_by_server" : std::string(body), true);
      return false;
    }
    if (verify_) {
      OnFrame(body);
    } else {
      OnFrameCheap(body);
    }
    if (!socket_.is_open() || c != conn_) return false;
  }
}

void Bot::OnFrame(std::string_view body) {
  pb::ServerMessage m;
  if (!m.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
    stats_->Violation("unparsable_message");
    return;
  }
  stats_->messages_in.fetch_add(1);
  OnMessage(m);
}

void Bot::OnFrameCheap(std::string_view body) {
  ServerKind kind;
  if (!ScanServerMessage(body, &kind)) {
    stats_->Violation("bad_frame");
    return;
  }
  if (kind.field != pb::ServerMessage::kTickFieldNumber) {
    OnFrame(body);  // rare (welcome, zone change, pong, error, kick) or empty: parse it all
    return;
  }
  stats_->messages_in.fetch_add(1);
  TickSummary tick;
  if (!ScanTickUpdate(kind.payload, &tick)) {
    stats_->Violation("bad_frame");
    return;
  }
  model_.ApplyTickSummary(tick, Clock::now());
  AfterTick();
}

void Bot::OnMessage(const pb::ServerMessage& m) {
  switch (m.kind_case()) {
    case pb::ServerMessage::kWelcome:
      model_.Welcome(m.welcome());
      OnWelcome();
      break;
    case pb::ServerMessage::kTick:
      model_.ApplyTick(m.tick(), Clock::now());
      ledger_.Apply(m.tick(), Clock::now());
      AfterTick();
      break;
    case pb::ServerMessage::kZoneChanged:
      if (!m.zone_changed().server_address().empty()) {
        FollowHandoff(m.zone_changed());
        break;
      }
      model_.ZoneChanged(m.zone_changed());
      has_goal_ = false;
      break;
    case pb::ServerMessage::kNotice:
      stats_->Error("notice: " + m.notice().text());
      has_goal_ = false;
      break;
    case pb::ServerMessage::kPong: {
      const auto sent = Clock::time_point(Clock::duration(m.pong().client_time()));
      rtt_batch_.push_back(std::chrono::duration<double, std::milli>(Clock::now() - sent).count());
      break;
    }
    case pb::ServerMessage::kError:
      stats_->Error("error: " + m.error().message());
      break;
    case pb::ServerMessage::kKick:
      stats_->Error("kick: " + m.kick().reason());
      break;
    case pb::ServerMessage::KIND_NOT_SET:
      stats_->Violation("empty_server_message");
      break;
  }
}

void Bot::OnWelcome() {
  in_world_ = true;
  has_goal_ = false;
  last_act_position_ = model_.position();
  if (!handing_off_) stats_->logins_ok.fetch_add(1);  // a hand-off is not a new login
  stats_->in_world.fetch_add(1);
  Act();
  SchedulePing();
  if (options_.scenario == Scenario::kChurn) {
    life_timer_.expires_after(Ms(rng_.Range(static_cast<float>(options_.churn_min_s),
                                            static_cast<float>(options_.churn_max_s))));
    life_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (!ec) self->Disconnect("churn", true);
    });
  }
}

void Bot::AfterTick() {
  last_tick_at_ = Clock::now();
  if (handing_off_) {
    handing_off_ = false;
    const double ms =
        std::chrono::duration<double, std::milli>(last_tick_at_ - handoff_from_).count();
    std::lock_guard lock(stats_->mu);
    stats_->handoff_ms.push_back(ms);
  }
  if (rtt_batch_.size() + model_.intervals()->size() >= 64) FlushSamples();
}

void Bot::RetryFromTheStart() {
  // A server that went away (a node of a cluster restarting): back to the first server after
  // a second; it routes the login to wherever the character is now.
  if (handing_off_) {
    handing_off_ = false;
    stats_->handoffs_failed.fetch_add(1);
    stats_->Error("hand-off failed: could not reach " + host_ + ":" + std::to_string(port_));
  }
  host_.clear();
  ticket_.clear();
  life_timer_.expires_after(Ms(rng_.Range(0.8f, 1.2f)));
  life_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (!ec) self->Connect();
  });
}

void Bot::FollowHandoff(const pb::ZoneChanged& z) {
  const std::string& address = z.server_address();
  const size_t colon = address.rfind(':');
  int port = 0;
  if (colon != std::string::npos) port = std::atoi(address.c_str() + colon + 1);
  if (colon == std::string::npos || port <= 0 || port > 65535 || z.ticket().empty()) {
    stats_->Violation("bad_handoff");
    return;
  }
  host_ = address.substr(0, colon);
  port_ = static_cast<uint16_t>(port);
  ticket_ = z.ticket();
  handoff_from_ = in_world_ ? last_tick_at_ : Clock::now();  // a routed login: from now
  handing_off_ = true;
  stats_->handoffs.fetch_add(1);
  Disconnect("zone_handoff", true);
}

void Bot::FlushSamples() {
  std::lock_guard lock(stats_->mu);
  stats_->rtt_ms.insert(stats_->rtt_ms.end(), rtt_batch_.begin(), rtt_batch_.end());
  std::vector<double>& intervals = *model_.intervals();
  stats_->tick_interval_ms.insert(stats_->tick_interval_ms.end(), intervals.begin(),
                                  intervals.end());
  rtt_batch_.clear();
  intervals.clear();
}

Vec2 Bot::Goal() const {
  const Vec2 lo = model_.zone_min(), hi = model_.zone_max();
  const Vec2 centre{(lo.x + hi.x) * 0.5f, (lo.y + hi.y) * 0.5f};
  switch (options_.scenario) {
    case Scenario::kCrowd:
      return centre;  // everyone converges on one square: the worst case for AOI
    case Scenario::kZones:
      // The default world: the town's portal is at its east edge, the field's at its west.
      return model_.zone_id() == 1 ? Vec2{hi.x, centre.y} : Vec2{lo.x, centre.y};
    case Scenario::kRaid: {
      // Each bot its own side of its monster; with none known, out of the town through its
      // portal, or each its own way across the field (Direction: SpreadGoal).
      if (const std::optional<Vec2> monster = model_.NearestMonster()) {
        return *monster + raid_offset_;
      }
      return Vec2{hi.x, centre.y};
    }
    default:
      return model_.position();
  }
}

template <typename Pick>
Vec2 Bot::KeepGoal(Pick pick) {
  const Vec2 at = model_.position();
  // Arrived: within a few metres, or nearer than the distance walked since the last decision
  // (a fast walker would otherwise overshoot and turn back and forth around its goal).
  const float reach = std::max(kArrived, Length(at - last_act_position_));
  if (!has_goal_ || DistanceSq(goal_, at) <= reach * reach) {
    goal_ = pick(at, model_.zone_min() + Vec2{1, 1}, model_.zone_max() - Vec2{1, 1});
    has_goal_ = true;
  }
  last_act_position_ = at;
  return goal_;
}

Vec2 Bot::SpreadGoal() {
  return KeepGoal([this](Vec2, Vec2 lo, Vec2 hi) {
    return Vec2{rng_.Range(lo.x, std::max(lo.x, hi.x)), rng_.Range(lo.y, std::max(lo.y, hi.y))};
  });
}

Vec2 Bot::BorderGoal() {
  return KeepGoal([this](Vec2 at, Vec2 lo, Vec2 hi) {
    const float centre = (lo.x + hi.x) * 0.5f;
    const float x = at.x < centre ? centre + kBorderSwing : centre - kBorderSwing;
    const float y = at.y + rng_.Range(-kBorderSwing, kBorderSwing);
    return Vec2{std::clamp(x, lo.x, std::max(lo.x, hi.x)),
                std::clamp(y, lo.y, std::max(lo.y, hi.y))};
  });
}

Vec2 Bot::Direction() {
  if (options_.scenario == Scenario::kWander || options_.scenario == Scenario::kChurn) {
    return FromAngle(rng_.Range(-kPi, kPi));
  }
  const Vec2 at = model_.position();
  if (options_.scenario == Scenario::kSpread || options_.scenario == Scenario::kBorder) {
    const Vec2 to = (options_.scenario == Scenario::kSpread ? SpreadGoal() : BorderGoal()) - at;
    const float d = Length(to);
    return d > 1e-3f ? to * (1.0f / d) : Vec2{};
  }
  const bool searching = options_.scenario == Scenario::kRaid && model_.zone_id() != 1 &&
                         !model_.NearestMonster().has_value();
  const Vec2 to = (searching ? SpreadGoal() : Goal()) - at;
  const float d = Length(to);
  // Near the goal, mill about instead of all standing on one point.
  return d > kArrived ? to * (1.0f / d) : FromAngle(rng_.Range(-kPi, kPi)) * 0.3f;
}

void Bot::Act() {
  if (stopped_ || !in_world_ || !socket_.is_open()) return;
  const Vec2 dir = Direction();
  corked_ = true;  // the move and what goes with it leave in one write
  pb::ClientMessage m;
  m.mutable_move()->set_seq(++seq_);
  m.mutable_move()->set_direction_x(dir.x);
  m.mutable_move()->set_direction_y(dir.y);
  SendFrame(m.SerializeAsString());
  if (verify_) ledger_.Sent(InputLedger::Kind::kMove, seq_, Clock::now());
  const double swing_rate = options_.scenario == Scenario::kRaid
                                ? std::max(2.0, options_.swing_rate)
                                : options_.swing_rate;
  const double per_act = 1.0 / std::max(0.1, options_.input_rate);
  if (swing_rate > 0 && rng_.Unit() < swing_rate * per_act) Swing(dir);
  if (verify_ && options_.say_rate > 0 && rng_.Unit() < options_.say_rate * per_act) Say();
  corked_ = false;
  if (!writing_) WriteMore();
  act_timer_.expires_after(Ms(per_act * rng_.Range(0.8f, 1.2f)));
  act_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (!ec) self->Act();
  });
}

void Bot::Swing(Vec2 dir) {
  const float facing = std::atan2(dir.y, dir.x);
  pb::ClientMessage s;
  s.mutable_skill()->set_seq(++seq_);
  s.mutable_skill()->set_skill_id(1 + rng_.Below(4));
  s.mutable_skill()->set_facing(
      static_cast<uint32_t>(
          std::lround((facing < 0 ? facing + 2 * kPi : facing) / (2 * kPi) * 65536.0)) &
      0xFFFFu);
  const Vec2 target = model_.position() + dir * 8.0f;
  s.mutable_skill()->set_target_x(static_cast<int32_t>(target.x * 100));
  s.mutable_skill()->set_target_y(static_cast<int32_t>(target.y * 100));
  SendFrame(s.SerializeAsString());
  if (verify_) ledger_.Sent(InputLedger::Kind::kSkill, seq_, Clock::now());
}

void Bot::Say() {
  // A text unique in the run: ChatCheck matches what was heard with what was said by it.
  pb::ClientMessage c;
  c.mutable_chat()->set_seq(++chat_seq_);
  c.mutable_chat()->set_channel(pb::CHAT_CHANNEL_SAY);
  c.mutable_chat()->set_text("say " + std::to_string(index_) + "." + std::to_string(conn_) + "." +
                             std::to_string(chat_seq_));
  SendFrame(c.SerializeAsString());
  ledger_.Sent(InputLedger::Kind::kChat, chat_seq_, Clock::now());
  stats_->says.fetch_add(1);
}

void Bot::SchedulePing() {
  ping_timer_.expires_after(Ms(rng_.Range(0.8f, 1.2f)));
  ping_timer_.async_wait(
      [self = shared_from_this(), c = conn_](const boost::system::error_code& ec) {
        // A ping of an earlier connection (its timer fired before the cancel) is dropped: on a new
        // connection it would go out before the Hello.
        if (ec || self->stopped_ || c != self->conn_ || !self->in_world_) return;
        pb::ClientMessage m;
        m.mutable_ping()->set_client_time(
            static_cast<uint64_t>(Clock::now().time_since_epoch().count()));
        self->SendFrame(m.SerializeAsString());
        self->SchedulePing();
      });
}

bool Bot::ReadUpgrade() {
  const std::string_view pending = reader_.Pending();
  const size_t end = WsResponseEnd(pending);
  if (end == std::string_view::npos) return false;
  const std::string problem =
      CheckWsUpgrade(pending.substr(0, end), ws_key_, wire::kProtocolVersion);
  reader_.Consume(end);
  if (!problem.empty()) {
    stats_->logins_failed.fetch_add(1);
    stats_->Error(problem);
    Disconnect("upgrade_refused", true);
    return false;
  }
  upgraded_ = true;
  return true;
}

void Bot::SendFrame(const std::string& body) {
  if (options_.transport == Transport::kWebSocket) {
    AppendMaskedFrame(body, static_cast<uint32_t>(rng_.Next()), &out_);
  } else {
    wire::AppendFrame(body, &out_);
  }
  stats_->messages_out.fetch_add(1);
  if (!writing_ && !corked_) WriteMore();
}

void Bot::WriteMore() {
  if (out_.empty() || !socket_.is_open()) return;
  writing_ = true;
  in_flight_.swap(out_);  // out_ takes the old buffer, cleared: its capacity is reused
  out_.clear();
  asio::async_write(
      socket_, asio::buffer(in_flight_),
      [self = shared_from_this(), c = conn_](const boost::system::error_code& ec, size_t n) {
        if (c != self->conn_) return;
        self->writing_ = false;
        if (ec) return;  // the read side reports the disconnect
        self->stats_->bytes_out.fetch_add(n);
        self->in_flight_.clear();
        self->WriteMore();
      });
}

void Bot::Disconnect(const std::string& reason, bool reconnect) {
  if (!socket_.is_open()) return;
  boost::system::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  act_timer_.cancel();
  ping_timer_.cancel();
  life_timer_.cancel();
  resolver_.cancel();
  model_.FlushChat();  // what this connection heard goes to the end-of-run chat check
  stats_->connected.fetch_sub(1);
  if (in_world_) stats_->in_world.fetch_sub(1);
  const bool handoff = reason == "zone_handoff";
  if (!in_world_ && !stopped_ && !handoff) stats_->logins_failed.fetch_add(1);
  if (!handoff && handing_off_ && !stopped_) {  // the new server closed before its first tick
    handing_off_ = false;
    stats_->handoffs_failed.fetch_add(1);
    stats_->Error("hand-off failed: " + reason);
  }
  in_world_ = false;
  if (reason != "stopped" && reason != "churn" && !handoff) {
    std::lock_guard lock(stats_->mu);
    ++stats_->disconnects[reason];
  }
  FlushSamples();
  if (handoff && !stopped_) {
    asio::post(loop_, [self = shared_from_this()] { self->Connect(); });
    return;
  }
  if (reconnect && !stopped_ && options_.scenario == Scenario::kZones) {
    RetryFromTheStart();
    return;
  }
  if (reconnect && !stopped_ && options_.scenario == Scenario::kChurn) {
    life_timer_.expires_after(Ms(rng_.Range(0.2f, 1.0f)));
    life_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (!ec) self->Connect();
    });
  }
}

}  // namespace zs::sim
