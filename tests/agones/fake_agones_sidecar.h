// FakeAgonesSidecar: a small HTTP/1.1 listener on loopback (Boost.Beast) standing in for the
// Agones SDK sidecar's REST gateway in tests. It records every request (method, target,
// Content-Type, body, arrival time) and answers as told: 200 `{}` (GET /gameserver: 200 with
// the GameServer JSON set by set_gameserver, `{}` until then), 500, or never (the connection is
// held open, unanswered, until Stop). No Agones here: this is what the REST calls look like on
// the wire, and nothing more.
//
// Threads: its own io_context and thread. Requests() and the setters may be called from any
// thread. An optional hook runs on the sidecar's thread when a request arrives, before the
// answer (tests use it to look at the server at that moment).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace zs::fakes {

// A GameServer as the sidecar's GET /gameserver returns it (Agones' REST docs, and the fields
// an Agones 1.3x sidecar adds: spec, status.addresses, players, counters, lists), for a Fleet
// whose `game` port got `port` on a node at `address`; `state` as the GameServer's.
inline std::string GameServerJson(const std::string& address, uint16_t port,
                                  const std::string& state = "Ready") {
  return R"({"object_meta":{"name":"zone-server-x7k2p-4fzqv","namespace":"default",)"
         R"("uid":"3f1c9a52-0d3e-4c55-9b1e-6d2f7a8e0c41","resource_version":"48213",)"
         R"("generation":"3","creation_timestamp":"1718035200",)"
         R"("annotations":{"agones.dev/sdk-version":"1.38.0","agones.dev/ready-container-id":)"
         R"("containerd://a1b2c3"},"labels":{"agones.dev/fleet":"zone-server",)"
         R"("agones.dev/gameserverset":"zone-server-x7k2p","app.kubernetes.io/name":)"
         R"("zone-server"}},"spec":{"health":{"period_seconds":5,"failure_threshold":3,)"
         R"("initial_delay_seconds":10}},"status":{"state":")" +
         state + R"(","address":")" + address +
         R"(","addresses":[{"type":"InternalIP","address":"10.128.0.17"},)"
         R"({"type":"ExternalIP","address":")" +
         address +
         R"("},{"type":"Hostname","address":"gke-pool-1-node-9"}],)"
         R"("ports":[{"name":"game","port":)" +
         std::to_string(port) + R"(}],"players":null,"counters":{},"lists":{}}})";
}

struct SidecarRequest {
  std::string method;
  std::string target;
  std::string content_type;
  std::string body;
  std::chrono::steady_clock::time_point at;
};

enum class SidecarAnswer : uint8_t { kOk, kServerError, kHang };

class FakeAgonesSidecar {
 public:
  using Hook = std::function<void(const SidecarRequest&)>;

