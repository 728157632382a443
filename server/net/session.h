// Session: one client connection.
//
// Ownership: the Server's registry holds the only strong reference; every async handler
// captures `self` (shared_from_this) so the session lives while an operation is pending; the
// zone runners hold a weak_ptr. Threads: reads, timers and queued writes run on the session's
// strand (the socket's executor). DeliverFrame may be called from any thread: when nothing is
// queued for the client it sends the frame itself, one non-blocking send on the caller's thread
// (the zone runner's workers send most tick frames this way, with no post or wake-up per frame);
// what the socket does not take at once is copied into the send queue and written by the strand.
// The output lock (out_mu_) orders the two paths, so frames leave in the order of the calls.
// Before either, its TickBatch may hold a tick frame (limits.ticks_per_send): the held ticks
// leave in the same send as the next frame of any kind, before it.
// CloseWith sends its last frame in call order and refuses every frame after it.
//
// Two framings, one session (Transport): over TCP each message is varint-length-prefixed
// (wire::FrameDecoder); over WebSocket (the door of browsers and engines) each message is one
// binary WebSocket message (wire::WsDecoder), after an HTTP upgrade (WsUpgrade). Everything
// else is the same: login, limits, rate limits, kicks, metrics, backlog rules. The frames the
// zone runner encodes once for every client are varint-framed; a WebSocket session rewrites
// each into a WebSocket message as it sends (one copy, into a buffer it reuses). Its pings
// count against ping_rate like the protocol's own Ping; each close ends with a WebSocket close
// frame whose code (1000, 1001, 1008, 1009, ...) and reason (CloseReasonName) say why.
//
// Life: [Upgrading (WebSocket: the login timer runs from the accept)] -> AwaitHello (login
// timer) -> LoggedIn (Join sent to the zone runner; idle timer) -> Closing (the last frames are
// flushed, then the socket is closed) -> Closed.
// Every byte read goes through the framing's decoder (length checked before buffering) and
// wire::ParseClientMessage; any violation sends an Error with a reason, then closes.
// Writes: one in flight, a queue behind it capped at limits.send_queue_bytes (counting the
// memory each frame holds, not just its length) and limits.send_queue_delay_s (age of the
// oldest frame); when all queues together pass limits.total_send_queue_bytes, clients that are
// behind are treated as over their cap. Tick frames beyond a cap are dropped and the client is
// resynced once the queue drains; a backlog that does not drain, or a socket that takes no
// bytes, within stall_timeout_s gets the client kicked ("slow_reader"): the rules are
// SendQueue's; the login (version, ticket, token) is LoginGate's. All it needs from above comes
// in its SessionContext.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "host/close_reason.h"
#include "host/player_port.h"
#include "host/session_sink.h"
#include "net/limits.h"
#include "net/send_queue.h"
#include "net/session_context.h"
#include "net/tick_batch.h"
#include "net/ws_upgrade.h"
#include "wire/encoder.h"
#include "wire/frame_codec.h"
#include "wire/protocol.h"
#include "wire/ws_codec.h"

namespace zs::net {

// How a session's messages are framed on its socket.
enum class Transport : uint8_t {
  kTcp,        // varint length, then the message
  kWebSocket,  // one binary WebSocket message each, after an HTTP upgrade
};

class Session : public host::SessionSink, public std::enable_shared_from_this<Session> {
 public:
  // `context` outlives the session.
  Session(boost::asio::ip::tcp::socket socket, uint64_t id, std::string peer,
          SessionContext& context, Transport transport = Transport::kTcp);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void Start();  // REQUIRES: called once, after construction, with a shared_ptr owner
  // Any thread (the strand's own frames too): sends `frame` now if nothing is queued and the
  // socket takes it, else queues (copies) it by the SendQueue's rules; then posts what is left
  // to do to the strand.
  void DeliverFrame(std::string_view frame, host::FrameKind kind) override;
  // The same, never held by the TickBatch (held ticks go before it).
  void DeliverFrameNow(std::string_view frame, host::FrameKind kind) override;
  void CloseWith(std::string last_frame, host::CloseReason reason) override;
  [[nodiscard]] uint32_t ProtocolVersion() const override {
    return protocol_version_.load(std::memory_order_relaxed);
  }

  [[nodiscard]] uint64_t id() const { return id_; }
  [[nodiscard]] const std::string& peer() const { return peer_; }

 private:
  enum class State { kUpgrading, kAwaitHello, kLoggedIn, kClosing, kClosed };
  // The output side's own state, under out_mu_: it must be read by any thread that sends.
  // kClosing: the last frame (an error, a kick, CloseWith's) is sent or queued; nothing more
  // is accepted, what is queued is flushed.
  enum class Out : uint8_t { kOpen, kClosing, kClosed };
  // What a send leaves for the strand to do.
  enum class Followup : uint8_t { kNone, kWrite, kArmStall, kKick, kFailed };

