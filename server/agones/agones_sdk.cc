#include "agones/agones_sdk.h"

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>

#include <algorithm>
#include <charconv>
#include <future>
#include <memory>
#include <stdexcept>
#include <utility>

#include "agones/gameserver_status.h"
#include "agones/http_post.h"

namespace zs::agones {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

namespace {

// Indexed by AgonesCall.
constexpr std::array<std::string_view, kAgonesCallCount> kPaths = {"/ready", "/health", "/shutdown",
                                                                   "/gameserver"};
constexpr std::array<std::string_view, kAgonesCallCount> kNames = {"Ready", "Health", "Shutdown",
                                                                   "GetGameServer"};
// Agones' REST gateway takes the gRPC message as JSON; Ready, Health and Shutdown take Empty.
constexpr std::string_view kEmptyBody = "{}";
// A failure repeated this often is logged once per this many (the first one always is).
constexpr uint64_t kLogEveryNthFailure = 10;

size_t Index(AgonesCall call) { return static_cast<size_t>(call); }

}  // namespace

std::string_view AgonesPath(AgonesCall call) { return kPaths[Index(call)]; }

std::optional<AgonesSdkOptions> AgonesSdk::FromEnvironment(const AgonesGetEnv& getenv) {
  const char* value = getenv(kEnvAgonesSdkHttpPort);
  if (value == nullptr || *value == '\0') return std::nullopt;
  const std::string_view text(value);
  unsigned port = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (ec != std::errc() || end != text.data() + text.size() || port == 0 || port > 65535) {
    throw std::invalid_argument(std::string("environment: ") + kEnvAgonesSdkHttpPort +
                                ": must be a port number in 1..65535, got \"" + std::string(text) +
                                "\"");
  }
  return AgonesSdkOptions{.port = static_cast<uint16_t>(port)};
}

AgonesSdk::AgonesSdk(AgonesSdkOptions options)
    : options_(std::move(options)),
      endpoint_(asio::ip::make_address(options_.host), options_.port),
      work_(asio::make_work_guard(io_)),
      health_timer_(io_),
      retry_timer_(io_),
      address_timer_(io_),
      thread_([this] { io_.run(); }) {
  spdlog::info("agones: SDK at http://{}:{} (REST)", options_.host, options_.port);
}

AgonesSdk::~AgonesSdk() {
  work_.reset();
  io_.stop();
  thread_.join();
}

void AgonesSdk::Ready() {
  asio::post(io_, [this] {
    if (!stopping_) Enqueue({.call = AgonesCall::kReady, .deadline = Clock::time_point::max()});
  });
}

void AgonesSdk::StartHealth(std::chrono::milliseconds interval) {
  asio::post(io_, [this, interval] {
    health_interval_ = interval;
    ScheduleHealth();
  });
}

bool AgonesSdk::Shutdown(std::chrono::milliseconds timeout) {
  if (shutdown_called_.exchange(true)) return false;
  auto acknowledged = std::make_shared<std::promise<bool>>();
  std::future<bool> result = acknowledged->get_future();
  const Clock::time_point deadline = Clock::now() + timeout;
  asio::post(io_, [this, deadline, acknowledged] {
    BeginShutdown(deadline, [acknowledged](bool ok) { acknowledged->set_value(ok); });
  });
  // The SDK's thread gives up at the deadline; the margin lets its answer arrive.
  if (result.wait_until(deadline + options_.request_timeout) != std::future_status::ready) {
    spdlog::warn("agones: Shutdown got no answer within {} ms", timeout.count());
    return false;
  }
  return result.get();
}

std::string AgonesSdk::PublicAddress(const std::string& port_name,
                                     std::chrono::milliseconds timeout) {
  auto answer = std::make_shared<std::promise<GameServerAddress>>();
  std::future<GameServerAddress> result = answer->get_future();
  const Clock::time_point deadline = Clock::now() + timeout;
  asio::post(io_, [this, port_name, deadline, answer] {
    if (stopping_ || address_wait_) {
      answer->set_value(GameServerAddress::Not(GameServerParse::kIncomplete,
                                               stopping_ ? "shutting down" : "already asking"));
      return;
    }
    address_wait_ =
        AddressWait{.port_name = port_name,
                    .deadline = deadline,
                    .backoff = {},
                    .last_problem = {},
                    .done = [answer](GameServerAddress a) { answer->set_value(std::move(a)); }};
    Enqueue({.call = AgonesCall::kGameServer, .deadline = deadline});
  });
  // The SDK's thread gives up at the deadline; the margin lets its last answer arrive.
  const std::string seconds = fmt::format("{:.1f} s", static_cast<double>(timeout.count()) / 1000);
  if (result.wait_until(deadline + options_.request_timeout) != std::future_status::ready) {
    throw std::runtime_error("agones: no answer to GET /gameserver within " + seconds);
  }
  const GameServerAddress a = result.get();
  if (a.outcome == GameServerParse::kOk) return a.HostPort();
  if (a.outcome == GameServerParse::kMalformed) {
    throw std::runtime_error("agones: GET /gameserver answered with an unusable GameServer: " +
                             a.why);
  }
  throw std::runtime_error("agones: no public address from GET /gameserver within " + seconds +
                           " (last: " + a.why + (a.state.empty() ? "" : ", state " + a.state) +
                           ")");
}

AgonesStats AgonesSdk::stats() const {
  AgonesStats s;
  for (size_t i = 0; i < kAgonesCallCount; ++i) {
    s.ok[i] = ok_[i].load(std::memory_order_relaxed);
    s.failed[i] = failed_[i].load(std::memory_order_relaxed);
  }
  return s;
}

void AgonesSdk::BeginShutdown(Clock::time_point deadline, std::function<void(bool)> on_done) {
  stopping_ = true;
  on_shutdown_ = std::move(on_done);
  health_timer_.cancel();
  retry_timer_.cancel();  // a Ready waiting to retry is dropped by SendNext
  address_timer_.cancel();
  if (address_wait_) {
    FinishAddressWait(GameServerAddress::Not(GameServerParse::kIncomplete, "Shutdown asked for"));
  }
  Enqueue({.call = AgonesCall::kShutdown, .deadline = deadline});
}

void AgonesSdk::Enqueue(Pending p) {
  queue_.push_back(p);
  if (!busy_) SendNext();
}

void AgonesSdk::SendNext() {
  // Once stopping, only Shutdown is still worth sending (unless already in flight).
  while (stopping_ && !queue_.empty() && queue_.front().call != AgonesCall::kShutdown) {
    queue_.pop_front();
  }
  busy_ = !queue_.empty();
  if (!busy_) return;
  const Pending p = queue_.front();
  std::chrono::milliseconds timeout = options_.request_timeout;
  if (p.deadline != Clock::time_point::max()) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(p.deadline - Clock::now());
    timeout = std::clamp(left, std::chrono::milliseconds(1), timeout);
  }
  if (p.call == AgonesCall::kGameServer) {
    return AsyncGetJson(io_, endpoint_, AgonesPath(p.call), timeout, kMaxGameServerBytes,
                        [this](bool ok, const std::string& why, const std::string& body) {
                          OnGameServer(ok, why, body);
                        });
  }
  AsyncPostJson(io_, endpoint_, AgonesPath(p.call), std::string(kEmptyBody), timeout,
                [this, p](bool ok, const std::string& why) { OnResult(p, ok, why); });
}

