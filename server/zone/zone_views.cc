#include "zone/zone_views.h"

#include <algorithm>

#include "spatial/morton.h"

namespace zs::zone {

ZoneViews::ZoneViews(const interest::InterestConfig& config, uint32_t near_floor,
                     interest::WireCost cost)
    : policy_(interest::MakeTieredInterest(config, near_floor, cost)) {}

void ZoneViews::MarkChurned(size_t slot) {
  if (slot / 64 >= churned_.size()) churned_.resize(slot / 64 + 1, 0);
  churned_[slot / 64] |= uint64_t{1} << (slot % 64);
}

void ZoneViews::Adopt(EntityId player, std::span<const std::pair<EntityId, uint32_t>> known) {
  for (const auto& [id, slot] : known) MarkChurned(slot);
  policy_->Adopt(player, known);
}

void ZoneViews::Finish() { std::fill(churned_.begin(), churned_.end(), 0); }

const Entity* ZoneViews::Find(EntityId id) const {
  return FindEntity(source_.entities, source_.slot_of, id);
}

void ZoneViews::IndexEvents(const ZoneTickOutput& out) {
  const size_t n = source_.entities.size();
  involvement_start_.assign(n + 1, 0);
  const auto each_party = [&](const HitEvent& ev, auto&& fn) {
    fn(SlotOf(ev.attacker));
    for (uint32_t t = 0; t < ev.num_targets; ++t) {
      fn(SlotOf(out.targets[ev.first_target + t].target));
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

void ZoneViews::CollectRelevance(const ZoneTickOutput& out) {
  relevance_.clear();
  const auto add = [this](EntityId player, EntityId other) {
    const Entity* p = Find(player);
    if (p != nullptr && p->is_real_player() && other != player) {
      relevance_.emplace_back(static_cast<uint32_t>(SlotOf(player)), ToRaw(other));
    }
  };
  for (const HitEvent& ev : out.events) {
    for (uint32_t t = 0; t < ev.num_targets; ++t) {
      const EntityId target = out.targets[ev.first_target + t].target;
      add(ev.attacker, target);  // your targets
      add(target, ev.attacker);  // your attacker
    }
  }
  for (const Entity& e : source_.entities) {
    if (const auto* p = std::get_if<PlayerPart>(&e.part)) {
      if (p->last_target != kInvalidEntity) add(e.id, p->last_target);  // the one you hit last
    } else if (const auto* m = std::get_if<MonsterPart>(&e.part);
               m != nullptr && m->ai == MonsterState::kChase) {
      add(m->target, e.id);  // a monster hunting you
    }
  }
  std::sort(relevance_.begin(), relevance_.end());
  relevance_.erase(std::unique(relevance_.begin(), relevance_.end()), relevance_.end());
  const size_t n = source_.entities.size();
  relevance_start_.assign(n + 1, 0);
  relevance_ids_.resize(relevance_.size());
  for (size_t i = 0; i < relevance_.size(); ++i) {
    ++relevance_start_[relevance_[i].first + 1];
    relevance_ids_[i] = static_cast<EntityId>(relevance_[i].second);
  }
  for (size_t s = 0; s < n; ++s) relevance_start_[s + 1] += relevance_start_[s];
}

void ZoneViews::Prepare(const ViewSource& source, uint32_t overload_level, size_t workers,
                        ZoneTickOutput* out) {
  source_ = source;
  IndexEvents(*out);
  FillSubjects(out);
  CollectRelevance(*out);
  OrderViewers();
  out->views.resize(view_slot_.size());
  frame_ = interest::Frame{
      .tick = static_cast<uint32_t>(source_.tick),
      .subjects = subjects_,
      .slot_of = source_.slot_of,
      .churned = churned_,
      .tree = source_.tree,
      .events = {.start = involvement_start_,
                 .items = involvement_,
                 .event_count = static_cast<uint32_t>(out->events.size())},
      .hysteresis = source_.config->view_hysteresis,
      .overload_level = overload_level,
  };
  policy_->BeginTick(frame_, workers);
}

// The output's full state and change bits of every slot, and the policy's subjects; stamps
// each entity's fields with the tick they changed in.
void ZoneViews::FillSubjects(ZoneTickOutput* out) {
  const size_t n = source_.entities.size();
  out->states.resize(n);
  out->changed.resize(n);
  subjects_.resize(n);
  for (size_t slot = 0; slot < n; ++slot) {
    Entity& e = source_.entities[slot];
    out->states[slot] = EntityState{.id = e.id,
                                    .kind = e.kind(),
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
      if ((e.changed >> b) & 1u) e.changed_at[b] = static_cast<uint32_t>(source_.tick);
    }
    subjects_[slot] = interest::Subject{
        .id = e.id,
        .position = e.position,
        .last_move_tick = e.prev_move_tick,
        .changed_at = e.changed_at,
        .changed = e.changed,
        .has_events =
            static_cast<uint8_t>(involvement_start_[slot + 1] != involvement_start_[slot]),
        .name_length = static_cast<uint8_t>(
            std::min<size_t>(NameOf(out->names, out->states[slot]).size(), 255))};
  }
}

// The players in the Morton order of their position: consecutive views share most entities.
void ZoneViews::OrderViewers() {
  view_order_.clear();
  const Aabb& b = source_.config->bounds;
  const float sx = 65535.0f / (b.max.x - b.min.x);
  const float sy = 65535.0f / (b.max.y - b.min.y);
  for (uint32_t slot = 0; slot < source_.entities.size(); ++slot) {
    const Entity& e = source_.entities[slot];
    if (!e.is_real_player()) continue;
    const auto qx = static_cast<uint32_t>((e.position.x - b.min.x) * sx);
    const auto qy = static_cast<uint32_t>((e.position.y - b.min.y) * sy);
    view_order_.push_back((static_cast<uint64_t>(spatial::Interleave(qx, qy)) << 32) | slot);
  }
  std::sort(view_order_.begin(), view_order_.end());
  view_slot_.resize(view_order_.size());
  for (size_t i = 0; i < view_order_.size(); ++i) {
    view_slot_[i] = static_cast<uint32_t>(view_order_[i] & 0xFFFFFFFFu);
  }
}

void ZoneViews::Build(size_t view, size_t worker, ZoneTickOutput* out) {
  const uint32_t slot = view_slot_[view];
  const Entity& player = source_.entities[slot];
  const bool departing = source_.portal_of.size() > slot && source_.portal_of[slot] != nullptr;
  const interest::Viewer viewer{
      .id = player.id,
      .slot = slot,
      .view_radius = ViewRadiusOf(player, *source_.config),
      .relevant =
          std::span<const EntityId>(relevance_ids_)
              .subspan(relevance_start_[slot], relevance_start_[slot + 1] - relevance_start_[slot]),
      .departing = departing,
  };
  PlayerView& v = out->views[view];
  policy_->BuildView(frame_, viewer, worker, &v);
  v.last_input_seq = player.player().last_input_seq;
}

}  // namespace zs::zone