  // Strand-only paths call it first: a call off the socket's strand prints `what` and aborts
  // (as host::ThreadOwner does for a runner's loop).
  void CheckOnStrand(const char* what);
  void ReadMore();
  void ReadSome();  // one read, whatever the state (ReadMore's, and the closing handshake's)
  void OnRead(const boost::system::error_code& ec, size_t n);
  // Feeds bytes read to the framing and handles each whole message; false when closing.
  bool Consume(std::string_view bytes);
  bool ConsumeWebSocket(std::string_view bytes);
  void Upgrade();  // WebSocket: the HTTP upgrade, then AwaitHello
  void OnUpgraded(WsUpgrade::Outcome outcome);
  bool AnswerPing(std::string_view payload);  // a WebSocket ping: a pong, within ping_rate
  void FailWebSocket(wire::WsError err);
  // Returns false when the session is closing.
  bool HandleFrame(const std::string& frame);
  void FailFrame(wire::FrameError err);            // BAD_FRAME (AUTH_FAILED for a token-mode Hello)
  bool HandleHello(const wire::ClientIntent& in);  // false when the session is closing
  bool HandleInput(wire::ClientIntent& in);        // a message after Hello; false when closing
  void Enter(LoginGate::Decision decision);        // Join or Arrive: the Hello was accepted
  void FailParse(wire::ParseError err, const wire::ClientIntent& in);
  void Fail(wire::ErrorCode code, const std::string& text, host::CloseReason reason);
  RateLimiter& LimiterFor(wire::ClientKind kind);
  void TellRateLimited(const wire::ClientIntent& in);  // the input's result: RATE_LIMITED
  void KickSlowReader();
  // out_mu_ held: holds a tick (TickBatch's rules, when `may_hold`) or sends it with what is
  // held before it.
  [[nodiscard]] Followup SendLocked(std::string_view frame, host::FrameKind kind,
                                    bool may_hold = true);
  // out_mu_ held: sends `frame` (which holds `frames` frames) now if nothing is queued, else
  // queues it by SendQueue's rules.
  // `framed`: the bytes are already in the transport's framing (a WebSocket control frame);
  // else they are varint frames, which a WebSocket session rewrites as its messages.
  [[nodiscard]] Followup SendOrQueueLocked(std::string_view frame, host::FrameKind kind,
                                           uint32_t frames, bool framed = false);
  void SendFramed(std::string_view bytes);  // a WebSocket control frame, after what is queued
  void Follow(Followup next);
  void ArmStallTimer();  // a backlog began: kick if it has not drained within stall_timeout_s
  void WriteMore();      // strand: start writing the queue's front chunk
  void OnWritten(const boost::system::error_code& ec, size_t n, uint32_t frames);
  void OnWriteFailed();  // strand: the socket refused bytes; close
  void BeginClose(host::CloseReason reason);
  // Closing, everything flushed: Finish (TCP), or await the client's close frame (WebSocket).
  void Drained();
  void ReadPeerClose(const boost::system::error_code& ec, size_t n);
  void Finish();
  void ArmIdle(double after_s);
  void NoteInput() { last_input_s_ = Now(); }
  double Now() const;

  boost::asio::ip::tcp::socket socket_;
  const Transport transport_;
  const int fd_;  // socket_'s descriptor, for sends off the strand (only while out_ is not kClosed)
  const uint64_t id_;
  const std::string peer_;
  SessionContext& ctx_;
  const Limits& limits_;
  boost::asio::steady_timer login_timer_;
  boost::asio::steady_timer idle_timer_;
  boost::asio::steady_timer stall_timer_;  // a backlog that does not drain
  boost::asio::steady_timer close_timer_;  // bounds the final flush
  uint64_t stall_generation_ = 0;          // a stall callback of an older backlog stands down
  double last_input_s_ = 0;                // for the idle check (no timer re-arm per input)
  wire::FrameDecoder decoder_;
  // WebSocket: the upgrade (until it ends), the decoder, the subprotocol's version, and the
  // close code a framing error chose (else the close reason's).
  std::unique_ptr<WsUpgrade> upgrade_;
  wire::WsDecoder ws_decoder_;
  uint32_t ws_version_ = 0;      // 0 until upgraded
  bool ws_peer_closed_ = false;  // its close frame came
  bool awaiting_close_ = false;  // closing: our close frame left, the client's is awaited
  bool read_pending_ = false;    // a read is in flight (strand only)
  std::optional<wire::WsCloseCode> ws_close_code_;
  std::array<char, 16 * 1024> read_buf_{};
  std::string frame_;
  // Guards send_queue_, batch_, out_, ws_open_, ws_out_, write_posted_, closing_for_ and the
  // socket's close.
  std::mutex out_mu_;
  SendQueue send_queue_;  // what the socket did not take at once
  TickBatch batch_;       // tick frames held to leave with the next send (limits.ticks_per_send)
  Out out_ = Out::kOpen;
  bool ws_open_ = false;       // WebSocket: upgraded (before: nothing of the game's is sent)
  std::string ws_out_;         // WebSocket: the messages of a send, reused
  bool write_posted_ = false;  // a WriteMore is posted to the strand and has not run yet
  std::optional<host::CloseReason> closing_for_;  // CloseWith's reason, for BeginClose
  State state_ = State::kAwaitHello;              // strand only
  // Its accepted Hello's version: set on the strand, read by the runner's threads (atomic).
  std::atomic<uint32_t> protocol_version_{wire::kMinProtocolVersion};
  host::CloseReason close_reason_ = host::CloseReason::kWriteError;  // set by BeginClose
  RateLimiter move_rate_;
  RateLimiter chat_rate_;
  RateLimiter skill_rate_;
  RateLimiter ping_rate_;
};

}  // namespace zs::net
