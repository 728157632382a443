#include "client_sim/chat_check.h"

#include <algorithm>

namespace zs::sim {

void ChatCheck::Said(SaidLine line) {
  std::lock_guard lock(mu_);
  said_.push_back(std::move(line));
}

void ChatCheck::AddListener(Listener listener) {
  if (listener.places.empty()) return;
  std::lock_guard lock(mu_);
  listeners_.push_back(std::move(listener));
}

size_t ChatCheck::lines() const {
  std::lock_guard lock(mu_);
  return said_.size();
}

std::map<std::string, uint64_t> ChatCheck::Check() const {
  std::lock_guard lock(mu_);
  std::map<std::string, uint64_t> out;
  for (const SaidLine& line : said_) {
    for (const Listener& l : listeners_) {
      const auto at =
          std::lower_bound(l.places.begin(), l.places.end(), line.tick,
                           [](const Listener::Place& p, uint64_t tick) { return p.tick < tick; });
      const auto heard = l.heard.find(line.token);
      if (at == l.places.end() || at->tick != line.tick || at->zone != line.zone) {
        if (heard != l.heard.end() && heard->second != line.tick) ++out["say_wrong_tick"];
        continue;  // not in that zone in that tick (or its frame was dropped): nothing to say
      }
      const int64_t dx = at->x - line.x, dy = at->y - line.y;
      const int64_t d2 = dx * dx + dy * dy;
      const int64_t reach = static_cast<int64_t>(line.chat_radius) + l.radius;
      const bool inside = d2 <= (reach - kSlackCm) * (reach - kSlackCm);
      const bool outside = d2 > (reach + kSlackCm) * (reach + kSlackCm);
      if (heard == l.heard.end()) {
        if (inside) ++out["say_missed"];
      } else if (heard->second != line.tick) {
        ++out["say_wrong_tick"];
      } else if (outside) {
        ++out["say_too_far"];
      }
    }
  }
  return out;
}

}  // namespace zs::sim
