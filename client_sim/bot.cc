#include "client_sim/bot.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include <cmath>

#include "zone.pb.h"

namespace zs::sim {

namespace asio = boost::asio;
namespace pb = ::zs::zone::v1;
using Clock = std::chrono::steady_clock;

namespace {

Vec2 FromCm(int32_t x, int32_t y) {
  return {static_cast<float>(x) / 100.0f, static_cast<float>(y) / 100.0f};
}

std::chrono::milliseconds Ms(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

}  // namespace

Bot::Bot(asio::io_context& io, const BotOptions& options, Stats* stats, uint32_t index,
         uint64_t seed)
    : io_(io),
      strand_(asio::make_strand(io)),
      options_(options),
      stats_(stats),
      index_(index),
      rng_(seed),
      socket_(strand_),
      act_timer_(strand_),
      ping_timer_(strand_),
      life_timer_(strand_) {}

void Bot::Start() {
  asio::post(strand_, [self = shared_from_this()] { self->Connect(); });
}

void Bot::Stop() {
  asio::post(strand_, [self = shared_from_this()] {
    self->stopped_ = true;
    self->Disconnect("stopped", false);
  });
}

void Bot::Connect() {
  if (stopped_) return;
  ++conn_;  // handlers of the previous connection see a different number and stand down
  socket_ = asio::ip::tcp::socket(strand_);
  decoder_ = wire::FrameDecoder(1 << 22);
  known_.clear();
  last_tick_ = 0;
  last_ack_ = 0;
  in_world_ = false;
  out_.clear();
  writing_ = false;
  boost::system::error_code ec;
  const asio::ip::tcp::endpoint ep(asio::ip::make_address(options_.host, ec), options_.port);
  if (ec) {
    stats_->logins_failed.fetch_add(1);
    stats_->Error("bad_host");
    return;
  }
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
    return;
  }
  stats_->connected.fetch_add(1);
  boost::system::error_code ignored;
  socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
  pb::ClientMessage hello;
  hello.mutable_hello()->set_protocol_version(1);
  hello.mutable_hello()->set_player_name("bot" + std::to_string(index_));
  SendFrame(hello.SerializeAsString());
  ReadMore();
}

void Bot::ReadMore() {
  socket_.async_read_some(
      asio::buffer(read_buf_),
      [self = shared_from_this(), c = conn_](const boost::system::error_code& ec, size_t n) {
        if (c != self->conn_ || !self->socket_.is_open()) return;
        if (ec) {
          self->Disconnect(ec == asio::error::eof ? "closed_by_server" : ec.message(), true);
          return;
        }
        self->stats_->bytes_in.fetch_add(n);
        self->decoder_.Feed(std::string_view(self->read_buf_.data(), n));
        std::string body;
        for (;;) {
          const auto r = self->decoder_.Next(&body);
          if (r == wire::FrameDecoder::Result::kNeedMore) break;
          if (r == wire::FrameDecoder::Result::kError) {
            self->stats_->Violation("bad_frame");
            self->Disconnect("bad_frame", true);
            return;
          }
          pb::ServerMessage m;
          if (!m.ParseFromString(body)) {
            self->stats_->Violation("unparsable_message");
            continue;
          }
          self->stats_->messages_in.fetch_add(1);
          self->OnMessage(m);
          if (!self->socket_.is_open() || c != self->conn_) return;
        }
        self->ReadMore();
      });
}

void Bot::OnMessage(const pb::ServerMessage& m) {
  switch (m.kind_case()) {
    case pb::ServerMessage::kWelcome: {
      const pb::Welcome& w = m.welcome();
      self_ = w.entity_id();
      zone_id_ = w.zone_id();
      zone_min_ = FromCm(w.zone_min_x(), w.zone_min_y());
      zone_max_ = FromCm(w.zone_max_x(), w.zone_max_y());
      position_ = FromCm(w.x(), w.y());
      in_world_ = true;
      stats_->logins_ok.fetch_add(1);
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
      break;
    }
    case pb::ServerMessage::kTick:
      OnTick(m.tick());
      break;
    case pb::ServerMessage::kZoneChanged: {
      const pb::ZoneChanged& z = m.zone_changed();
      if (!known_.empty()) stats_->Violation("zone_change_without_leave");
      known_.clear();
      zone_id_ = z.zone_id();
      zone_min_ = FromCm(z.zone_min_x(), z.zone_min_y());
      zone_max_ = FromCm(z.zone_max_x(), z.zone_max_y());
      position_ = FromCm(z.x(), z.y());
      break;
    }
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

void Bot::OnTick(const pb::TickUpdate& t) {
  stats_->ticks.fetch_add(1);
  const auto now = Clock::now();
  if (!in_world_) stats_->Violation("tick_before_welcome");
  if (t.resync()) {
    known_.clear();
  } else if (last_tick_ != 0 && t.tick() != last_tick_ + 1) {
    stats_->Violation("tick_gap");
  }
  if (last_tick_ != 0 && t.tick() == last_tick_ + 1 && interval_batch_.size() < 100000) {
    interval_batch_.push_back(
        std::chrono::duration<double, std::milli>(now - last_tick_at_).count());
  }
  last_tick_ = t.tick();
  last_tick_at_ = now;
  if (t.self().id() != self_) stats_->Violation("missing_self");
  if (t.self().has_x()) position_ = FromCm(t.self().x(), t.self().y());
  if (t.last_input_seq() < last_ack_) stats_->Violation("ack_went_back");
  last_ack_ = std::max(last_ack_, t.last_input_seq());
  for (uint32_t id : t.left()) {
    if (known_.erase(id) == 0) stats_->Violation("unknown_leave");
  }
  for (const pb::EntityEnter& e : t.entered()) {
    const bool fresh = known_
                           .emplace(e.id(), Seen{FromCm(e.x(), e.y()),
                                                 e.kind() == pb::ENTITY_KIND_MONSTER, e.alive()})
                           .second;
    if (!fresh) stats_->Violation("entered_twice");
    if (e.id() == self_) stats_->Violation("self_entered");
  }
  for (const pb::EntityUpdate& u : t.updated()) {
    auto it = known_.find(u.id());
    if (it == known_.end()) {
      stats_->Violation("unknown_update");
      continue;
    }
    if (u.has_x()) it->second.position = FromCm(u.x(), u.y());
    if (u.has_alive()) it->second.alive = u.alive();
  }
  if (rtt_batch_.size() + interval_batch_.size() >= 64) FlushSamples();
}

void Bot::FlushSamples() {
  std::lock_guard lock(stats_->mu);
  stats_->rtt_ms.insert(stats_->rtt_ms.end(), rtt_batch_.begin(), rtt_batch_.end());
  stats_->tick_interval_ms.insert(stats_->tick_interval_ms.end(), interval_batch_.begin(),
                                  interval_batch_.end());
  rtt_batch_.clear();
  interval_batch_.clear();
}

Vec2 Bot::Goal() const {
  const Vec2 centre{(zone_min_.x + zone_max_.x) * 0.5f, (zone_min_.y + zone_max_.y) * 0.5f};
  switch (options_.scenario) {
    case Scenario::kCrowd:
      return centre;  // everyone converges on one square: the worst case for AOI
    case Scenario::kZones:
      // The default world: the town's portal is at its east edge, the field's at its west.
      return zone_id_ == 1 ? Vec2{zone_max_.x, centre.y} : Vec2{zone_min_.x, centre.y};
    case Scenario::kRaid: {
      const Seen* best = nullptr;
      float best_d = 0;
      for (const auto& [id, s] : known_) {
        if (!s.monster || !s.alive) continue;
        const float d = DistanceSq(s.position, position_);
        if (best == nullptr || d < best_d) best = &s, best_d = d;
      }
      if (best != nullptr) return best->position;
      return zone_id_ == 1 ? Vec2{zone_max_.x, centre.y} : Vec2{300, 300};  // go find some
    }
    default:
      return position_;
  }
}

void Bot::Act() {
  if (stopped_ || !in_world_ || !socket_.is_open()) return;
  Vec2 dir;
  if (options_.scenario == Scenario::kWander || options_.scenario == Scenario::kChurn) {
    dir = FromAngle(rng_.Range(-kPi, kPi));
  } else {
    const Vec2 to = Goal() - position_;
    const float d = Length(to);
    // Near the goal, mill about instead of all standing on one point.
    dir = d > 3.0f ? to * (1.0f / d) : FromAngle(rng_.Range(-kPi, kPi)) * 0.3f;
  }
  pb::ClientMessage m;
  m.mutable_move()->set_seq(++seq_);
  m.mutable_move()->set_direction_x(dir.x);
  m.mutable_move()->set_direction_y(dir.y);
  SendFrame(m.SerializeAsString());
  const double swing_rate = options_.scenario == Scenario::kRaid
                                ? std::max(2.0, options_.swing_rate)
                                : options_.swing_rate;
  if (swing_rate > 0 && rng_.Unit() < swing_rate / std::max(0.1, options_.input_rate)) {
    const float facing = std::atan2(dir.y, dir.x);
    pb::ClientMessage s;
    s.mutable_skill()->set_seq(++seq_);
    s.mutable_skill()->set_skill_id(1 + rng_.Below(4));
    s.mutable_skill()->set_facing(
        static_cast<uint32_t>(
            std::lround((facing < 0 ? facing + 2 * kPi : facing) / (2 * kPi) * 65536.0)) &
        0xFFFFu);
    const Vec2 target = position_ + dir * 8.0f;
    s.mutable_skill()->set_target_x(static_cast<int32_t>(target.x * 100));
    s.mutable_skill()->set_target_y(static_cast<int32_t>(target.y * 100));
    SendFrame(s.SerializeAsString());
  }
  act_timer_.expires_after(Ms(1.0 / std::max(0.1, options_.input_rate) * rng_.Range(0.8f, 1.2f)));
  act_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (!ec) self->Act();
  });
}

void Bot::SchedulePing() {
  ping_timer_.expires_after(Ms(rng_.Range(0.8f, 1.2f)));
  ping_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (ec || self->stopped_ || !self->socket_.is_open()) return;
    pb::ClientMessage m;
    m.mutable_ping()->set_client_time(
        static_cast<uint64_t>(Clock::now().time_since_epoch().count()));
    self->SendFrame(m.SerializeAsString());
    self->SchedulePing();
  });
}

