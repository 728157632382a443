// SharedIds: the entity ids of every zone runner of one process, so that a player keeps its id
// when it walks into a zone another runner ticks. A mutex around zone::EntityIdAllocator: ids
// are taken and given back on logins, logouts and monster respawns, never per input.
#pragma once

#include <mutex>

#include "zone/world.h"

namespace zs::host {

class SharedIds : public zone::IdSource {
 public:
  // Only the indices of `range` (a node of split zones: zone::IdsOfCell).
  explicit SharedIds(zone::IdRange range = {}) : ids_(range) {}
  [[nodiscard]] EntityId Allocate() override {
    std::lock_guard lock(mu_);
    return ids_.Allocate();
  }
  bool Free(EntityId id) override {
    std::lock_guard lock(mu_);
    return ids_.Free(id);
  }

 private:
  std::mutex mu_;
  zone::EntityIdAllocator ids_;  // guarded by mu_
};

}  // namespace zs::host
