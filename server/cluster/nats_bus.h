// NatsBus: this process's one connection to NATS, with request-reply, serving, and JetStream.
//
// What it is for: zone servers of one world talk to each other (hand-off requests) and share
// the zone directory (a JetStream key-value bucket) through a NATS server. NatsBus owns the
// libnats connection and turns libnats' statuses into values a caller can act on (BusStatus)
// and messages a person can read (what failed, against which server, libnats' own text).
//
// Ownership: one NatsBus owns one natsConnection, its options, its JetStream context and the
// subscriptions made by Serve. ZoneDirectory borrows the JetStream context; it must be destroyed
// before the bus.
//
// Connection: connects in the constructor (a server that cannot be reached at start-up throws
// BusError: the process should not start half-joined). Once connected, a lost connection is
// retried forever, every reconnect_wait_ms; disconnect and reconnect are logged (spdlog). While
// disconnected, Request fails at once with kDisconnected (nothing is queued to be sent later:
// a hand-off answered after the player gave up would be worse than none).
//
// Threads: every public method may be called from any thread, except Close (and the
// destructor), which must not race with other calls. Serve's handlers run on libnats' delivery
// thread of that subscription (one per subscription, in order): a handler blocks only its own
// subject, but it must not block for long and must not call Close.
//
// Library lifetime: libnats keeps process-wide state (threads, a timer, a lock table) that
// nats_Close() releases. The process's owner (app's main, and the tests' main) calls
// NatsBus::ShutdownLibrary() once at process end, after every NatsBus is destroyed; nothing
// else calls nats_Close, and no bus may be created after it.
#pragma once

#include <nats/nats.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace zs::cluster {

struct BusOptions {
  std::string url = "nats://127.0.0.1:4222";  // comma-separated for a NATS cluster
  std::string name;                           // connection name (the node's name), for logs
                                              // and the server's monitoring
  int64_t connect_timeout_ms = 2000;          // one connection attempt
  int64_t reconnect_wait_ms = 250;            // between reconnect attempts, forever
  int64_t jetstream_timeout_ms = 1000;        // each JetStream API call (directory operations)
  int64_t drain_timeout_ms = 2000;            // Close: in-flight handlers may finish
};

// What a request came to. DO NOT compare error text: compare these.
enum class BusStatus : uint8_t {
  kOk,            // a reply arrived
  kTimeout,       // nobody answered in time (a responder exists, or the server is slow)
  kNoResponders,  // the server says nobody serves that subject (answered at once)
  kDisconnected,  // not connected to NATS now (reconnecting): nothing was sent
  kError,         // anything else: see the error text
};
const char* BusStatusName(BusStatus status);  // "ok", "timeout", ...

struct BusReply {
  BusStatus status = BusStatus::kError;
  std::string bytes;  // kOk: the reply's body
  std::string error;  // not kOk: what happened, for the logs
};

// A start-up failure (cannot connect, cannot subscribe). The message names the server.
class BusError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// libnats' text for `s` plus its last error on this thread (the detail, when there is one).
std::string NatsErrorText(natsStatus s);

class NatsBus {
 public:
  // Gets a request's body, returns the reply's body. Runs on libnats' delivery thread.
  // Should not throw: an exception is logged and the request gets no reply (its sender sees
  // kTimeout). Protocol handlers catch their own errors and answer them (handoff.h).
  using Handler = std::function<std::string(std::string_view request)>;

  explicit NatsBus(BusOptions options);  // connects; throws BusError
  ~NatsBus();                            // Close()
  NatsBus(const NatsBus&) = delete;
  NatsBus& operator=(const NatsBus&) = delete;

  // Sends `bytes` to `subject` and waits up to `timeout` for one reply. Never throws.
  BusReply Request(const std::string& subject, std::string_view bytes,
                   std::chrono::milliseconds timeout);

  // Answers every request on `subject` with handler(request). Throws BusError when the
  // subscription cannot be made. REQUIRES: not closed. A message without a reply subject (a
  // Publish) is handed to the handler too; its answer goes nowhere.
  void Serve(const std::string& subject, Handler handler);

  // Hands every message on `subject` (wildcards allowed) to listener(its subject, its bytes),
  // in the order the server delivers them, on one libnats thread; no reply. Throws BusError
  // when the subscription cannot be made. REQUIRES: not closed.
  using Listener = std::function<void(std::string_view subject, std::string_view bytes)>;
  void Listen(const std::string& subject, Listener listener);

  // Sends `bytes` to `subject`, no reply expected, without waiting: libnats buffers it (and,
  // while reconnecting, up to its reconnect buffer). kOk, kDisconnected (closed) or kError.
  BusStatus Publish(const std::string& subject, std::string_view bytes);

  // The JetStream context (API timeout: jetstream_timeout_ms). Owned by the bus; valid until
  // Close. REQUIRES: not closed.
  jsCtx* jetstream() const { return js_; }

  bool connected() const;  // connected now (not reconnecting, not closed)
  // "NATS at <url> (connection '<name>')", for messages.
  const std::string& describe() const { return describe_; }

  // Drains the subscriptions (in-flight handlers finish, up to drain_timeout_ms), closes and
  // destroys the connection. Idempotent. Afterwards Request answers kDisconnected.
  void Close();

  // nats_Close(): see "Library lifetime" above.
  static void ShutdownLibrary();

 private:
  // What libnats' connection callbacks need: they run on libnats' threads, and the closed
  // callback may come after natsConnection_Close returns, so Close waits for it.
  struct Events {
    std::string describe;
    int64_t reconnect_wait_ms = 0;
    std::mutex mu;
    std::condition_variable closed_cv;
    bool closed = false;
  };
  // One Serve: the closure libnats passes to OnMessage.
  struct Served {
    std::string subject;
    Handler handler = {};
    Listener listener = {};  // set: a Listen, handed the subject (and never answered)
    natsSubscription* sub = nullptr;
  };

  static void OnDisconnected(natsConnection* nc, void* closure);
  static void OnReconnected(natsConnection* nc, void* closure);
  static void OnClosed(natsConnection* nc, void* closure);
  static void OnMessage(natsConnection* nc, natsSubscription* sub, natsMsg* msg, void* closure);

  void Subscribe(std::unique_ptr<Served> served);  // throws BusError
  void Connect();                                  // throws BusError
  void SetOptions();
  bool Unsubscribe(Served* served);  // false: not drained (see Close)

  const BusOptions options_;
  const std::string describe_;
  std::unique_ptr<Events> events_;
  natsOptions* opts_ = nullptr;
  natsConnection* nc_ = nullptr;
  jsCtx* js_ = nullptr;
  std::mutex served_mu_;  // guards served_ (Serve may race with itself)
  std::vector<std::unique_ptr<Served>> served_;
};

}  // namespace zs::cluster