void Bot::SendFrame(const std::string& body) {
  std::string frame;
  wire::AppendFrame(body, &frame);
  stats_->messages_out.fetch_add(1);
  out_.push_back(std::move(frame));
  if (!writing_) WriteMore();
}

void Bot::WriteMore() {
  if (out_.empty() || !socket_.is_open()) return;
  writing_ = true;
  asio::async_write(
      socket_, asio::buffer(out_.front()),
      [self = shared_from_this(), c = conn_](const boost::system::error_code& ec, size_t n) {
        if (c != self->conn_) return;
        self->writing_ = false;
        if (ec) return;  // the read side reports the disconnect
        self->stats_->bytes_out.fetch_add(n);
        self->out_.pop_front();
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
  stats_->connected.fetch_sub(1);
  if (in_world_) stats_->in_world.fetch_sub(1);
  if (!in_world_ && !stopped_) stats_->logins_failed.fetch_add(1);
  in_world_ = false;
  if (reason != "stopped" && reason != "churn") {
    std::lock_guard lock(stats_->mu);
    ++stats_->disconnects[reason];
  }
  FlushSamples();
  if (reconnect && !stopped_ && options_.scenario == Scenario::kChurn) {
    life_timer_.expires_after(Ms(rng_.Range(0.2f, 1.0f)));
    life_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (!ec) self->Connect();
    });
  }
}

}  // namespace zs::sim
