// Each player's view of the tick: what the zone hands its interest policy, and in which order.
//
// After the simulation steps, PrepareViews (one thread) fills the per-slot tables of the output
// (full states and change bits, encoded once by the wire layer however many players see them),
// indexes the hit events by the entities that took part, gathers what is relevant to each player
// (its attacker, its targets, the entity it hit last, monsters hunting it) and orders the players
// by the Morton code of their position (neighbours see mostly the same entities, so consecutive
// views find them in cache). BuildView(i) then asks the policy for view i; the views are
// independent of each other, so any number of threads may build them.
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

void Zone::IndexEvents(const ZoneTickOutput& out) {
  const size_t n = entities_.size();
  const auto slot_of = [this](EntityId id) {
    return static_cast<size_t>(slot_of_[EntityIndex(id)]);
  };
  involvement_start_.assign(n + 1, 0);
  const auto each_party = [&](const HitEvent& ev, auto&& fn) {
    fn(slot_of(ev.attacker));
    for (uint32_t t = 0; t < ev.num_targets; ++t) {
      fn(slot_of(out.targets[ev.first_target + t].target));
    }
  };
  for (const HitEvent& ev : out.events)
    each_party(ev, [&](size_t s) { ++involvement_start_[s + 1]; });
  for (size_t s = 0; s < n; ++s) involvement_start_[s + 1] += involvement_start_[s];
  involvement_.resize(involvement_start_[n]);
  involvement_cursor_.assign(involvement_start_.begin(), involvement_start_.end() - 1);
  for (uint32_t e = 0; e < out.events.size(); ++e) {
    each_party(out.events[e], [&](size_t s) { involvement_[involvement_cursor_[s]++] = e; });
  }
}

void Zone::CollectRelevance(const ZoneTickOutput& out) {
  relevance_.clear();
  const auto add = [this](EntityId player, EntityId other) {
    const Entity* p = Find(player);
    if (p != nullptr && p->kind == EntityKind::kPlayer && other != player) {
      relevance_.emplace_back(static_cast<uint32_t>(slot_of_[EntityIndex(player)]), ToRaw(other));
    }
  };
  for (const HitEvent& ev : out.events) {
    for (uint32_t t = 0; t < ev.num_targets; ++t) {
      const EntityId target = out.targets[ev.first_target + t].target;
      add(ev.attacker, target);  // your targets
      add(target, ev.attacker);  // your attacker
    }
  }
  for (const Entity& e : entities_) {
    if (e.kind == EntityKind::kPlayer && e.last_target != kInvalidEntity) {
      add(e.id, e.last_target);  // the entity you hit last
    } else if (e.kind == EntityKind::kMonster && e.ai == MonsterState::kChase) {
      add(e.target, e.id);  // a monster hunting you
    }
  }
  std::sort(relevance_.begin(), relevance_.end());
  relevance_.erase(std::unique(relevance_.begin(), relevance_.end()), relevance_.end());
  const size_t n = entities_.size();
  relevance_start_.assign(n + 1, 0);
  relevance_ids_.resize(relevance_.size());
  for (size_t i = 0; i < relevance_.size(); ++i) {
    ++relevance_start_[relevance_[i].first + 1];
    relevance_ids_[i] = static_cast<EntityId>(relevance_[i].second);
  }
  for (size_t s = 0; s < n; ++s) relevance_start_[s + 1] += relevance_start_[s];
}

void Zone::PrepareViews(uint32_t overload_level, size_t workers, ZoneTickOutput* out) {
  const size_t n = entities_.size();
  out->states.resize(n);
  out->changed.resize(n);
  IndexEvents(*out);
  subjects_.resize(n);
  for (size_t slot = 0; slot < n; ++slot) {
    Entity& e = entities_[slot];
    out->states[slot] = EntityState{.id = e.id,
                                    .kind = e.kind,
                                    .template_id = e.template_id,
                                    .position = e.position,
                                    .prev_position = e.prev_position,
                                    .facing = e.facing,
                                    .radius = e.radius,
                                    .hp = e.hp,
                                    .max_hp = e.max_hp,
                                    .alive = e.alive};
    out->changed[slot] = e.changed;
    for (uint32_t b = 0; b < interest::kChangeFields; ++b) {
      if ((e.changed >> b) & 1u) e.changed_at[b] = static_cast<uint32_t>(tick_);
    }
    subjects_[slot] = interest::Subject{
        .id = e.id,
        .position = e.position,
        .last_move_tick = e.prev_move_tick,
        .changed_at = e.changed_at,
        .changed = e.changed,
        .has_events =
            static_cast<uint8_t>(involvement_start_[slot + 1] != involvement_start_[slot])};
  }
  CollectRelevance(*out);

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
  view_slot_.resize(view_order_.size());
  for (size_t i = 0; i < view_order_.size(); ++i) {
    view_slot_[i] = static_cast<uint32_t>(view_order_[i] & 0xFFFFFFFFu);
  }
  out->views.resize(view_slot_.size());

  frame_ = interest::Frame{
      .tick = static_cast<uint32_t>(tick_),
      .subjects = subjects_,
      .slot_of = slot_of_,
      .churned = churned_,
      .tree = &tree_,
      .events = {.start = involvement_start_,
                 .items = involvement_,
                 .event_count = static_cast<uint32_t>(out->events.size())},
      .hysteresis = config_.view_hysteresis,
      .overload_level = overload_level,
  };
  interest_->BeginTick(frame_, workers);
}

void Zone::BuildView(size_t view, size_t worker, ZoneTickOutput* out) {
  const uint32_t slot = view_slot_[view];
  const Entity& player = entities_[slot];
  const bool departing = portal_of_.size() > slot && portal_of_[slot] != nullptr;
  const interest::Viewer viewer{
      .id = player.id,
      .slot = slot,
      .view_radius = ViewRadiusOf(player),
      .relevant =
          std::span<const EntityId>(relevance_ids_)
              .subspan(relevance_start_[slot], relevance_start_[slot + 1] - relevance_start_[slot]),
      .departing = departing,
  };
  PlayerView& v = out->views[view];
  interest_->BuildView(frame_, viewer, worker, &v);
  v.last_input_seq = player.last_input_seq;
}

}  // namespace zs::zone