  // Listens on 127.0.0.1:`port` (0: an ephemeral one). Throws if the port is taken.
  explicit FakeAgonesSidecar(uint16_t port = 0, Hook hook = nullptr)
      : acceptor_(io_), hook_(std::move(hook)) {
    const boost::asio::ip::tcp::endpoint ep(boost::asio::ip::make_address("127.0.0.1"), port);
    acceptor_.open(ep.protocol());
    acceptor_.set_option(boost::asio::ip::tcp::acceptor::reuse_address(true));
    acceptor_.bind(ep);
    acceptor_.listen();
    port_ = acceptor_.local_endpoint().port();
    Accept();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~FakeAgonesSidecar() { Stop(); }
  FakeAgonesSidecar(const FakeAgonesSidecar&) = delete;
  FakeAgonesSidecar& operator=(const FakeAgonesSidecar&) = delete;

  // Closes the listener and every held connection; idempotent.
  void Stop() {
    if (!thread_.joinable()) return;
    io_.stop();
    thread_.join();
  }

  [[nodiscard]] uint16_t port() const { return port_; }
  void set_answer(SidecarAnswer a) { answer_ = a; }
  // The first `n` requests get 500, later ones the answer set above.
  void fail_first(int n) { fail_first_ = n; }
  // The body of later answers to GET /gameserver.
  void set_gameserver(std::string json) {
    std::lock_guard lock(mu_);
    gameserver_ = std::move(json);
  }

  [[nodiscard]] std::vector<SidecarRequest> Requests() const {
    std::lock_guard lock(mu_);
    return requests_;
  }
  [[nodiscard]] size_t Count(const std::string& target) const {
    std::lock_guard lock(mu_);
    size_t n = 0;
    for (const auto& r : requests_) n += r.target == target ? 1 : 0;
    return n;
  }
  // Waits until `target` has been asked for `n` times; false on timeout.
  bool WaitFor(const std::string& target, size_t n, std::chrono::milliseconds timeout) const {
    const auto end = std::chrono::steady_clock::now() + timeout;
    while (Count(target) < n) {
      if (std::chrono::steady_clock::now() > end) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
  }

 private:
  struct Exchange {
    explicit Exchange(boost::asio::ip::tcp::socket s) : socket(std::move(s)) {}
    boost::asio::ip::tcp::socket socket;
    boost::beast::flat_buffer buffer;
    boost::beast::http::request<boost::beast::http::string_body> request;
    boost::beast::http::response<boost::beast::http::string_body> response;
  };

  void Accept() {
    acceptor_.async_accept([this](boost::system::error_code ec, boost::asio::ip::tcp::socket s) {
      if (ec) return;
      auto x = std::make_shared<Exchange>(std::move(s));
      boost::beast::http::async_read(x->socket, x->buffer, x->request,
                                     [this, x](boost::system::error_code rec, size_t) {
                                       if (!rec) OnRequest(x);
                                     });
      Accept();
    });
  }

  void OnRequest(const std::shared_ptr<Exchange>& x) {
    namespace http = boost::beast::http;
    SidecarRequest r{.method = std::string(x->request.method_string()),
                     .target = std::string(x->request.target()),
                     .content_type = std::string(x->request[http::field::content_type]),
                     .body = x->request.body(),
                     .at = std::chrono::steady_clock::now()};
    if (hook_) hook_(r);
    {
      std::lock_guard lock(mu_);
      requests_.push_back(r);
    }
    const bool fail = fail_first_.fetch_sub(1) > 0;
    if (!fail && answer_ == SidecarAnswer::kHang) {
      held_.push_back(x);  // never answered; closed when the io_context goes
      return;
    }
    x->response.version(11);
    x->response.result(fail || answer_ == SidecarAnswer::kServerError
                           ? http::status::internal_server_error
                           : http::status::ok);
    x->response.set(http::field::content_type, "application/json");
    x->response.keep_alive(false);
    x->response.body() = GameServerBody(r);
    x->response.prepare_payload();
    http::async_write(x->socket, x->response, [x](boost::system::error_code, size_t) {
      boost::system::error_code ignored;
      x->socket.shutdown(boost::asio::ip::tcp::socket::shutdown_send, ignored);
    });
  }

  std::string GameServerBody(const SidecarRequest& r) const {
    if (r.method != "GET" || r.target != "/gameserver") return "{}";
    std::lock_guard lock(mu_);
    return gameserver_;
  }

  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  Hook hook_;
  uint16_t port_ = 0;
  std::atomic<SidecarAnswer> answer_{SidecarAnswer::kOk};
  std::atomic<int> fail_first_{0};
  mutable std::mutex mu_;
  std::vector<SidecarRequest> requests_;         // guarded by mu_
  std::string gameserver_ = "{}";                // guarded by mu_
  std::vector<std::shared_ptr<Exchange>> held_;  // sidecar thread only
  std::thread thread_;
};

// An ephemeral loopback port that was free a moment ago (nothing listens on it now).
inline uint16_t UnusedLoopbackPort() {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor a(
      io, {boost::asio::ip::make_address("127.0.0.1"), static_cast<uint16_t>(0)});
  return a.local_endpoint().port();
}

}  // namespace zs::fakes
