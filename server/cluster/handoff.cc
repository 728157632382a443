// Hand-off request and reply: protobuf on the wire, plain structs on both sides.
#include "cluster/handoff.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <exception>
#include <optional>
#include <utility>

#include "cluster.pb.h"
#include "cluster/character_state.h"
#include "cluster/cluster_protocol.h"
#include "wire/websocket_url.h"

namespace zs::cluster {

namespace {

HandoffReply Refuse(HandoffOutcome outcome, const std::string& reason) {
  return HandoffReply{
      .outcome = outcome, .ticket = {}, .address = {}, .websocket_url = {}, .reason = reason};
}

// Parses and validates a request; a reply when it must be refused, else nullopt and *out.
std::optional<HandoffReply> ParseRequest(std::string_view bytes, HandoffRequest* out) {
  v1::HandoffRequest msg;
  if (!msg.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Refuse(HandoffOutcome::kBadRequest, "not a HandoffRequest (protobuf parse failed)");
  }
  if (msg.version() != kClusterProtocolVersion) {
    return Refuse(HandoffOutcome::kVersion, "request version " + std::to_string(msg.version()) +
                                                ", this server speaks " +
                                                std::to_string(kClusterProtocolVersion));
  }
  std::string error;
  if (!msg.has_character() || !FromProto(msg.character(), &out->character, &error)) {
    return Refuse(HandoffOutcome::kBadRequest,
                  msg.has_character() ? error : "request without a character");
  }
  if (!std::isfinite(msg.arrival_x()) || !std::isfinite(msg.arrival_y())) {
    return Refuse(HandoffOutcome::kBadRequest, "arrival point is not finite");
  }
  out->version = msg.version();
  out->from_node = msg.from_node();
  out->target_zone = msg.target_zone();
  out->arrival = Vec2{msg.arrival_x(), msg.arrival_y()};
  return std::nullopt;
}

}  // namespace

const char* HandoffOutcomeName(HandoffOutcome outcome) {
  switch (outcome) {
    case HandoffOutcome::kAccepted:
      return "accepted";
    case HandoffOutcome::kNotHosted:
      return "not_hosted";
    case HandoffOutcome::kFull:
      return "full";
    case HandoffOutcome::kBadRequest:
      return "bad_request";
    case HandoffOutcome::kVersion:
      return "version";
  }
  return "unknown";
}

std::string EncodeHandoffRequest(const HandoffRequest& request) {
  v1::HandoffRequest msg;
  msg.set_version(request.version);
  msg.set_from_node(request.from_node);
  msg.set_target_zone(request.target_zone);
  ToProto(request.character, msg.mutable_character());
  msg.set_arrival_x(request.arrival.x);
  msg.set_arrival_y(request.arrival.y);
  return msg.SerializeAsString();
}

std::string EncodeHandoffReply(const HandoffReply& reply) {
  v1::HandoffReply msg;
  msg.set_version(kClusterProtocolVersion);
  msg.set_outcome(static_cast<v1::HandoffOutcome>(reply.outcome));
  msg.set_ticket(reply.ticket);
  msg.set_address(reply.address);
  msg.set_websocket_url(reply.websocket_url);
  msg.set_reason(reply.reason);
  return msg.SerializeAsString();
}

bool DecodeHandoffReply(std::string_view bytes, HandoffReply* out, std::string* error) {
  v1::HandoffReply msg;
  if (!msg.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    *error = "not a HandoffReply (protobuf parse failed)";
    return false;
  }
  const int outcome = msg.outcome();
  if (outcome < static_cast<int>(HandoffOutcome::kAccepted) ||
      outcome > static_cast<int>(HandoffOutcome::kVersion)) {
    *error = "HandoffReply with unknown outcome " + std::to_string(outcome);
    return false;
  }
  if (!msg.websocket_url().empty() && !wire::IsWebSocketUrl(msg.websocket_url())) {
    // Handed to a client as it is: a node's reply is untrusted input like any other.
    *error = "HandoffReply whose websocket_url is not a ws:// or wss:// URL of at most " +
             std::to_string(wire::kMaxWebSocketUrl) + " bytes";
    return false;
  }
  *out = HandoffReply{.outcome = static_cast<HandoffOutcome>(outcome),
                      .ticket = msg.ticket(),
                      .address = msg.address(),
                      .websocket_url = msg.websocket_url(),
                      .reason = msg.reason()};
  return true;
}

HandoffResult RequestHandoff(NatsBus& bus, HandoffRequest request, uint32_t cell,
                             std::chrono::milliseconds timeout) {
  request.version = kClusterProtocolVersion;
  BusReply answer = bus.Request(HandoffSubject(request.target_zone, cell),
                                EncodeHandoffRequest(request), timeout);
  HandoffResult result{.status = answer.status, .reply = {}, .error = std::move(answer.error)};
  if (answer.status == BusStatus::kOk &&
      !DecodeHandoffReply(answer.bytes, &result.reply, &result.error)) {
    result.status = BusStatus::kError;
  }
  return result;
}

NatsBus::Handler MakeHandoffHandler(HandoffDecider decide) {
  return [decide = std::move(decide)](std::string_view bytes) -> std::string {
    HandoffRequest request;
    std::optional<HandoffReply> refused = ParseRequest(bytes, &request);
    if (refused) {
      spdlog::warn("cluster: hand-off request refused ({}): {}",
                   HandoffOutcomeName(refused->outcome), refused->reason);
      return EncodeHandoffReply(*refused);
    }
    try {
      return EncodeHandoffReply(decide(request));
    } catch (const std::exception& e) {
      spdlog::error("cluster: hand-off of '{}' from node '{}' failed: {}", request.character.name,
                    request.from_node, e.what());
      return EncodeHandoffReply(Refuse(HandoffOutcome::kBadRequest, e.what()));
    } catch (...) {
      spdlog::error("cluster: hand-off of '{}' from node '{}' failed", request.character.name,
                    request.from_node);
      return EncodeHandoffReply(Refuse(HandoffOutcome::kBadRequest, "the receiver failed"));
    }
  };
}

}  // namespace zs::cluster
