// AsyncPostJson / AsyncGetJson: one HTTP/1.1 request on a fresh loopback connection (Boost.Beast),
// for the Agones sidecar's REST gateway (agones_sdk.h).
//
// A fresh connection per request: a few requests a second at most, and nothing to go stale
// when the sidecar restarts. The whole exchange (connect, write, read) shares one deadline,
// `timeout`. The answer's body is read up to a limit (kMaxResponseBytes for a POST, whose body
// is ignored; the caller's `max_body` for a GET): a longer answer is a failure ("answer larger
// than N bytes"), never buffered beyond the limit. `done` runs exactly once, on a thread running
// `io`, with ok = a 2xx status and otherwise a short reason for the log ("connection refused",
// "timed out", "HTTP 500"); a GET's `body` is the answer's body when ok (empty otherwise).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace zs::agones {

inline constexpr size_t kMaxResponseBytes = 64 * 1024;

using PostDone = std::function<void(bool ok, const std::string& why)>;
using GetDone = std::function<void(bool ok, const std::string& why, std::string body)>;

// POST `body` as application/json to `target`.
void AsyncPostJson(boost::asio::io_context& io, const boost::asio::ip::tcp::endpoint& to,
                   std::string_view target, std::string body, std::chrono::milliseconds timeout,
                   PostDone done);

// GET `target`, accepting application/json; the answer's body up to `max_body` bytes.
void AsyncGetJson(boost::asio::io_context& io, const boost::asio::ip::tcp::endpoint& to,
                  std::string_view target, std::chrono::milliseconds timeout, size_t max_body,
                  GetDone done);

}  // namespace zs::agones
