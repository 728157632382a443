// ClientInput: everything a player's connection asks of the zone it plays in, once logged in,
// as one type: the one door from a session to the zones (PlayerPort::Submit) carries it, a
// zone runner queues it and applies it between ticks. Joining and leaving are not inputs (they
// make and end the player: PlayerPort::Join, Arrive, Leave).
//
// A new kind of input is a new alternative here (and its parse in wire, its handling in the
// zone); the door, the routing and the queues carry it unchanged.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "zone/zone_types.h"

namespace zs::host {

// A chat line; `text_ok`: the text passed wire::IsChatText (else the sender is told BAD_TEXT
// and the text is not kept). `to`: a whisper's recipient, by name.
struct ChatRequest {
  zone::ChatInput chat;
  std::string text;
  bool text_ok = false;
  std::string to;
};

// The client's send queue drained after a backlog: send it the whole picture again.
struct ResyncRequest {};

// An input the session refused itself (rate limits): told to the player in its next frame.
struct RefusedInput {
  zone::InputKind kind = zone::InputKind::kMove;
  uint32_t seq = 0;
  zone::Outcome outcome = zone::Outcome::kRateLimited;
};

using ClientInput =
    std::variant<zone::MoveInput, zone::SkillInput, ChatRequest, ResyncRequest, RefusedInput>;

}  // namespace zs::host
