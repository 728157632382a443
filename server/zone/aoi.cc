// Area of interest: "who can see whom?", and each player's view of the tick.
//
// Per player: one circle query of radius view + hysteresis, compared with the set the player
// already knows through per-slot stamps (linear in the view, no sorting). An entity enters when its
// hitbox is within the view radius and leaves only when it is beyond view + hysteresis, so an
// entity walking along the edge does not flicker. Entities that stayed and changed go out as
// updates (only the changed fields, see ChangeBits). Hit events are visible when the attacker or a
// target is known (or is the player), found through a per-entity index of the events it took part
// in, so the cost follows the size of the view, not the number of events.
#include <algorithm>

#include "zone/zone.h"

namespace zs::zone {

namespace {

// Interleaves the bits of two 16-bit values: a Morton (Z-order) code.
uint32_t Interleave(uint32_t x, uint32_t y) {
  const auto spread = [](uint32_t v) {
    v &= 0xFFFFu;
    v = (v | (v << 8)) & 0x00FF00FFu;
    v = (v | (v << 4)) & 0x0F0F0F0Fu;
    v = (v | (v << 2)) & 0x33333333u;
    v = (v | (v << 1)) & 0x55555555u;
    return v;
  };
  return spread(x) | (spread(y) << 1);
}

}  // namespace

void Zone::BuildViews(ZoneTickOutput* out) {
  const size_t n = entities_.size();
  out->states.resize(n);
  out->changed.resize(n);
  for (size_t slot = 0; slot < n; ++slot) {
    const Entity& e = entities_[slot];
    out->states[slot] = EntityState{e.id,     e.kind, e.template_id, e.position, e.facing,
                                    e.radius, e.hp,   e.max_hp,      e.alive};
    out->changed[slot] = e.changed;
  }
  // Which events each slot took part in (compressed rows: involvement_start_[slot]..[slot+1]).
  involvement_start_.assign(n + 1, 0);
  const auto slot_of = [this](EntityId id) {
    return static_cast<size_t>(slot_of_[EntityIndex(id)]);
  };
  for (const HitEvent& ev : out->events) {
    ++involvement_start_[slot_of(ev.attacker) + 1];
    for (uint32_t t = 0; t < ev.num_targets; ++t) {
      ++involvement_start_[slot_of(out->targets[ev.first_target + t].target) + 1];
    }
  }
  for (size_t s = 0; s < n; ++s) involvement_start_[s + 1] += involvement_start_[s];
  involvement_.resize(involvement_start_[n]);
  std::vector<uint32_t>& cursor = event_seen_by_;  // the fill cursor; reset to marks below
  cursor.assign(involvement_start_.begin(), involvement_start_.end() - 1);
  for (uint32_t e = 0; e < out->events.size(); ++e) {
    const HitEvent& ev = out->events[e];
    involvement_[cursor[slot_of(ev.attacker)]++] = e;
    for (uint32_t t = 0; t < ev.num_targets; ++t) {
      involvement_[cursor[slot_of(out->targets[ev.first_target + t].target)]++] = e;
    }
  }
  event_seen_by_.assign(out->events.size(), 0);
  slot_info_.resize(n);
  for (size_t s = 0; s < n; ++s) {
    slot_info_[s] =
        SlotInfo{ToRaw(entities_[s].id), 0, entities_[s].changed,
                 static_cast<uint8_t>(involvement_start_[s + 1] != involvement_start_[s])};
  }

  // Visit players in Morton (Z-curve) order of their position: neighbours see mostly the same
  // entities, so consecutive views find them in cache. Ties by slot keep it deterministic.
  view_order_.clear();
  const Aabb& b = config_.bounds;
  const float sx = 65535.0f / (b.max.x - b.min.x);
  const float sy = 65535.0f / (b.max.y - b.min.y);
  for (uint32_t slot = 0; slot < n; ++slot) {
    const Entity& e = entities_[slot];
    if (e.kind != EntityKind::kPlayer) continue;
    const auto qx = static_cast<uint32_t>((e.position.x - b.min.x) * sx);
    const auto qy = static_cast<uint32_t>((e.position.y - b.min.y) * sy);
    view_order_.push_back((static_cast<uint64_t>(Interleave(qx, qy)) << 32) | slot);
  }
  std::sort(view_order_.begin(), view_order_.end());
  for (const uint64_t key : view_order_) {
    const auto slot = static_cast<uint32_t>(key & 0xFFFFFFFFu);
    BuildView(entities_[slot], slot, out);
  }
}

void Zone::BuildView(Entity& player, uint32_t slot, ZoneTickOutput* out) {
  PlayerView v;
  v.player = player.id;
  v.last_input_seq = player.last_input_seq;
  v.self = slot;
  const auto view_mark = static_cast<uint32_t>(out->views.size()) + 1;
  v.hits.begin = static_cast<uint32_t>(out->hit_refs.size());
  const auto add_events = [&](size_t s) {
    for (uint32_t k = involvement_start_[s]; k < involvement_start_[s + 1]; ++k) {
      const uint32_t e = involvement_[k];
      if (event_seen_by_[e] != view_mark) {
        event_seen_by_[e] = view_mark;
        out->hit_refs.push_back(e);
      }
    }
  };
  add_events(slot);

  v.entered.begin = v.entered.end = static_cast<uint32_t>(out->slot_refs.size());
  v.left.begin = static_cast<uint32_t>(out->left_ids.size());
  if (portal_of_.size() > slot && portal_of_[slot] != nullptr) {
    // Leaving through a portal: forget everything here; the next zone introduces itself.
    out->left_ids.insert(out->left_ids.end(), player.known.begin(), player.known.end());
    player.known.clear();
    v.zone_changed = true;
    v.left.end = static_cast<uint32_t>(out->left_ids.size());
    v.updated = v.entered;
    v.hits.end = static_cast<uint32_t>(out->hit_refs.size());
    out->views.push_back(v);
    return;
  }

  const float enter = player.view_radius > 0 ? player.view_radius : config_.view_radius;
  const float leave = enter + config_.view_hysteresis;
  tree_.QueryCircle({player.position, leave}, {.exclude = player.id}, spatial::QueryOrder::kAny,
                    &query_);
  const Circle enter_circle{player.position, enter};
  // Set membership with stamps instead of sorting: `stamp == known_mark` means "known
  // before this tick", `== kept_mark` means "known and still in range". No per-player clears.
  if (next_mark_ > 0xFFFFFFF0u) {
    for (SlotInfo& si : slot_info_) si.stamp = 0;
    next_mark_ = 1;
  }
  const uint32_t known_mark = next_mark_++;
  const uint32_t kept_mark = next_mark_++;
  std::vector<EntityId>& old = player.known;
  for (const EntityId id : old) {
    const uint32_t index = EntityIndex(id);
    if (index < slot_of_.size() && slot_of_[index] >= 0) {
      SlotInfo& si = slot_info_[static_cast<size_t>(slot_of_[index])];
      if (si.raw_id == ToRaw(id)) si.stamp = known_mark;
    }
  }
  std::vector<EntityId>& next = known_scratch_;
  next.clear();
  // Entered slots go straight to slot_refs; updated slots are gathered after them.
  updated_scratch_.clear();
  for (const EntityId id : query_.ids) {
    const auto s = static_cast<size_t>(slot_of_[EntityIndex(id)]);
    SlotInfo& si = slot_info_[s];
    if (si.stamp == known_mark) {
      si.stamp = kept_mark;  // known and still within view + hysteresis
      next.push_back(id);
      if (si.changed != 0) updated_scratch_.push_back(static_cast<uint32_t>(s));
      if (si.has_events != 0) add_events(s);
    } else {
      const EntityState& e = out->states[s];  // compact copy: kinder to the cache
      if (CircleHitsCircle(enter_circle, e.position, e.radius)) {
        out->slot_refs.push_back(static_cast<uint32_t>(s));
        next.push_back(id);
        add_events(s);
      }
    }
  }
  v.entered.end = static_cast<uint32_t>(out->slot_refs.size());
  v.updated.begin = v.entered.end;
  out->slot_refs.insert(out->slot_refs.end(), updated_scratch_.begin(), updated_scratch_.end());
  v.updated.end = static_cast<uint32_t>(out->slot_refs.size());
  // Whatever was known and not kept has left: out of range, or gone from the zone.
  for (const EntityId id : old) {
    const uint32_t index = EntityIndex(id);
    const SlotInfo* si = index < slot_of_.size() && slot_of_[index] >= 0
                             ? &slot_info_[static_cast<size_t>(slot_of_[index])]
                             : nullptr;
    if (si == nullptr || si->raw_id != ToRaw(id) || si->stamp != kept_mark) {
      out->left_ids.push_back(id);
    }
  }
  v.left.end = static_cast<uint32_t>(out->left_ids.size());
  player.known.swap(next);  // the old buffer becomes next tick's scratch
  v.hits.end = static_cast<uint32_t>(out->hit_refs.size());
  std::sort(out->hit_refs.begin() + v.hits.begin, out->hit_refs.end());
  out->views.push_back(v);
}

}  // namespace zs::zone
