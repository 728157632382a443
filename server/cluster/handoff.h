// Hand-off requests between zone servers: the bytes on subject HandoffSubject(zone), both ends.
//
// The source of a hand-off calls RequestHandoff (to the zone's owner, found in the directory);
// the owner serves its zones with MakeHandoffHandler(decide), where `decide` is the server's
// own decision (is the zone hosted here, is there room, mint a ticket). This file does the
// protocol around it: parsing, the version check, validation of the character, and answering
// BAD_REQUEST to garbage bytes or a `decide` that throws, so that a bad peer never crashes the
// receiver and always gets an answer.
//
// Threads: RequestHandoff blocks its caller up to `timeout` (call it off the tick thread). The
// handler runs on libnats' delivery thread (NatsBus::Serve); so does `decide`.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "cluster/nats_bus.h"
#include "core/vec2.h"
#include "storage/character_record.h"

namespace zs::cluster {

// As on the wire (zs.cluster.v1.HandoffOutcome). DO NOT RENUMBER.
enum class HandoffOutcome : uint8_t {
  kAccepted = 1,
  kNotHosted = 2,
  kFull = 3,
  kBadRequest = 4,
  kVersion = 5,
};
const char* HandoffOutcomeName(HandoffOutcome outcome);  // "accepted", "not_hosted", ...

struct HandoffRequest {
  uint32_t version = 0;  // the sender's kClusterProtocolVersion (set by RequestHandoff)
  std::string from_node;
  uint32_t target_zone = 0;
  storage::CharacterRecord character;
  Vec2 arrival;  // metres, in the target zone
};

struct HandoffReply {
  HandoffOutcome outcome = HandoffOutcome::kBadRequest;
  std::string ticket;         // kAccepted
  std::string address;        // kAccepted: "host:port"
  std::string websocket_url;  // kAccepted: the receiver's WebSocket door; empty: it has none
  std::string reason;         // otherwise, for the logs
};

// What a hand-off request came to: the transport's status, and the reply when kOk.
struct HandoffResult {
  BusStatus status = BusStatus::kError;  // kOk: `reply` is the receiver's answer
  HandoffReply reply;
  std::string error;  // not kOk (or an unparsable reply: status kError)
};

// Sends `request` (version set here) to the owner of request.target_zone. Never throws.
// `cell`: the cell of a split zone the arrival is in (its owner answers), else kWholeZone.
HandoffResult RequestHandoff(NatsBus& bus, HandoffRequest request, uint32_t cell,
                             std::chrono::milliseconds timeout);

// The server's decision about a valid request of our version. May throw (answered
// kBadRequest with the exception's text).
using HandoffDecider = std::function<HandoffReply(const HandoffRequest&)>;
// A NatsBus::Handler serving hand-off requests with `decide`.
NatsBus::Handler MakeHandoffHandler(HandoffDecider decide);

// The protocol's two directions, for tests and tools.
std::string EncodeHandoffRequest(const HandoffRequest& request);
std::string EncodeHandoffReply(const HandoffReply& reply);
// false and *error when the bytes are not a valid reply.
[[nodiscard]] bool DecodeHandoffReply(std::string_view bytes, HandoffReply* out,
                                      std::string* error);

}  // namespace zs::cluster
