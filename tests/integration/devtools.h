// Headless Chromium driven through its DevTools protocol, for the zone viewer's browser test:
// the page runs live in real time (not virtual time), the test reads what it shows with
// Runtime.evaluate and takes a screenshot with Page.captureScreenshot. The protocol is JSON
// over a WebSocket (our Beast client, viewer_client.h).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <boost/beast/core/detail/base64.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "integration/harness.h"
#include "integration/viewer_client.h"

namespace zs::integration {

class HeadlessChromium {
 public:
  // Starts Chromium on `url` (a 1280 x 800 window) and attaches to its page; ok() says whether
  // that worked within `timeout_s`, error() why not.
  explicit HeadlessChromium(const std::string& url, double timeout_s = 20) {
    profile_ = fs::temp_directory_path() /
               ("zs_chromium_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    fs::create_directories(profile_);
    const std::string log = (profile_ / "stderr").string();
    const std::string profile_flag = "--user-data-dir=" + profile_.string();
    pid_ = ::fork();
    if (pid_ == 0) {
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, 2);
      const int devnull = ::open("/dev/null", O_WRONLY);
      ::dup2(devnull, 1);
      ::execlp("chromium", "chromium", "--headless=new", "--no-sandbox", "--disable-gpu",
               "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
               "--hide-scrollbars", "--window-size=1280,800", "--remote-debugging-port=0",
               profile_flag.c_str(), url.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    Attach(log, timeout_s);
  }
  ~HeadlessChromium() {
    client_.reset();
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      for (int i = 0; i < 50 && ::waitpid(pid_, nullptr, WNOHANG) == 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    std::error_code ignored;
    fs::remove_all(profile_, ignored);
  }
  HeadlessChromium(const HeadlessChromium&) = delete;
  HeadlessChromium& operator=(const HeadlessChromium&) = delete;

  [[nodiscard]] bool ok() const { return client_ != nullptr; }
  [[nodiscard]] const std::string& error() const { return error_; }

  // The value of a JavaScript expression in the page (JSON; null on failure).
  nlohmann::json Evaluate(const std::string& expression) {
    const nlohmann::json r =
        Call("Runtime.evaluate", {{"expression", expression}, {"returnByValue", true}});
    return r.contains("result") && r["result"].contains("value") ? r["result"]["value"]
                                                                 : nlohmann::json();
  }
  // Writes a PNG of the page to `path`; false when none came.
  bool Screenshot(const std::string& path) {
    const nlohmann::json r = Call("Page.captureScreenshot", {{"format", "png"}});
    if (!r.contains("data")) return false;
    const std::string b64 = r["data"];
    std::string png(boost::beast::detail::base64::decoded_size(b64.size()), '\0');
    const auto [written, read] =
        boost::beast::detail::base64::decode(png.data(), b64.data(), b64.size());
    png.resize(written);
    std::ofstream(path, std::ios::binary) << png;
    return written > 0;
  }

 private:
  // Finds the DevTools port in Chromium's log, the page's WebSocket in /json/list, connects.
  void Attach(const std::string& log, double timeout_s) {
    const double end = NowS() + timeout_s;
    uint16_t port = 0;
    while (port == 0 && NowS() < end) {
      std::ifstream in(log);
      std::stringstream s;
      s << in.rdbuf();
      const std::string text = s.str();
      const std::string key = "DevTools listening on ws://127.0.0.1:";
      const size_t at = text.find(key);
      if (at != std::string::npos)
        port = static_cast<uint16_t>(std::stoi(text.substr(at + key.size())));
      if (port == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (port == 0) {
      error_ = "chromium did not open its DevTools port (is it installed? scripts/install-deps.sh)";
      return;
    }
    while (NowS() < end) {
      const std::string page = PageSocketPath(port);
      if (!page.empty()) {
        client_ = std::make_unique<ViewerClient>(port, page);
        if (client_->ok()) return;
        client_.reset();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    error_ = "no page target in chromium's /json/list";
  }

  // GET /json/list: its body, read by Content-Length (DevTools keeps the connection open).
  static std::string JsonList(uint16_t port) {
    boost::asio::io_context io;
    boost::asio::ip::tcp::socket s(io);
    boost::system::error_code ec;
    s.connect({boost::asio::ip::make_address("127.0.0.1"), port}, ec);
    if (ec) return "";
    boost::asio::write(
        s, boost::asio::buffer(std::string("GET /json/list HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")),
        ec);
    std::string resp;
    char buf[4096];
    for (;;) {
      const size_t head = resp.find("\r\n\r\n");
      if (head != std::string::npos) {
        const size_t cl = resp.find("Content-Length:");
        if (cl == std::string::npos || cl > head) return "";
        const size_t length = std::stoul(resp.substr(cl + 15));  // stoul skips spaces
        if (resp.size() >= head + 4 + length) return resp.substr(head + 4, length);
      }
      pollfd p{s.native_handle(), POLLIN, 0};
      if (::poll(&p, 1, 5000) <= 0) return "";
      const size_t n = s.read_some(boost::asio::buffer(buf), ec);
      if (ec) return "";
      resp.append(buf, n);
    }
  }

  static std::string PageSocketPath(uint16_t port) {
    const nlohmann::json list = nlohmann::json::parse(JsonList(port), nullptr, false);
    if (!list.is_array()) return "";
    for (const auto& t : list) {
      if (t.value("type", "") != "page" || !t.contains("webSocketDebuggerUrl")) continue;
      const std::string url = t["webSocketDebuggerUrl"];
      const size_t path = url.find("/devtools/");
      if (path != std::string::npos) return url.substr(path);
    }
    return "";
  }

  nlohmann::json Call(const std::string& method, const nlohmann::json& params) {
    if (!client_) return {};
    const int id = next_id_++;
    client_->Send(nlohmann::json{{"id", id}, {"method", method}, {"params", params}}.dump());
    for (int i = 0; i < 100; ++i) {  // events may come first
      const auto m = client_->Read(10);
      if (!m) return {};
      const nlohmann::json r = nlohmann::json::parse(*m, nullptr, false);
      if (r.is_object() && r.value("id", -1) == id) return r.value("result", nlohmann::json());
    }
    return {};
  }

  static inline int counter_ = 0;
  fs::path profile_;
  pid_t pid_ = -1;
  std::unique_ptr<ViewerClient> client_;
  std::string error_;
  int next_id_ = 1;
};

}  // namespace zs::integration
