// Connection: the session's state machine, sans I/O, as the TypeScript SDK's connection.ts. It
// dials, logs in, follows hand-offs, notices a dead connection, reconnects with jittered
// exponential backoff and resumes the same character.
//
//   idle --Start--> connecting --OnConnected--> handshaking --Welcome--> in_world
//   in_world --ZoneChanged{server_address, ticket}--> handing_off --Welcome there--> in_world
//   in_world / connecting / handshaking --lost, silent, or a retryable Error/Kick--> reconnecting
//   reconnecting --backoff, or Resume--> (dial, Hello) --Welcome--> in_world
//   any --Close, a final Error/Kick, attempts exhausted--> closed
//
// No sockets, threads or clocks inside: it asks for I/O with Actions (dial a target, send bytes
// on a link, close a link) that the driver takes with TakeActions(), and hears back through
// OnConnected / OnBytes (TCP) / OnMessage (WebSocket) / OnClosed, each naming the link it is
// about (events of a link it left are ignored). Every dialled link gets exactly one OnClosed
// from the driver, also after a kClose action. Poll(now) runs the timers (connect and login
// deadlines, silence, pings, backoff). Times are milliseconds of one clock, passed in.
//
// Messages are parsed into a protobuf arena over a block the connection keeps, and actions
// reuse their byte buffers: no allocation per frame once warm, beyond what protobuf needs past
// the block (ConnectionOptions::parse_block_bytes, 64 KiB by default) for a larger frame.
//
// Threads: one; not thread-safe. The handler is called inside the call that caused it
// (OnBytes, OnMessage, OnClosed, Poll, ...); it may call Send and Close, but not OnBytes,
// OnMessage, OnClosed or TakeActions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "zs_client/errors.h"
#include "zs_client/framing.h"
#include "zs_client/protocol.h"

namespace google::protobuf {
class MessageLite;
}  // namespace google::protobuf

namespace zs::zone::v1 {
class ServerMessage;
class ClientMessage;
}  // namespace zs::zone::v1

namespace zs::client {

enum class State : uint8_t {
  kIdle,
  kConnecting,
  kHandshaking,
  kInWorld,
  kReconnecting,
  kHandingOff,
  kClosed,
};
[[nodiscard]] std::string_view StateName(State state);

enum class Scheme : uint8_t { kTcp, kWs, kWss };

// Where to dial: tcp://host:port, ws://host[:port]/path or wss://host[:port]/path.
struct DialTarget {
  std::string url;
  Scheme scheme = Scheme::kTcp;
  std::string host;  // without brackets for IPv6
  uint16_t port = 0;
  std::string path;  // WebSocket: the request target ("/" when the URL has none)
  std::vector<std::string> subprotocols;  // WebSocket: zone.v<N> to offer, newest first
  size_t max_inbound_frame_bytes = kMaxInboundFrameBytes;
};
// nullopt for a URL that is none of the three.
[[nodiscard]] std::optional<DialTarget> ParseDialTarget(std::string_view url);

enum class ActionKind : uint8_t {
  kDial,   // open `dial` as link `link`; report OnConnected or OnClosed
  kSend,   // send `bytes` on `link`: TCP as they are (framed), WebSocket as one binary message
  kClose,  // close `link`; report OnClosed when it is closed
};

struct Action {
  ActionKind kind = ActionKind::kSend;
  uint64_t link = 0;
  DialTarget dial;             // kDial
  std::vector<uint8_t> bytes;  // kSend
};

// How a link ended, as the driver saw it.
struct CloseInfo {
  int websocket_code = 0;  // the close frame's code (0: none)
  std::string reason;      // the close frame's reason (the server's Kick reason) or a description
  int http_status = 0;     // a refused WebSocket handshake's HTTP status (426, 400, 403, 503)
};

struct ReconnectOptions {
  double initial_delay_ms = 100;
  double max_delay_ms = 1500;
  uint32_t max_attempts = std::numeric_limits<uint32_t>::max();  // in a row, then closed (gave_up)
  bool enabled = true;  // false: the first loss closes the client
};

struct ConnectionOptions {
  std::string url;                                 // tcp://host:port, ws://host:port/, wss://...
  std::string name;                                // auth mode none: the character's name
  std::string token;                               // auth mode token: the token ...
  std::function<std::string()> token_source;       // ... or a fresh one per login ("" : none now)
  size_t max_frame_bytes = kDefaultMaxFrameBytes;  // the server's limits.max_frame_bytes
  size_t max_inbound_frame_bytes = kMaxInboundFrameBytes;
  double connect_timeout_ms = 5000;
  double login_timeout_ms = 10000;
  double silence_timeout_ms = 3000;  // in the world, nothing for this long: the link is dead
  double probe_timeout_ms = 1500;    // after Resume, nothing for this long: the link is dead
  double ping_interval_ms = 1000;    // the server allows 5 pings per second
  // Each frame is parsed into a protobuf arena whose first block the connection keeps (no
  // allocation per frame once warm for frames that fit). 64 KiB suits a game; a program driving
  // thousands of clients may take less, or 0 (the arena then takes its blocks from the heap).
  size_t parse_block_bytes = size_t{64} * 1024;
  ReconnectOptions reconnect;
  // Over WebSocket, the URL to dial for a hand-off (default: ZoneChanged.websocket_url as it is).
  std::function<std::string(std::string_view websocket_url, std::string_view current_url)>
      handoff_url;
  // Random numbers in [0, 1) for the backoff's jitter (default: a generator seeded by the name
  // and URL, so many clients reconnecting at once spread out).
  std::function<double()> random;
};

class ConnectionHandler {
 public:
  virtual ~ConnectionHandler() = default;
  // Every server message, in order, with the local time its bytes arrived.
  virtual void OnServerMessage(const zone::v1::ServerMessage& message, double now_ms) = 0;
  // The state changed; `reason` and `error` say why when it is closed or reconnecting.
  virtual void OnStateChange(State to, State from, CloseReason reason, const Status& error) = 0;
  // A Hello was sent (the Welcome's clock sample is timed from it).
  virtual void OnHelloSent(double now_ms) = 0;
};

class Connection {
 public:
  explicit Connection(ConnectionHandler* handler);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Starts the session: kInvalidArgument (no name nor token), kBadName, kTransportUnsupported.
  Status Start(ConnectionOptions options, double now_ms);
  // Back in the foreground: ping at once, and reconnect at once if the connection is gone.
  void Resume(double now_ms);
  // Logs out (Logout, then the server's Kick "logout") and closes; at most `grace_ms` later it
  // closes anyway.
  void Close(double now_ms, double grace_ms = 2000);
  // Sends a message (in the world only): kNotInWorld, kFrameTooLarge (nothing is sent).
  Status Send(const zone::v1::ClientMessage& message);
  // Runs every timer due at `now_ms`.
  void Poll(double now_ms);

