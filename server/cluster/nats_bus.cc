// NatsBus: libnats connection, request-reply, serving, clean shutdown.
#include "cluster/nats_bus.h"

#include <spdlog/spdlog.h>

#include <array>
#include <exception>
#include <limits>
#include <utility>

namespace zs::cluster {

namespace {

// How long Close waits for libnats' closed callback (it runs on libnats' own thread).
constexpr std::chrono::seconds kClosedCallbackWait{2};
// Reconnect forever (libnats: a negative maximum means no limit).
constexpr int kReconnectForever = -1;
// Size of the buffer for the URL we are connected to (reconnect log).
constexpr size_t kUrlBufferSize = 256;

// Throws BusError(`what` + libnats' text) when `s` is not NATS_OK.
void Check(natsStatus s, const std::string& what) {
  if (s != NATS_OK) throw BusError(what + ": " + NatsErrorText(s));
}

BusStatus StatusOf(natsStatus s) {
  switch (s) {
    case NATS_OK:
      return BusStatus::kOk;
    case NATS_TIMEOUT:
      return BusStatus::kTimeout;
    case NATS_NO_RESPONDERS:
      return BusStatus::kNoResponders;
    case NATS_CONNECTION_CLOSED:
    case NATS_CONNECTION_DISCONNECTED:
    case NATS_NOT_YET_CONNECTED:
    case NATS_STALE_CONNECTION:
      return BusStatus::kDisconnected;
    default:
      return BusStatus::kError;
  }
}

}  // namespace

const char* BusStatusName(BusStatus status) {
  switch (status) {
    case BusStatus::kOk:
      return "ok";
    case BusStatus::kTimeout:
      return "timeout";
    case BusStatus::kNoResponders:
      return "no_responders";
    case BusStatus::kDisconnected:
      return "disconnected";
    case BusStatus::kError:
      break;
  }
  return "error";
}

std::string NatsErrorText(natsStatus s) {
  std::string text = natsStatus_GetText(s);
  natsStatus last_status = NATS_OK;
  const char* last = nats_GetLastError(&last_status);
  // The last error is per thread and may be older than `s`: add it only when it is about `s`.
  if (last != nullptr && last[0] != '\0' && last_status == s && text != last) {
    text += " (";
    text += last;
    text += ")";
  }
  return text;
}

NatsBus::NatsBus(BusOptions options)
    : options_(std::move(options)),
      describe_("NATS at " + options_.url + " (connection '" + options_.name + "')"),
      events_(std::make_unique<Events>()) {
  events_->describe = describe_;
  events_->reconnect_wait_ms = options_.reconnect_wait_ms;
  try {
    Connect();
  } catch (...) {
    Close();
    throw;
  }
}

NatsBus::~NatsBus() { Close(); }

void NatsBus::SetOptions() {
  Check(natsOptions_Create(&opts_), "NATS: cannot create connection options");
  const std::string what = "NATS: bad option for " + describe_;
  Check(natsOptions_SetServers(opts_, nullptr, 0), what);
  Check(natsOptions_SetURL(opts_, options_.url.c_str()), what + " (url)");
  Check(natsOptions_SetName(opts_, options_.name.c_str()), what + " (name)");
  Check(natsOptions_SetTimeout(opts_, options_.connect_timeout_ms), what + " (timeout)");
  Check(natsOptions_SetAllowReconnect(opts_, true), what);
  Check(natsOptions_SetMaxReconnect(opts_, kReconnectForever), what);
  Check(natsOptions_SetReconnectWait(opts_, options_.reconnect_wait_ms), what);
  // A request pending when the connection drops fails now instead of at its timeout.
  Check(natsOptions_SetFailRequestsOnDisconnect(opts_, true), what);
  Check(natsOptions_SetDisconnectedCB(opts_, &NatsBus::OnDisconnected, events_.get()), what);
  Check(natsOptions_SetReconnectedCB(opts_, &NatsBus::OnReconnected, events_.get()), what);
  Check(natsOptions_SetClosedCB(opts_, &NatsBus::OnClosed, events_.get()), what);
}

void NatsBus::Connect() {
  SetOptions();
  const natsStatus s = natsConnection_Connect(&nc_, opts_);
  if (s != NATS_OK) {
    nc_ = nullptr;
    throw BusError("cannot connect to " + describe_ + ": " + NatsErrorText(s) +
                   " (is nats-server running there, with JetStream: -js?)");
  }
  jsOptions js_options;
  Check(jsOptions_Init(&js_options), "NATS: JetStream options");
  js_options.Wait = options_.jetstream_timeout_ms;
  Check(natsConnection_JetStream(&js_, nc_, &js_options),
        "cannot get a JetStream context on " + describe_);
  spdlog::info("cluster: connected to {}", describe_);
}

bool NatsBus::connected() const {
  return nc_ != nullptr && natsConnection_Status(nc_) == NATS_CONN_STATUS_CONNECTED;
}

BusReply NatsBus::Request(const std::string& subject, std::string_view bytes,
                          std::chrono::milliseconds timeout) {
  if (!connected()) {
    return BusReply{
        .status = BusStatus::kDisconnected,
        .bytes = {},
        .error = "request on '" + subject + "': not connected to " + describe_ + " (reconnecting)"};
  }
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return BusReply{.status = BusStatus::kError, .bytes = {}, .error = "request too large"};
  }
  natsMsg* reply = nullptr;
  const natsStatus s = natsConnection_Request(&reply, nc_, subject.c_str(), bytes.data(),
                                              static_cast<int>(bytes.size()), timeout.count());
  if (s != NATS_OK) {
    return BusReply{
        .status = StatusOf(s),
        .bytes = {},
        .error = "request on '" + subject + "' to " + describe_ + ": " + NatsErrorText(s)};
  }
  BusReply out{.status = BusStatus::kOk, .bytes = {}, .error = {}};
  const char* data = natsMsg_GetData(reply);
  out.bytes.assign(data == nullptr ? "" : data, static_cast<size_t>(natsMsg_GetDataLength(reply)));
  natsMsg_Destroy(reply);
  return out;
}

