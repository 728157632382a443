// ParseGameServerAddress: where clients reach this game server, read from the Agones SDK's
// `GET /gameserver` answer (the REST gateway's JSON of the SDK's GameServer message):
//
//   {"object_meta": {...}, "spec": {...},
//    "status": {"state": "Ready", "address": "34.89.10.7",
//               "ports": [{"name": "game", "port": 7342}]}}
//
// status.address is the node's external address and status.ports[].port the host port Agones
// allocated to the Fleet's port of that name (portPolicy Dynamic: known only from here).
//
// Untrusted input (the sidecar is another process): nothing here throws or recurses on the
// input's nesting. An answer that can never be right is kMalformed, with a reason naming the
// field: not JSON, larger than kMaxGameServerBytes, nested deeper than kMaxGameServerDepth, a
// field of the wrong type, a port outside 1..65535, an address with characters no host name or
// IP literal has. An answer that is well formed but not filled in yet (no status, an empty
// address, no port of that name: the GameServer is still being scheduled) is kIncomplete: ask
// again later. Unknown fields are ignored (Agones adds some in every release).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace zs::agones {

inline constexpr size_t kMaxGameServerBytes = 1024 * 1024;  // a GameServer is a few KiB
inline constexpr int kMaxGameServerDepth = 32;              // a GameServer nests about 5 deep

enum class GameServerParse : uint8_t { kOk, kIncomplete, kMalformed };

struct GameServerAddress {
  GameServerParse outcome = GameServerParse::kMalformed;
  std::string host;   // kOk: status.address
  uint16_t port = 0;  // kOk: the named port's status.ports[].port
  std::string state;  // status.state when given ("Scheduled", "Ready", ...), for messages
  std::string why;    // kIncomplete, kMalformed: what is missing or wrong

  // Not an address: kIncomplete or kMalformed, with the reason.
  static GameServerAddress Not(GameServerParse outcome, std::string why, std::string state = {}) {
    return {.outcome = outcome,
            .host = {},
            .port = 0,
            .state = std::move(state),
            .why = std::move(why)};
  }
  // "host:port", or "[host]:port" for an IPv6 address. REQUIRES: outcome == kOk.
  [[nodiscard]] std::string HostPort() const;
};

[[nodiscard]] GameServerAddress ParseGameServerAddress(std::string_view json,
                                                       std::string_view port_name);

}  // namespace zs::agones