  void OnConnected(uint64_t link, std::string_view subprotocol, double now_ms);
  void OnBytes(uint64_t link, std::span<const uint8_t> bytes, double now_ms);
  void OnMessage(uint64_t link, std::span<const uint8_t> message, double now_ms);
  void OnClosed(uint64_t link, const CloseInfo& info, double now_ms);

  // The actions asked for since the last call, in order; valid until the next call.
  [[nodiscard]] std::span<const Action> TakeActions();
  // When Poll next has something to do (a deadline, a ping, a backoff), +inf when nothing.
  [[nodiscard]] double NextPollAt() const;

  [[nodiscard]] State state() const { return state_; }
  [[nodiscard]] uint32_t protocol_version() const { return protocol_version_; }
  [[nodiscard]] uint64_t reconnects() const { return reconnects_; }
  [[nodiscard]] uint64_t handoffs() const { return handoffs_; }
  [[nodiscard]] uint64_t bytes_in() const { return bytes_in_; }
  [[nodiscard]] uint64_t bytes_out() const { return bytes_out_; }
  [[nodiscard]] uint64_t frames() const { return frames_; }
  [[nodiscard]] const Status& last_failure() const { return last_failure_; }
  [[nodiscard]] CloseReason close_reason() const { return close_reason_; }
  [[nodiscard]] const Status& close_error() const { return close_error_; }
  [[nodiscard]] const std::string& current_url() const { return current_url_; }
  [[nodiscard]] uint64_t link() const { return link_; }
  [[nodiscard]] bool websocket() const { return websocket_; }

 private:
  struct Failure {
    CloseReason reason = CloseReason::kUnknown;
    Status error;
  };

  void SetState(State to, CloseReason reason = CloseReason::kNone, const Status& error = {});
  void Dial(double now_ms, const std::string& url, const std::string& ticket, State state);
  void Open(double now_ms, const std::string& token);
  void Deliver(std::span<const uint8_t> body, double now_ms);
  void Received(const zone::v1::ServerMessage& m, double now_ms);
  void FollowHandoff(const zone::v1::ServerMessage& m, double now_ms);
  void Lost(const CloseInfo& info, double now_ms);
  void LostWithServerAnswer(const CloseInfo& info, double now_ms);
  void Failed(double now_ms, CloseReason reason, Status error, bool final, bool immediate = false);
  void Finish(CloseReason reason, Status error);
  void DropTransport();
  void SendPing(double now_ms);
  void SendHello();
  void TimersInWorld(double now_ms);
  Action& NewAction(ActionKind kind, uint64_t link);
  bool Emit(const google::protobuf::MessageLite& message);
  double Random();

  ConnectionHandler* handler_;
  ConnectionOptions options_;
  State state_ = State::kIdle;
  uint32_t protocol_version_ = kProtocolVersion;
  uint64_t reconnects_ = 0;
  uint64_t handoffs_ = 0;
  uint64_t bytes_in_ = 0;
  uint64_t bytes_out_ = 0;
  uint64_t frames_ = 0;
  Status last_failure_;
  CloseReason close_reason_ = CloseReason::kNone;
  Status close_error_;
  std::string current_url_;

  uint64_t link_ = 0;  // the link dialled or open; 0: none
  uint64_t next_link_ = 0;
  bool websocket_ = false;
  FrameDecoder decoder_{kMaxInboundFrameBytes};
  std::string ticket_;  // the dial in progress is a hand-off with this ticket
  std::string dial_url_;
  std::string pending_token_;
  uint32_t attempts_ = 0;  // failed attempts in a row
  double next_attempt_at_ = 0;
  double deadline_;  // connect or login deadline of the dial in progress
  double last_receive_at_ = 0;
  double next_ping_at_ = 0;
  double probe_since_ = 0;
  double probe_deadline_;
  std::optional<std::string> kick_;
  std::optional<Status> server_error_;
  bool ever_in_world_ = false;
  bool closing_ = false;
  double closing_deadline_;
  std::optional<Failure> pending_failure_;
  double pending_failure_deadline_;
  uint64_t random_state_ = 0;

  std::vector<Action> actions_;
  size_t action_count_ = 0;
  std::vector<Action> taken_;
  std::vector<char> arena_block_;
};

}  // namespace zs::client
