// PlayerDirectory: which session plays which entity. Sessions and the world speak through ids
// (session id, EntityId), never pointers into each other; this is the one map between them.
// Thread: the tick loop's only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "core/entity_id.h"
#include "net/session_sink.h"

namespace zs::net {

class PlayerDirectory {
 public:
  struct Player {
    EntityId entity = kInvalidEntity;
    std::weak_ptr<SessionSink> sink;
    std::string name;
    bool resync = false;  // the next frame restarts the client's picture
  };

  // REQUIRES: neither the session nor the entity is listed.
  void Add(uint64_t session, Player player) {
    session_of_[ToRaw(player.entity)] = session;
    by_name_.emplace(player.name, session);  // the first one online keeps a shared name
    players_[session] = std::move(player);
  }
  void Remove(uint64_t session) {
    const auto it = players_.find(session);
    if (it == players_.end()) return;
    session_of_.erase(ToRaw(it->second.entity));
    if (const auto n = by_name_.find(it->second.name);
        n != by_name_.end() && n->second == session) {
      by_name_.erase(n);
    }
    players_.erase(it);
  }
  // The online player called `name` (whispers), or null.
  [[nodiscard]] Player* ByName(const std::string& name) {
    const auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : BySession(it->second);
  }
  [[nodiscard]] Player* BySession(uint64_t session) {
    const auto it = players_.find(session);
    return it == players_.end() ? nullptr : &it->second;
  }
  [[nodiscard]] Player* ByEntity(EntityId entity) {
    const auto it = session_of_.find(ToRaw(entity));
    return it == session_of_.end() ? nullptr : BySession(it->second);
  }
  [[nodiscard]] size_t size() const { return players_.size(); }

 private:
  std::unordered_map<uint64_t, Player> players_;       // by session id
  std::unordered_map<uint32_t, uint64_t> session_of_;  // by raw entity id
  std::unordered_map<std::string, uint64_t> by_name_;  // session by player name
};

}  // namespace zs::net
