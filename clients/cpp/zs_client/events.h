// Events: what a ServerMessage tells the game beyond the entity store, in the order the protocol
// lists it (a TickUpdate's hits, then its chat lines, then its input results; a ZoneChanged, a
// Kick, an Error or a Notice), as plain structs a game can switch on. tests/golden/README.md
// ("Events") is the same list, which every client reproduces.
// Pure: no state.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace zs::zone::v1 {
class ServerMessage;
}  // namespace zs::zone::v1

namespace zs::client {

struct HitTarget {
  uint32_t id = 0;
  int32_t damage = 0;
  bool killed = false;
};

struct HitEvent {
  uint32_t attacker = 0;
  uint32_t skill_id = 0;
  int32_t origin_x = 0;
  int32_t origin_y = 0;
  uint32_t facing = 0;
  std::vector<HitTarget> targets;
};

struct ChatEvent {
  int channel = 0;  // zone.proto's ChatChannel
  uint32_t from_id = 0;
  std::string from_name;
  std::string text;
  std::string to;
};

struct ResultEvent {
  int kind = 0;  // InputKind
  uint32_t seq = 0;
  int outcome = 0;  // Outcome
};

struct ZoneChangedEvent {
  uint32_t zone_id = 0;
  std::string zone_name;
  std::string server_address;  // empty: the zone is on this server
  std::string ticket;
  std::string websocket_url;  // v10: that server's WebSocket door (empty: none)
};

struct KickEvent {
  std::string reason;
};

struct ErrorEvent {
  int code = 0;  // ErrorCode
  std::string message;
};

struct NoticeEvent {
  int code = 0;  // NoticeCode
  std::string text;
};

using Event = std::variant<HitEvent, ChatEvent, ResultEvent, ZoneChangedEvent, KickEvent,
                           ErrorEvent, NoticeEvent>;

// Appends the events `message` raises to `out`.
void CollectEvents(const zone::v1::ServerMessage& message, std::vector<Event>* out);

}  // namespace zs::client
