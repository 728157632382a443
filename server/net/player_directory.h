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
    players_[session] = std::move(player);
  }
  void Remove(uint64_t session) {
    const auto it = players_.find(session);
    if (it == players_.end()) return;
    session_of_.erase(ToRaw(it->second.entity));
    players_.erase(it);
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
};

}  // namespace zs::net