void AgonesSdk::OnResult(Pending p, bool ok, const std::string& why) {
  const size_t i = Index(p.call);
  (ok ? ok_ : failed_)[i].fetch_add(1, std::memory_order_relaxed);
  if (!ok) LogFailure(p.call, why);
  const bool retry = !ok && p.call != AgonesCall::kHealth &&
                     Clock::now() + options_.first_backoff < p.deadline &&
                     !(stopping_ && p.call == AgonesCall::kReady);
  if (retry) return RetryLater(p);
  backoff_ = std::chrono::milliseconds(0);
  if (ok && p.call == AgonesCall::kHealth && health_failures_in_a_row_ > 0) {
    spdlog::info("agones: Health acknowledged again after {} failures", health_failures_in_a_row_);
  } else if (ok && p.call != AgonesCall::kHealth) {
    spdlog::info("agones: {} acknowledged", kNames[i]);
  }
  if (p.call == AgonesCall::kHealth) health_failures_in_a_row_ = ok ? 0 : health_failures_in_a_row_;
  queue_.pop_front();
  if (p.call == AgonesCall::kShutdown && on_shutdown_) {
    on_shutdown_(ok);
    on_shutdown_ = nullptr;
  }
  SendNext();
}

void AgonesSdk::RetryLater(Pending p) {
  backoff_ =
      backoff_.count() == 0 ? options_.first_backoff : std::min(backoff_ * 2, options_.max_backoff);
  if (p.deadline != Clock::time_point::max()) {  // never sleep past the deadline
    backoff_ = std::min(
        backoff_, std::chrono::duration_cast<std::chrono::milliseconds>(p.deadline - Clock::now()));
  }
  retry_timer_.expires_after(backoff_);
  // Cancelled (Shutdown asked for) or not: the front of the queue decides what goes next.
  retry_timer_.async_wait([this](const boost::system::error_code&) { SendNext(); });
}

