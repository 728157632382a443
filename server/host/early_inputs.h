// EarlyInputs: what clients sent behind their Hello before their character was in the world
// (its login still loading from storage): a client may pipeline its first inputs with its Hello,
// and those are applied once it enters, in the order they came, never dropped silently.
//
// At most kMaxPerSession per session (a second of moves at the default rate limit); Hold says
// when one more is not kept, so the caller can count it. Take hands a session's inputs over when
// its player entered; Drop forgets them when its login ended without a player (refused, routed
// to another server, or the client left).
// Threads: one (the zone runner's loop). Allocates per session that holds inputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "host/client_input.h"
#include "host/session_key.h"

namespace zs::host {

class EarlyInputs {
 public:
  static constexpr size_t kMaxPerSession = 64;

  // Keeps `input` after the session's earlier ones; false (not kept) when it holds the maximum.
  bool Hold(SessionKey session, ClientInput input) {
    std::vector<ClientInput>& held = held_[session];
    if (held.size() >= kMaxPerSession) return false;
    held.push_back(std::move(input));
    return true;
  }
  // The session's inputs in arrival order (none: empty), forgotten here.
  std::vector<ClientInput> Take(SessionKey session) {
    const auto it = held_.find(session);
    if (it == held_.end()) return {};
    std::vector<ClientInput> out = std::move(it->second);
    held_.erase(it);
    return out;
  }
  void Drop(SessionKey session) { held_.erase(session); }

  [[nodiscard]] bool empty() const { return held_.empty(); }
  // The sessions holding inputs (a copy: the caller may Take or Drop while it walks them).
  [[nodiscard]] std::vector<SessionKey> Sessions() const {
    std::vector<SessionKey> out;
    out.reserve(held_.size());
    for (const auto& [session, held] : held_) out.push_back(session);
    return out;
  }

 private:
  std::unordered_map<SessionKey, std::vector<ClientInput>> held_;
};

}  // namespace zs::host
