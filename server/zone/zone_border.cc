// Zone: its side of the cell border (zone/cell_border.h, docs/seamless.md): the changes to the
// entities that the border's decisions call for.
//
// Ghosts: a neighbour's batch, applied at the start of the tick, adds or updates each listed
// entity as a ghost (position, facing, hp and alive recorded as changes, so viewers get the
// same deltas as for a real entity), and the neighbour's ghosts it no longer lists are removed.
//
// Migration: at the end of a tick (Emigrate), a real monster (or player, when players cross)
// farther than cells.migration_margin outside this cell becomes a ghost of the cell its centre is
// in, and its whole state goes to that cell with this tick's batch (a Migrant; a player's
// includes what its client knows, so its views go on without an enter). The neighbour applies it
// at its next tick (Immigrate): the ghost it held becomes real in place, so its viewers see no
// enter or leave, only what changed. One real copy at every moment: the sender lets go before it
// sends, the receiver refuses a migrant whose id is real there already (CellBorder's checks),
// and nothing else makes an entity real.
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
  const int32_t slot = store_.SlotOf(id);
  return slot >= 0 && !store_.at(static_cast<uint32_t>(slot)).is_ghost();
}

void Zone::SayAcross(EntityId speaker, std::string_view text) {
  const Entity* e = store_.Find(speaker);
  if (e != nullptr && e->is_real_player()) border_.SayAcross(speaker, e->position, text);
}

// ---- ghosts ----

void Zone::Haunt(const GhostState& g, uint32_t from_cell) {
  if (const int32_t found = store_.SlotOf(g.id); found >= 0) {
    const auto slot = static_cast<uint32_t>(found);
    Entity& e = store_.at(slot);
    // A real entity here never shares an index with another cell's (IdsOfCell); an older
    // generation of the ghost, or one that changed kind or size, is replaced.
    if (!e.is_ghost()) return;
    if (e.id != g.id || e.kind() != g.kind || e.template_id != g.template_id ||
        e.radius != g.radius) {
      store_.Erase(slot, views_);
    } else {
      e.ghost_of = from_cell;
      e.ghost_seen = tick_;
      store_.Place(e, g.position, tick_);
      e.velocity = g.velocity;
      store_.Face(e, g.facing);
      if (e.hp != g.hp || e.max_hp != g.max_hp) e.changed |= kChangedHp;
      e.hp = g.hp;
      e.max_hp = g.max_hp;
      store_.SetAlive(e, g.alive);
      return;
    }
  }
  Entity e;
  e.id = g.id;
  e.template_id = g.template_id;
  e.position = e.prev_position = g.position;
  e.velocity = g.velocity;
  e.facing = NormalizeAngle(g.facing);
  e.radius = g.radius;
  e.hp = g.hp;
  e.max_hp = g.max_hp;
  e.alive = g.alive;
  e.ghost_of = from_cell;
  e.ghost_seen = tick_;
  if (g.kind == EntityKind::kPlayer) {
    e.part = PlayerPart{};
  } else {
    MonsterPart m;
    m.type = world_->FindMonster(g.template_id);
    m.home = m.wander_goal = g.position;
    e.part = m;
  }
  // New to this zone this tick: whoever sees it gets it whole, its position as a jump.
  e.changed_at.fill(static_cast<uint32_t>(tick_));
  e.last_move_tick = e.prev_move_tick = static_cast<uint32_t>(tick_);
  store_.Insert(std::move(e), views_);
}

void Zone::ApplyGhosts(ZoneTickOutput* out) {
  if (!border_.Arrive(tick_, *this, &out->silent_cells)) return;
  // Highest slot first, so erasing (swap with the last) never moves a slot still to visit.
  for (auto slot = static_cast<uint32_t>(store_.size()); slot-- > 0;) {
    const Entity& e = store_.at(slot);
    if (e.is_ghost() && !border_.Keeps(e.ghost_of, e.ghost_seen)) {
      store_.Erase(slot, views_);
    }
  }
}

// ---- hits across the border ----

