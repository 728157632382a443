// Client messages: bytes of one frame -> a validated intent, or an error with a reason.
//
// This is the only place that parses untrusted protobuf. Parsing applies the recursion limit;
// every number is checked (finite, in range) and converted from wire units (centimetres,
// 1/65536 turn) into simulation units (metres, radians). Pure: no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "names/player_name.h"
#include "wire/chat_text.h"
#include "zone/zone_types.h"

namespace zs::wire {

// The version this server speaks (zone.proto's history), and the oldest it still accepts.
inline constexpr uint32_t kProtocolVersion = 10;
inline constexpr uint32_t kMinProtocolVersion = 3;
// The first version sent TickUpdate.turned_* (older clients get those entities in `updated`).
inline constexpr uint32_t kTurnedVersion = 9;

enum class ClientKind : uint8_t { kHello, kMove, kSkill, kPing, kLogout, kChat };

enum class ParseError : uint8_t {
  kNone = 0,
  kUnparsable,  // not a ClientMessage (or nesting deeper than the recursion limit)
  kEmpty,       // a ClientMessage with no message set (unknown to this version)
  kBadValue,    // NaN/inf, an out-of-range number, or an unknown chat channel
  kBadName,     // Hello's player_name refused by names::CheckPlayerName (see name_problem)
};

[[nodiscard]] const char* ParseErrorName(ParseError e);

struct ClientIntent {
  ClientKind kind = ClientKind::kPing;
  // kHello
  uint32_t protocol_version = 0;
  std::string player_name;
  names::NameProblem name_problem = names::NameProblem::kNone;  // set with ParseError::kBadName
  // The login token (token mode). A Hello that carries one is not refused for its
  // player_name here (token mode ignores it); name_problem still says what is wrong with it.
  std::string auth_token;
  std::string ticket;  // v5: a hand-off ticket (a Hello with one is not refused for its name)
  // kPing
  uint64_t client_time = 0;
  // kMove, kSkill, kChat: what the player asks of the zone, as the zone takes it (the player
  // it names is left for the host, which knows who sent it). A chat's text is checked here
  // (ChatInput::text_ok), but a bad one is a refusal, not an error; its whisper recipient is
  // left by name (to_name) for the host to resolve.
  zone::PlayerInput input;
  // Whether this message is a game input (`input` holds it).
  [[nodiscard]] bool is_input() const {
    return kind == ClientKind::kMove || kind == ClientKind::kSkill || kind == ClientKind::kChat;
  }
};

// REQUIRES: nothing; any bytes are safe.
ParseError ParseClientMessage(std::string_view frame, int recursion_limit, ClientIntent* out);

// Wire units.
[[nodiscard]] int32_t ToCentimetres(float metres);
[[nodiscard]] float FromCentimetres(int32_t cm);
[[nodiscard]] uint32_t ToTurn16(float radians);
[[nodiscard]] float FromTurn16(uint32_t turn);

}  // namespace zs::wire