BusStatus NatsBus::Publish(const std::string& subject, std::string_view bytes) {
  if (nc_ == nullptr) return BusStatus::kDisconnected;
  const natsStatus s =
      natsConnection_Publish(nc_, subject.c_str(), bytes.data(), static_cast<int>(bytes.size()));
  if (s == NATS_OK) return BusStatus::kOk;
  return s == NATS_CONNECTION_CLOSED ? BusStatus::kDisconnected : BusStatus::kError;
}

void NatsBus::Serve(const std::string& subject, Handler handler) {
  if (nc_ == nullptr) throw BusError("Serve('" + subject + "') on a closed bus");
  Subscribe(std::make_unique<Served>(Served{.subject = subject, .handler = std::move(handler)}));
}

void NatsBus::Listen(const std::string& subject, Listener listener) {
  if (nc_ == nullptr) throw BusError("Listen('" + subject + "') on a closed bus");
  Subscribe(std::make_unique<Served>(Served{.subject = subject, .listener = std::move(listener)}));
}

void NatsBus::Subscribe(std::unique_ptr<Served> served) {
  const std::string& subject = served->subject;
  Check(natsConnection_Subscribe(&served->sub, nc_, subject.c_str(), &NatsBus::OnMessage,
                                 served.get()),
        "cannot serve '" + subject + "' on " + describe_);
  // The subscription is sent to the server asynchronously: flush, so that a request made
  // after Serve returns finds its responder (else: "no responders").
  const natsStatus flushed = natsConnection_FlushTimeout(nc_, options_.connect_timeout_ms);
  if (flushed != NATS_OK) {
    spdlog::warn("cluster: serving '{}' on {}, not yet confirmed by the server: {}", subject,
                 describe_, NatsErrorText(flushed));
  }
  spdlog::info("cluster: serving '{}' on {}", subject, describe_);
  const std::lock_guard lock(served_mu_);
  served_.push_back(std::move(served));
}

