// Bot: one simulated player over real TCP, speaking only the public protocol (proto/).
//
// It logs in, then moves and swings according to its scenario, pings once a second for RTT,
// and keeps its own model of the world from the TickUpdates, checking the protocol's promises:
// no entity entered twice, no leave or update for an unknown entity, tick numbers without gaps
// (unless the server flags a resync), its own entity in every update, the acknowledged input
// sequence never going back. Each broken promise is counted by kind in Stats.
// Threads: all work on the bot's strand.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <array>
#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "client_sim/stats.h"
#include "core/rng.h"
#include "core/vec2.h"
#include "wire/frame_codec.h"

namespace zs::zone::v1 {
class ServerMessage;
class TickUpdate;
}  // namespace zs::zone::v1

namespace zs::sim {

enum class Scenario { kWander, kCrowd, kRaid, kChurn, kZones };

struct BotOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 7777;
  Scenario scenario = Scenario::kWander;
  double input_rate = 2;   // direction changes per second
  double swing_rate = 1;   // swings per second (raid: at least 2)
  double churn_min_s = 2;  // churn: stay this long at least...
  double churn_max_s = 6;  // ...and at most
};

class Bot : public std::enable_shared_from_this<Bot> {
 public:
  Bot(boost::asio::io_context& io, const BotOptions& options, Stats* stats, uint32_t index,
      uint64_t seed);
  void Start();
  // Stops for good: closes the socket, cancels timers (posted to the strand).
  void Stop();

 private:
  struct Seen {
    Vec2 position;
    bool monster = false;
    bool alive = true;
  };

  void Connect();
  void OnConnected(const boost::system::error_code& ec);
  void ReadMore();
  void OnMessage(const zone::v1::ServerMessage& m);
  void OnTick(const zone::v1::TickUpdate& t);
  void Act();  // one decision: move and/or swing, per scenario
  void SchedulePing();
  void FlushSamples();  // moves this bot's RTT and tick-interval samples into Stats
  void SendFrame(const std::string& body);
  void WriteMore();
  void Disconnect(const std::string& reason, bool reconnect);
  Vec2 Goal() const;

  boost::asio::io_context& io_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  BotOptions options_;
  Stats* stats_;
  uint32_t index_;
  Rng rng_;
  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer act_timer_;
  boost::asio::steady_timer ping_timer_;
  boost::asio::steady_timer life_timer_;
  wire::FrameDecoder decoder_{1 << 22};
  std::array<char, 32 * 1024> read_buf_{};
  std::deque<std::string> out_;
  bool writing_ = false;
  bool stopped_ = false;
  bool in_world_ = false;
  uint32_t conn_ = 0;  // connection number: handlers from an older connection are ignored

  // The bot's model of the world.
  uint32_t self_ = 0;
  uint32_t zone_id_ = 0;
  Vec2 zone_min_, zone_max_;
  Vec2 position_;
  uint64_t last_tick_ = 0;
  uint32_t last_ack_ = 0;
  uint32_t seq_ = 0;
  std::unordered_map<uint32_t, Seen> known_;
  std::chrono::steady_clock::time_point last_tick_at_;
  std::vector<double> rtt_batch_;
  std::vector<double> interval_batch_;
};

}  // namespace zs::sim
