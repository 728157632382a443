// Zone: migration, authority moving with an entity across a cell border (docs/seamless.md).
//
// At the end of a tick (Emigrate), a real monster (or player, when players cross) farther than
// cells.migration_margin outside this cell becomes a ghost of the cell its centre is in, and its
// whole state goes to that cell with this tick's batch (a Migrant; a player's includes what its
// client knows, so its views go on without an enter). The neighbour applies it at its next tick
// (Immigrate): the ghost it held becomes real in place, so its viewers see no enter or leave, only
// what changed. One real copy at every moment: the sender lets go before it sends, the receiver
// refuses a migrant whose id is real there already (Check), and nothing else makes an entity real.
#include <algorithm>
#include <utility>

#include "zone/zone.h"

namespace zs::zone {

namespace {

constexpr float kMaxViewRadius = 100000.0f;  // metres: a player's own view radius, at most

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
  Migrant out{.body = GhostOf(e),  // the World names players
              .player = {},
              .spawn_group = 0,
              .ai = MonsterState::kIdle,
              .target = kInvalidEntity,
              .home = {},
              .wander_goal = {},
              .think_in = 0,
              .respawn_in = e.alive ? 0 : TicksUntil(e.respawn_tick, tick_),
              .ready_in = {}};
  for (size_t i = 0; i < kMaxSkills; ++i) out.ready_in[i] = TicksUntil(e.ready_tick[i], tick_);
  if (e.is_player()) {
    const PlayerPart& p = e.player();
    out.player.move_direction = p.move_direction;
    out.player.last_input_seq = p.last_input_seq;
    out.player.input_seq_seen = p.input_seq_seen;
    out.player.view_radius = p.view_radius;
    out.player.last_target = p.last_target;
    std::vector<interest::KnownEntity> known;
    views_.policy().Known(e.id, &known);
    for (const interest::KnownEntity& k : known) out.player.known.push_back(k.id);
    return out;
  }
  const MonsterPart& m = e.monster();
  out.spawn_group = m.spawn_group;
  out.ai = m.ai;
  out.target = m.target;
  out.home = m.home;
  out.wander_goal = m.wander_goal;
  out.think_in = TicksUntil(m.next_think, tick_);
  return out;
}

void Zone::Emigrate() {
  emigrants_.clear();
  if (cell_ == kWholeZone) return;
  const float margin = config_.cells.migration_margin;
  for (Entity& e : entities_) {
    if (!Migrates(e) || RectDistanceSq(e.position, area_) <= margin * margin) continue;
    const uint32_t to = CellAt(config_.bounds, config_.cells, e.position);
    // Only to a neighbour that is heard (within the ghost timeout): one not running yet, gone,
    // or cut off would lose it. Meanwhile the border holds it.
    const Neighbour* n = NeighbourOf(to);
    if (n == nullptr || !n->heard) {
      Place(e, Confine(e.position));
      continue;
    }
    emigrants_.push_back({.cell = to, .migrant = MigrantOf(e)});
    if (e.is_player()) {  // no longer simulated here: no inputs, no views
      --player_count_;
      views_.RemoveViewer(e.id);
    }
    // Kept as a ghost of its new cell, which lists it from its next batch on: until then
    // (ghost_seen in the future) no sweep drops it.
    e.ghost_of = to;
    e.ghost_seen = tick_ + 1;
    ++ghost_count_;
    (void)tree_.SetMask(e.id, MaskOf(e));
  }
}

void Zone::Immigrate(const Migrant& m, uint32_t from_cell, uint64_t hits_applied) {
  if (RealHere(m.body.id)) return;  // two neighbours sent it: the first one taken stands
  Haunt(m.body, from_cell);         // the ghost held, brought up to date (or a new one)
  Entity& e = entities_[static_cast<size_t>(slot_of_[EntityIndex(m.body.id)])];
  e.ghost_of = kWholeZone;
  e.ghost_seen = 0;
  --ghost_count_;
  BecomeReal(e, m);
  (void)tree_.SetMask(e.id, MaskOf(e));
  immigrants_.push_back({.id = e.id, .from = from_cell, .hits_applied = hits_applied});
}

void Zone::BecomeReal(Entity& e, const Migrant& m) {
  // The sender's tick t is this cell's tick - 1: timers counted from there.
  const uint64_t base = tick_ > 0 ? tick_ - 1 : 0;
  for (size_t i = 0; i < kMaxSkills; ++i) e.ready_tick[i] = base + m.ready_in[i];
  e.respawn_tick = e.alive ? 0 : base + m.respawn_in;
  if (m.body.kind == EntityKind::kPlayer) {
    const Entity fresh = NewPlayer(e.id);  // speed and skills from the template
    e.speed = fresh.speed;
    e.skills = fresh.skills;
    e.num_skills = fresh.num_skills;
    e.part = PlayerPart{.move_direction = m.player.move_direction,
                        .last_input_seq = m.player.last_input_seq,
                        .input_seq_seen = m.player.input_seq_seen,
                        .view_radius = m.player.view_radius,
                        .last_target = m.player.last_target};
    ++player_count_;
    views_.AddViewer(e.id);
    std::vector<EntityId> ids = m.player.known;  // once each, never itself
    std::sort(ids.begin(), ids.end(), [](EntityId a, EntityId b) { return ToRaw(a) < ToRaw(b); });
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::vector<std::pair<EntityId, uint32_t>> known;
    known.reserve(ids.size());
    for (const EntityId id : ids) {
      if (id == e.id) continue;
      const Entity* k = Find(id);
      known.emplace_back(id, k != nullptr ? static_cast<uint32_t>(slot_of_[EntityIndex(id)]) : 0);
    }
    views_.Adopt(e.id, known);
    return;
  }
  const MonsterTemplate& t = *world_->FindMonster(m.body.template_id);
  e.speed = t.walk_speed / static_cast<float>(world_->tick_rate);
  e.skills = {};
  e.skills[0] = t.skill;
  e.num_skills = world_->FindSkill(t.skill) != nullptr ? 1 : 0;
  e.part = MonsterPart{.ai = m.ai,
                       .target = m.target,
                       .home = m.home,
                       .wander_goal = m.wander_goal,
                       .next_think = base + m.think_in,
                       .spawn_group = m.spawn_group,
                       .type = &t};
}

void Zone::ApplyHitsOnImmigrants(uint64_t tick, ZoneTickOutput* out) {
  for (const Immigrant& im : immigrants_) {
    // Our hits on it sent to the cell it came from after the last of our batches whose hits that
    // cell applied: it let the entity go before it could apply them, and never will.
    std::erase_if(dealt_history_, [&](const Dealt& d) {
      if (d.cell != im.from || d.hit.target != im.id || d.tick <= im.hits_applied) return false;
      Entity* target = FindMutable(d.hit.target);
      const Entity* attacker = Find(d.hit.attacker);
      if (target == nullptr || !target->alive || attacker == nullptr) return true;
      // Its viewers here saw the hit when it was dealt; a kill is told now (the owner's event).
      const HitTarget hit = Damage(*target, d.hit.damage, tick);
      if (hit.killed) {
        out->events.push_back(HitEvent{.attacker = d.hit.attacker,
                                       .skill = d.hit.skill,
                                       .origin = attacker->position,
                                       .facing = attacker->facing,
                                       .first_target = static_cast<uint32_t>(out->targets.size()),
                                       .num_targets = 1});
        out->targets.push_back(hit);
      }
      return true;
    });
  }
  immigrants_.clear();
}

bool Zone::PlausiblePlayer(const Migrant& m) const {
  const GhostState& g = m.body;
  const PlayerTemplate& t = world_->player;
  const PlayerMigrant& p = m.player;
  if (g.name.empty() || g.max_hp != t.max_hp || g.radius != t.radius) return false;
  if (!IsFinite(p.move_direction) || LengthSq(p.move_direction) > 1.0001f) return false;
  if (!std::isfinite(p.view_radius) || p.view_radius < 0 || p.view_radius > kMaxViewRadius) {
    return false;
  }
  if (p.known.size() > kMaxGhostsPerBatch) return false;
  if (m.respawn_in > t.respawn_ticks || (g.alive && m.respawn_in > 0)) return false;
  uint32_t cooldown = 0;
  for (const uint32_t id : t.skills) {
    const SkillDef* skill = world_->FindSkill(id);
    if (skill != nullptr)
      cooldown = std::max<uint32_t>(cooldown, std::max<uint32_t>(skill->cooldown_ticks, 1));
  }
  return std::all_of(m.ready_in.begin(), m.ready_in.end(),
                     [&](uint32_t ticks) { return ticks <= cooldown; });
}

bool Zone::Plausible(const Migrant& m) const {
  const GhostState& g = m.body;
  if (!Plausible(g)) return false;
  // It is in this cell: the sender's CellAt, the same arithmetic.
  if (CellAt(config_.bounds, config_.cells, g.position) != cell_) return false;
  if (g.kind == EntityKind::kPlayer) return PlausiblePlayer(m);
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
    // A player only where players cross: its host relays its connection.
    if (!Plausible(m) || (m.body.kind == EntityKind::kPlayer && !players_cross_)) {
      return GhostVerdict::kBadValue;
    }
  }
  return GhostVerdict::kTaken;
}

}  // namespace zs::zone
