// InputRefusal: why a client's input was not applied, counted as
// `zs_rejected_inputs_total{reason}`: the zone's reasons (zone::Reject, in its order), then the
// host's own. Decided where the refusal arises and carried as the enum to the counter, which is
// an array of atomics: a refusal costs no lock and no string.
//
// DO NOT RENAME the names: they are label values in operators' dashboards.
// Threads: pure functions, any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "zone/zone_types.h"

namespace zs::host {

enum class InputRefusal : uint8_t {
  // The zone's (zone::Reject): the same numbers.
  kUnknownEntity,  // "unknown_entity"
  kDead,           // "dead"
  kBadValue,       // "bad_value"
  kUnknownSkill,   // "unknown_skill"
  kCooldown,       // "cooldown"
  // The host's.
  kServerBusy,   // "server_busy": a runner's inbox full (ZoneRunner::kMaxPendingRequests)
  kRateLimited,  // "rate_limited": over a message type's rate (the session's RateLimiter)
  kCount
};
static_assert(static_cast<size_t>(InputRefusal::kServerBusy) ==
                  static_cast<size_t>(zone::Reject::kCount),
              "the zone's reasons come first, in zone::Reject's order");

[[nodiscard]] constexpr InputRefusal RefusalOf(zone::Reject r) {
  return static_cast<InputRefusal>(r);
}

[[nodiscard]] constexpr std::string_view InputRefusalName(InputRefusal r) {
  switch (r) {
    case InputRefusal::kUnknownEntity:
      return "unknown_entity";
    case InputRefusal::kDead:
      return "dead";
    case InputRefusal::kBadValue:
      return "bad_value";
    case InputRefusal::kUnknownSkill:
      return "unknown_skill";
    case InputRefusal::kCooldown:
      return "cooldown";
    case InputRefusal::kServerBusy:
      return "server_busy";
    case InputRefusal::kRateLimited:
      return "rate_limited";
    case InputRefusal::kCount:
      break;
  }
  return "unknown";
}

}  // namespace zs::host