void NatsBus::OnMessage(natsConnection* nc, natsSubscription*, natsMsg* msg, void* closure) {
  auto* served = static_cast<Served*>(closure);
  const char* reply_to = natsMsg_GetReply(msg);
  const char* data = natsMsg_GetData(msg);
  const std::string_view request(data == nullptr ? "" : data,
                                 static_cast<size_t>(natsMsg_GetDataLength(msg)));
  try {
    if (served->listener) {
      const char* subject = natsMsg_GetSubject(msg);
      served->listener(subject == nullptr ? "" : subject, request);
      natsMsg_Destroy(msg);
      return;
    }
    const std::string answer = served->handler(request);
    if (reply_to != nullptr && reply_to[0] != '\0') {
      const natsStatus s =
          natsConnection_Publish(nc, reply_to, answer.data(), static_cast<int>(answer.size()));
      if (s != NATS_OK) {
        spdlog::warn("cluster: cannot answer a request on '{}': {}", served->subject,
                     NatsErrorText(s));
      }
    }
  } catch (const std::exception& e) {
    spdlog::error("cluster: the handler of '{}' threw ({}); the request gets no reply",
                  served->subject, e.what());
  } catch (...) {
    spdlog::error("cluster: the handler of '{}' threw; the request gets no reply", served->subject);
  }
  natsMsg_Destroy(msg);
}

bool NatsBus::Unsubscribe(Served* served) {
  natsStatus s = natsSubscription_Drain(served->sub);
  if (s == NATS_OK) {
    s = natsSubscription_WaitForDrainCompletion(served->sub, options_.drain_timeout_ms);
  }
  if (s != NATS_OK) {
    spdlog::warn("cluster: '{}' on {} not drained ({}); closing anyway", served->subject, describe_,
                 NatsErrorText(s));
    natsSubscription_Unsubscribe(served->sub);
  }
  natsSubscription_Destroy(served->sub);
  served->sub = nullptr;
  return s == NATS_OK;
}

void NatsBus::Close() {
  {
    const std::lock_guard lock(served_mu_);
    for (std::unique_ptr<Served>& served : served_) {
      // Not drained (disconnected, or a handler still running): libnats' delivery thread may
      // still hold the closure, so it is left allocated (once, at shutdown) rather than freed
      // under a running handler.
      if (!Unsubscribe(served.get())) static_cast<void>(served.release());
    }
    served_.clear();
  }
  if (js_ != nullptr) jsCtx_Destroy(js_);
  js_ = nullptr;
  if (nc_ != nullptr) {
    natsConnection_Close(nc_);
    std::unique_lock lock(events_->mu);
    if (!events_->closed_cv.wait_for(lock, kClosedCallbackWait, [&] { return events_->closed; })) {
      spdlog::warn("cluster: {}: no 'closed' callback from libnats after Close", describe_);
    }
    lock.unlock();
    natsConnection_Destroy(nc_);
    nc_ = nullptr;
    spdlog::info("cluster: closed {}", describe_);
  }
  if (opts_ != nullptr) natsOptions_Destroy(opts_);
  opts_ = nullptr;
}

void NatsBus::ShutdownLibrary() { nats_Close(); }

void NatsBus::OnDisconnected(natsConnection* nc, void* closure) {
  if (natsConnection_IsClosed(nc)) return;  // Close, not a lost server: Close logs it
  const auto* events = static_cast<const Events*>(closure);
  spdlog::warn("cluster: disconnected from {}; reconnecting every {} ms", events->describe,
               events->reconnect_wait_ms);
}

void NatsBus::OnReconnected(natsConnection* nc, void* closure) {
  const auto* events = static_cast<const Events*>(closure);
  std::array<char, kUrlBufferSize> url{};
  if (natsConnection_GetConnectedUrl(nc, url.data(), url.size()) != NATS_OK) url[0] = '\0';
  spdlog::info("cluster: reconnected to {} ({})", events->describe, url.data());
}

void NatsBus::OnClosed(natsConnection*, void* closure) {
  auto* events = static_cast<Events*>(closure);
  const std::lock_guard lock(events->mu);
  events->closed = true;
  events->closed_cv.notify_all();
}

}  // namespace zs::cluster
