// Bot: one simulated player over real TCP, speaking only the public protocol (proto/, version 10).
//
// A ZoneChanged with a server_address (a zone hosted by another server; "host:port", the host an
// address or a name) is followed: the bot closes, connects there and sends Hello{ticket}; the
// time from its last tick in the old zone to its first tick from the new server is a hand-off
// latency sample.
//
// It logs in, then moves and swings according to its scenario, and pings once a second for RTT.
// A verifying bot (index % verify_every == 0) parses every frame with protobuf and keeps a full
// WorldModel, checking every promise of the protocol (world_model.h lists them); the others read
// frames at minimal cost: the framing, the message kind and, from a TickUpdate, only the tick
// number, resync flag, ack and their own entity (wire_scan.h), which still lets them check tick
// gaps, their own presence and the ack. Each broken promise is counted by kind in Stats.
// Threads: all work on the bot's event loop, which one thread runs (main.cc: one loop per
// thread), so its handlers never run concurrently and need no strand.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "auth/token.h"
#include "client_sim/frame_reader.h"
#include "client_sim/input_ledger.h"
#include "client_sim/stats.h"
#include "client_sim/world_model.h"
#include "core/rng.h"
#include "core/vec2.h"

namespace zs::zone::v1 {
class ServerMessage;
class ZoneChanged;
}  // namespace zs::zone::v1

namespace zs::sim {

enum class Scenario { kWander, kCrowd, kRaid, kChurn, kZones, kSpread, kBorder };

// How a bot reaches the server: the game port (TCP, varint frames) or the WebSocket door.
enum class Transport : uint8_t { kTcp, kWebSocket };

struct BotOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 7777;  // the game port, or the WebSocket door's with kWebSocket
  Transport transport = Transport::kTcp;
  Scenario scenario = Scenario::kWander;
  double input_rate = 2;      // direction changes per second
  double swing_rate = 1;      // swings per second (raid: at least 2)
  double say_rate = 0;        // verifying bots: chat `say` lines per second
  double churn_min_s = 2;     // churn: stay this long at least...
  double churn_max_s = 6;     // ...and at most
  uint32_t verify_every = 1;  // bots whose index is a multiple of this verify; REQUIRES: >= 1
  // Token mode (the server's auth.mode: token): each login sends a new token, as a studio's login
  // service would mint it, for account token_account_base + index and the name "bot<index>",
  // signed with this (null: log in by name, auth mode none).
  const auth::TokenCodec* tokens = nullptr;
  uint64_t token_account_base = 1000000;
};

class Bot : public std::enable_shared_from_this<Bot> {
 public:
  // `chat`: where verifying bots record says for the end-of-run check (null: no check).
  Bot(boost::asio::io_context& io, const BotOptions& options, Stats* stats, uint32_t index,
      uint64_t seed, ChatCheck* chat = nullptr);
  void Start();
  // Stops for good: closes the socket, cancels timers (posted to its loop).
  void Stop();

 private:
  // Connects to host_:port_ (an address, or a name it resolves first).
  void Connect();
  void ConnectTo(const boost::asio::ip::tcp::endpoint& ep);
  void OnConnected(const boost::system::error_code& ec);
  void ReadMore();
  // Splits the n bytes just read into frames and handles each; false when the bot disconnected.
  bool OnRead(size_t n);
  // WebSocket: the server's answer to the upgrade, once it has all come; false when it refused.
  bool ReadUpgrade();
  void OnFrame(std::string_view body);       // a verifying bot: full protobuf parse
  void OnFrameCheap(std::string_view body);  // the others: wire scan
  void OnMessage(const zone::v1::ServerMessage& m);
  void OnWelcome();
  void AfterTick();
  void Act();  // one decision: move and/or swing (and say), per scenario
  void Swing(Vec2 dir);
  void Say();
  Vec2 Direction();
  void SchedulePing();
  void FlushSamples();  // moves this bot's RTT and tick-interval samples into Stats
  void SendFrame(const std::string& body);
  void WriteMore();
  void Disconnect(const std::string& reason, bool reconnect);
  // A ZoneChanged that names another server: go there with the ticket.
  void FollowHandoff(const zone::v1::ZoneChanged& z);
  // zones: after a lost connection, log in again at the first server a second later.
  void RetryFromTheStart();
  Vec2 Goal() const;
  Vec2 SpreadGoal();  // a random point in the zone, kept until the bot gets there
  // border: a point kBorderSwing beyond the zone's vertical centre line from where the bot
  // stands, up to kBorderSwing higher or lower, kept until it gets there: back and forth across
  // the line where a zone split in 2 x 1, 2 x 2 or 4 x n cells has a border (and, drifting up
  // and down, across the horizontal centre line of a 2 x 2 split).
  Vec2 BorderGoal();
  // Picks goal_ anew once the bot is within reach of it (or has none).
  template <typename Pick>
  Vec2 KeepGoal(Pick pick);

  boost::asio::io_context& io_;
  boost::asio::io_context::executor_type loop_;  // run by one thread only
  BotOptions options_;
  Stats* stats_;
  uint32_t index_;
  bool verify_;
  Rng rng_;
  boost::asio::ip::tcp::socket socket_;
  boost::asio::ip::tcp::resolver resolver_;  // host names in hand-offs
  boost::asio::steady_timer act_timer_;
  boost::asio::steady_timer ping_timer_;
  boost::asio::steady_timer life_timer_;
  FrameReader reader_{1 << 22};
  // WebSocket: the key of this connection's upgrade, until the server's answer is checked.
  std::string ws_key_;
  bool upgraded_ = false;
  // Frames queued while a write is in flight or while an Act is composing its inputs, written
  // together: one send() for a move and the swing that goes with it, as a game client sends its
  // frame's inputs in one packet.
  std::string out_;
  std::string in_flight_;  // the bytes of the write in progress
  bool writing_ = false;
  bool corked_ = false;  // an Act is composing: its frames leave together when it ends
  bool stopped_ = false;
  bool in_world_ = false;
  uint32_t conn_ = 0;  // connection number: handlers from an older connection are ignored
  // Where the next connection goes (the start: options_.host/port; then the server a hand-off
  // names) and the ticket its Hello carries (empty: log in by name).
  std::string host_;
  uint16_t port_ = 0;
  std::string ticket_;
  std::chrono::steady_clock::time_point last_tick_at_{};  // the last TickUpdate's arrival
  std::chrono::steady_clock::time_point handoff_from_{};  // while a hand-off waits for a tick
  bool handing_off_ = false;

  WorldModel model_;    // the bot's model of the world
  InputLedger ledger_;  // verifying bots: inputs sent and their results
  uint32_t seq_ = 0;
  uint32_t chat_seq_ = 0;
  bool has_goal_ = false;  // spread, border, raid while no monster is known: goal_ is set
  Vec2 goal_;
  Vec2 raid_offset_;        // raid: where around its monster this bot stands (bots do not stack)
  Vec2 last_act_position_;  // where the previous decision was taken
  std::vector<double> rtt_batch_;
};

}  // namespace zs::sim
