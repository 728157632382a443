// Zone: migration, authority moving with a monster across a cell border (docs/seamless.md).
//
// At the end of a tick (Emigrate), a real monster farther than cells.migration_margin outside
// this cell becomes a ghost of the cell its centre is in, and its whole state goes to that cell
// with this tick's batch (a Migrant). The neighbour applies it at its next tick (Immigrate): the
// ghost it held becomes real in place, so its viewers see no enter or leave, only what changed.
// One real copy at every moment: the sender lets go before it sends, the receiver refuses a
// migrant whose id is real there already (Check), and nothing else makes an entity real.
#include <algorithm>
#include <utility>

#include "zone/zone.h"

namespace zs::zone {

namespace {

// Ticks from `now` until absolute tick `at` (0: due).
uint32_t TicksUntil(uint64_t at, uint64_t now) {
  return at > now ? static_cast<uint32_t>(std::min<uint64_t>(at - now, UINT32_MAX)) : 0;
}

}  // namespace

bool Zone::RealHere(EntityId id) const {
  const uint32_t index = EntityIndex(id);
  if (index >= slot_of_.size() || slot_of_[index] < 0) return false;
  return !entities_[static_cast<size_t>(slot_of_[index])].is_ghost();
}

Migrant Zone::MigrantOf(const Entity& e) const {
  const MonsterPart& m = e.monster();
  Migrant out{.body = {.id = e.id,
                       .kind = EntityKind::kMonster,
                       .template_id = e.template_id,
                       .position = e.position,
                       .velocity = e.velocity,
                       .facing = e.facing,
                       .radius = e.radius,
                       .hp = e.hp,
                       .max_hp = e.max_hp,
                       .alive = e.alive,
                       .name = {}},
              .spawn_group = m.spawn_group,
              .ai = m.ai,
              .target = m.target,
              .home = m.home,
              .wander_goal = m.wander_goal,
              .think_in = TicksUntil(m.next_think, tick_),
              .respawn_in = e.alive ? 0 : TicksUntil(e.respawn_tick, tick_),
              .ready_in = {}};
  for (size_t i = 0; i < kMaxSkills; ++i) out.ready_in[i] = TicksUntil(e.ready_tick[i], tick_);
  return out;
}

void Zone::Emigrate() {
  emigrants_.clear();
  if (cell_ == kWholeZone) return;
  const float margin = config_.cells.migration_margin;
  for (Entity& e : entities_) {
    if (!e.is_monster() || e.is_ghost() || RectDistanceSq(e.position, area_) <= margin * margin) {
      continue;
    }
    const uint32_t to = CellAt(config_.bounds, config_.cells, e.position);
    if (NeighbourOf(to) == nullptr) {  // cannot happen: a step is shorter than a cell
      Place(e, Confine(e.position));
      continue;
    }
    emigrants_.push_back({.cell = to, .migrant = MigrantOf(e)});
    // Kept as a ghost of its new cell, which lists it from its next batch on: until then
    // (ghost_seen in the future) no sweep drops it.
    e.ghost_of = to;
    e.ghost_seen = tick_ + 1;
    ++ghost_count_;
    (void)tree_.SetMask(e.id, MaskOf(e));
  }
}

void Zone::Immigrate(const Migrant& m, uint32_t from_cell) {
  Haunt(m.body, from_cell);  // the ghost held, brought up to date (or a new one)
  Entity& e = entities_[static_cast<size_t>(slot_of_[EntityIndex(m.body.id)])];
  const MonsterTemplate& t = *world_->FindMonster(m.body.template_id);
  // The sender's tick t is this cell's tick - 1: timers counted from there.
  const uint64_t base = tick_ > 0 ? tick_ - 1 : 0;
  e.ghost_of = kWholeZone;
  e.ghost_seen = 0;
  --ghost_count_;
  e.speed = t.walk_speed / static_cast<float>(world_->tick_rate);
  e.skills = {};
  e.skills[0] = t.skill;
  e.num_skills = world_->FindSkill(t.skill) != nullptr ? 1 : 0;
  for (size_t i = 0; i < kMaxSkills; ++i) e.ready_tick[i] = base + m.ready_in[i];
  e.respawn_tick = e.alive ? 0 : base + m.respawn_in;
  e.part = MonsterPart{.ai = m.ai,
                       .target = m.target,
                       .home = m.home,
                       .wander_goal = m.wander_goal,
                       .next_think = base + m.think_in,
                       .spawn_group = m.spawn_group,
                       .type = &t};
  (void)tree_.SetMask(e.id, MaskOf(e));
  immigrants_.push_back(e.id);
}

void Zone::ApplyHitsOnImmigrants(uint64_t tick, ZoneTickOutput* out) {
  if (!immigrants_.empty()) {
    for (const Dealt& d : dealt_last_) {
      if (std::find(immigrants_.begin(), immigrants_.end(), d.hit.target) == immigrants_.end()) {
        continue;
      }
      Entity* target = FindMutable(d.hit.target);
      const Entity* attacker = Find(d.hit.attacker);
      if (target == nullptr || !target->alive || attacker == nullptr) continue;
      // Its viewers here saw the hit last tick; a kill is told now (the owner's event).
      const HitTarget hit = Damage(*target, d.hit.damage, tick);
      if (!hit.killed) continue;
      out->events.push_back(HitEvent{.attacker = d.hit.attacker,
                                     .skill = d.hit.skill,
                                     .origin = attacker->position,
                                     .facing = attacker->facing,
                                     .first_target = static_cast<uint32_t>(out->targets.size()),
                                     .num_targets = 1});
      out->targets.push_back(hit);
    }
  }
  immigrants_.clear();
}

bool Zone::Plausible(const Migrant& m) const {
  const GhostState& g = m.body;
  if (g.kind != EntityKind::kMonster || !Plausible(g)) return false;
  // It is in this cell: the sender's CellAt, the same arithmetic.
  if (CellAt(config_.bounds, config_.cells, g.position) != cell_) return false;
  if (m.spawn_group >= config_.spawns.size()) return false;
  const MonsterTemplate* t = world_->FindMonster(g.template_id);
  if (t == nullptr || config_.spawns[m.spawn_group].monster != g.template_id) return false;
  if (g.max_hp != t->max_hp || g.radius != t->radius) return false;
  if (m.ai != MonsterState::kIdle && m.ai != MonsterState::kChase &&
      m.ai != MonsterState::kReturn) {
    return false;
  }
  if (!IsFinite(m.home) || !IsFinite(m.wander_goal) || !config_.bounds.Contains(m.home) ||
      !config_.bounds.Contains(m.wander_goal)) {
    return false;
  }
  if (m.think_in > kThinkInterval) return false;
  if (m.respawn_in > config_.spawns[m.spawn_group].respawn_ticks || (g.alive && m.respawn_in > 0)) {
    return false;
  }
  const SkillDef* skill = world_->FindSkill(t->skill);
  const uint32_t cooldown = skill != nullptr ? std::max<uint32_t>(skill->cooldown_ticks, 1) : 0;
  return std::all_of(m.ready_in.begin(), m.ready_in.end(),
                     [&](uint32_t ticks) { return ticks <= cooldown; });
}

GhostVerdict Zone::CheckMigrants(const GhostBatch& batch) const {
  if (batch.migrants.size() > kMaxGhostsPerBatch) return GhostVerdict::kTooMany;
  for (const Migrant& m : batch.migrants) {
    if (m.body.id == kInvalidEntity || RealHere(m.body.id)) return GhostVerdict::kForeignId;
    if (!Plausible(m)) return GhostVerdict::kBadValue;
  }
  return GhostVerdict::kTaken;
}

}  // namespace zs::zone