void AgonesSdk::ScheduleHealth() {
  health_timer_.expires_after(health_interval_);
  health_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || stopping_) return;
    const bool queued = std::any_of(queue_.begin(), queue_.end(),
                                    [](const Pending& q) { return q.call == AgonesCall::kHealth; });
    if (!queued) Enqueue({.call = AgonesCall::kHealth, .deadline = Clock::time_point::max()});
    ScheduleHealth();
  });
}

void AgonesSdk::OnGameServer(bool ok, const std::string& why, const std::string& body) {
  const size_t i = Index(AgonesCall::kGameServer);
  (ok ? ok_ : failed_)[i].fetch_add(1, std::memory_order_relaxed);
  queue_.pop_front();
  if (!ok) LogFailure(AgonesCall::kGameServer, why);
  if (address_wait_) {
    AddressWait& w = *address_wait_;
    GameServerAddress a =
        ok ? ParseGameServerAddress(body, w.port_name)
           : GameServerAddress::Not(GameServerParse::kIncomplete, "GET failed: " + why);
    w.backoff = w.backoff.count() == 0 ? options_.first_backoff
                                       : std::min(w.backoff * 2, options_.max_backoff);
    if (a.outcome != GameServerParse::kIncomplete || Clock::now() + w.backoff >= w.deadline) {
      FinishAddressWait(std::move(a));
    } else {
      if (ok && a.why != w.last_problem)
        spdlog::info("agones: GameServer not placed yet: {}", a.why);
      w.last_problem = a.why;
      address_timer_.expires_after(w.backoff);
      address_timer_.async_wait([this](const boost::system::error_code& ec) {
        if (ec || stopping_ || !address_wait_) return;
        Enqueue({.call = AgonesCall::kGameServer, .deadline = address_wait_->deadline});
      });
    }
  }
  SendNext();
}

void AgonesSdk::FinishAddressWait(GameServerAddress result) {
  if (result.outcome == GameServerParse::kOk) {
    spdlog::info("agones: GameServer at {} (state {})", result.HostPort(), result.state);
  }
  auto done = std::move(address_wait_->done);
  address_wait_.reset();
  done(std::move(result));
}

void AgonesSdk::LogFailure(AgonesCall call, const std::string& why) {
  const uint64_t n =
      call == AgonesCall::kHealth ? ++health_failures_in_a_row_ : failed_[Index(call)].load();
  if (n != 1 && n % kLogEveryNthFailure != 0) return;
  spdlog::warn("agones: {} to http://{}:{}{} failed ({}){}", kNames[Index(call)], options_.host,
               options_.port, AgonesPath(call), why,
               n == 1 ? "" : fmt::format(", {} times so far", n));
}

}  // namespace zs::agones
