// Area of interest: "who can see whom?", and each player's view of the tick.
//
// Per player: one circle query of radius view + hysteresis, sorted by id, merged with the
// sorted set the player already knows. An entity enters when its hitbox is within the view
// radius and leaves only when it is beyond view + hysteresis, so an entity walking along the
// edge does not flicker. Entities that stayed and changed go out as updates (only the changed
// fields, see ChangeBits). Hit events are visible when the attacker or a target is known (or
// is the player), found through a per-entity index of the events it took part in, so the cost
// follows the size of the view, not the number of events.
#include <algorithm>

#include "zone/zone.h"

namespace zs::zone {

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
  known_scratch_.clear();  // reused below as the fill cursor, then as the merge output
  std::vector<uint32_t>& cursor = event_seen_by_;
  cursor.assign(involvement_start_.begin(), involvement_start_.end() - 1);
  for (uint32_t e = 0; e < out->events.size(); ++e) {
    const HitEvent& ev = out->events[e];
    involvement_[cursor[slot_of(ev.attacker)]++] = e;
    for (uint32_t t = 0; t < ev.num_targets; ++t) {
      involvement_[cursor[slot_of(out->targets[ev.first_target + t].target)]++] = e;
    }
  }
  event_seen_by_.assign(out->events.size(), 0);

  for (uint32_t slot = 0; slot < n; ++slot) {
    if (entities_[slot].kind == EntityKind::kPlayer) BuildView(entities_[slot], slot, out);
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
  tree_.QueryCircle({player.position, leave}, {.exclude = player.id}, spatial::QueryOrder::kById,
                    &query_);
  const Circle enter_circle{player.position, enter};
  const std::vector<EntityId>& old = player.known;
  const EntityId* cand = query_.ids.data();
  const size_t num_cand = query_.ids.size();
  std::vector<EntityId>& next = known_scratch_;
  next.clear();
  // Pass 1: merge; entered slots go to slot_refs now, updated slots to a second pass.
  size_t i = 0;
  size_t j = 0;
  while (i < old.size() || j < num_cand) {
    if (j == num_cand || (i < old.size() && ToRaw(old[i]) < ToRaw(cand[j]))) {
      out->left_ids.push_back(old[i++]);  // beyond view + hysteresis, or gone from the zone
      continue;
    }
    const size_t s = static_cast<size_t>(slot_of_[EntityIndex(cand[j])]);
    if (i == old.size() || ToRaw(cand[j]) < ToRaw(old[i])) {
      const Entity& e = entities_[s];
      if (CircleHitsCircle(enter_circle, e.position, e.radius)) {
        out->slot_refs.push_back(static_cast<uint32_t>(s));
        next.push_back(cand[j]);
        add_events(s);
      }
      ++j;
      continue;
    }
    next.push_back(cand[j]);  // known and still within view + hysteresis
    add_events(s);
    ++i;
    ++j;
  }
  v.left.end = static_cast<uint32_t>(out->left_ids.size());
  v.entered.end = static_cast<uint32_t>(out->slot_refs.size());
  // Pass 2: updates for the entities that stayed (those in `old` and in `next`) and changed.
  v.updated.begin = v.entered.end;
  i = 0;
  for (const EntityId id : next) {
    while (i < old.size() && ToRaw(old[i]) < ToRaw(id)) ++i;
    if (i < old.size() && old[i] == id) {
      const auto s = static_cast<uint32_t>(slot_of_[EntityIndex(id)]);
      if (out->changed[s] != 0) out->slot_refs.push_back(s);
    }
  }
  v.updated.end = static_cast<uint32_t>(out->slot_refs.size());
  player.known.swap(next);  // the old buffer becomes next tick's scratch
  v.hits.end = static_cast<uint32_t>(out->hit_refs.size());
  std::sort(out->hit_refs.begin() + v.hits.begin, out->hit_refs.end());
  out->views.push_back(v);
}

}  // namespace zs::zone
