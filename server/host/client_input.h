// ClientInput: everything a player's connection asks of the zone it plays in, once logged in,
// as one type: the one door from a session to the zones (PlayerPort::Submit) carries it, a
// zone runner queues it and applies it between ticks. Joining and leaving are not inputs (they
// make and end the player: PlayerPort::Join, Arrive, Leave).
//
// A game input is a zone::PlayerInput, as wire parses it: a new kind of input is a new
// alternative there (and its parse in wire, its handling in the zone); the session, the door,
// the routing and the queues carry it unchanged.
#pragma once

#include <cstdint>
#include <variant>

#include "zone/zone_types.h"

namespace zs::host {

// The client's send queue drained after a backlog: send it the whole picture again.
struct ResyncRequest {};

// An input the session refused itself (rate limits): told to the player in its next frame.
struct RefusedInput {
  zone::InputKind kind = zone::InputKind::kMove;
  uint32_t seq = 0;
  zone::Outcome outcome = zone::Outcome::kRateLimited;
};

using ClientInput = std::variant<zone::PlayerInput, ResyncRequest, RefusedInput>;

}  // namespace zs::host
