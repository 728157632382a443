// AsyncPostJson: one HTTP/1.1 POST of a small JSON body on a fresh loopback connection
// (Boost.Beast), for the Agones sidecar's REST gateway (agones_sdk.h).
//
// A fresh connection per request: a few requests a second at most, and nothing to go stale
// when the sidecar restarts. The whole exchange (connect, write, read) shares one deadline,
// `timeout`; the answer's body is read up to kMaxResponseBytes and ignored. `done` runs exactly
// once, on a thread running `io`, with ok = a 2xx status and otherwise a short reason for the
// log ("connection refused", "timed out", "HTTP 500").
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace zs::cluster {

inline constexpr size_t kMaxResponseBytes = 64 * 1024;

using PostDone = std::function<void(bool ok, const std::string& why)>;

void AsyncPostJson(boost::asio::io_context& io, const boost::asio::ip::tcp::endpoint& to,
                   std::string_view target, std::string body, std::chrono::milliseconds timeout,
                   PostDone done);

}  // namespace zs::cluster