void Zone::ApplyRemoteHits(uint64_t tick, ZoneTickOutput* out) {
  remote_hits_.clear();
  border_.TakeHits(&remote_hits_);
  for (const RemoteHit& hit : remote_hits_) {
    Entity* target = store_.Find(hit.target);
    const Entity* attacker = store_.Find(hit.attacker);
    // Gone, dead or no longer here since the swing (or its attacker's ghost already gone):
    // the hit is lost, as a swing at an entity that just died is.
    if (target == nullptr || target->is_ghost() || !target->alive || attacker == nullptr) {
      continue;
    }
    const auto first = static_cast<uint32_t>(out->targets.size());
    out->targets.push_back(Combat::Damage(*target, hit.damage, tick, CombatRules(), store_));
    out->events.push_back(HitEvent{.attacker = hit.attacker,
                                   .skill = hit.skill,
                                   .origin = attacker->position,
                                   .facing = attacker->facing,
                                   .first_target = first,
                                   .num_targets = 1});
  }
}

void Zone::ApplyHitsOnImmigrants(uint64_t tick, ZoneTickOutput* out) {
  remote_hits_.clear();
  border_.TakeHitsOnImmigrants(&remote_hits_);
  for (const RemoteHit& hit : remote_hits_) {
    Entity* target = store_.Find(hit.target);
    const Entity* attacker = store_.Find(hit.attacker);
    if (target == nullptr || !target->alive || attacker == nullptr) continue;
    // Its viewers here saw the hit when it was dealt; a kill is told now (the owner's event).
    const HitTarget dealt = Combat::Damage(*target, hit.damage, tick, CombatRules(), store_);
    if (!dealt.killed) continue;
    out->events.push_back(HitEvent{.attacker = hit.attacker,
                                   .skill = hit.skill,
                                   .origin = attacker->position,
                                   .facing = attacker->facing,
                                   .first_target = static_cast<uint32_t>(out->targets.size()),
                                   .num_targets = 1});
    out->targets.push_back(dealt);
  }
}

// ---- migration ----

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
  if (border_.cell() == kWholeZone) return;
  const float margin = config_.cells.migration_margin;
  for (Entity& e : store_.all()) {
    if (!border_.Migrates(e) || RectDistanceSq(e.position, border_.area()) <= margin * margin) {
      continue;
    }
    const uint32_t to = CellAt(config_.bounds, config_.cells, e.position);
    // Only to a neighbour that is heard (within the ghost timeout): one not running yet, gone,
    // or cut off would lose it. Meanwhile the border holds it.
    if (!border_.Hears(to)) {
      store_.Place(e, Confine(e.position), tick_);
      continue;
    }
    border_.Emigrate(to, MigrantOf(e));
    if (e.is_player()) views_.RemoveViewer(e.id);  // no longer simulated here: no inputs, no views
    // Kept as a ghost of its new cell, which lists it from its next batch on: until then
    // (ghost_seen in the future) no sweep drops it.
    store_.MakeGhost(e, to, tick_ + 1);
  }
}

bool Zone::Immigrate(const Migrant& m, uint32_t from_cell) {
  if (RealHere(m.body.id)) return false;  // two neighbours sent it: the first one taken stands
  Haunt(m.body, from_cell);               // the ghost held, brought up to date (or a new one)
  Entity& e = store_.at(static_cast<uint32_t>(store_.SlotOf(m.body.id)));
  store_.MakeReal(e);  // the same category as the ghost's: a player or a monster, dead or alive
  BecomeReal(e, m);
  return true;
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
    views_.AddViewer(e.id);
    std::vector<EntityId> ids = m.player.known;  // once each, never itself
    std::sort(ids.begin(), ids.end(), [](EntityId a, EntityId b) { return ToRaw(a) < ToRaw(b); });
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::vector<std::pair<EntityId, uint32_t>> known;
    known.reserve(ids.size());
    for (const EntityId id : ids) {
      if (id == e.id) continue;
      const Entity* k = store_.Find(id);
      known.emplace_back(id, k != nullptr ? static_cast<uint32_t>(store_.SlotOf(id)) : 0);
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

void Zone::ExportBorder(ZoneTickOutput* out) {
  border_.Export(&out->border);
  if (out->border.empty()) return;  // a whole zone
  for (const Entity& e : store_.entities()) border_.Show(e, &out->border);
}

}  // namespace zs::zone
