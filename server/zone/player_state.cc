// A player's lasting state in and out of a zone (persistence, hand-off): PlayerSnapshot.
#include <algorithm>
#include <cmath>

#include "zone/zone.h"

namespace zs::zone {

namespace {

// Milliseconds <-> ticks at `rate` ticks per second; partial ticks round up, so a cooldown
// never ends earlier than it would have.
uint64_t TicksFor(uint32_t ms, uint32_t rate) {
  return (static_cast<uint64_t>(ms) * rate + 999) / 1000;
}
uint32_t MillisFor(uint64_t ticks, uint32_t rate) {
  const uint64_t ms = ticks * 1000 / std::max<uint32_t>(rate, 1);
  return static_cast<uint32_t>(std::min<uint64_t>(ms, UINT32_MAX));
}

}  // namespace

PlayerSnapshot SnapshotOf(const Entity& player, uint32_t zone_id, uint64_t now, uint32_t rate) {
  const Entity* e = &player;
  PlayerSnapshot s{.zone = zone_id,
                   .position = e->position,
                   .facing = e->facing,
                   .hp = e->hp,
                   .alive = e->alive,
                   .respawn_ms = e->alive || e->respawn_tick <= now
                                     ? 0
                                     : MillisFor(e->respawn_tick - now, rate)};
  for (uint32_t i = 0; i < e->num_skills; ++i) {
    if (e->ready_tick[i] <= now) continue;
    s.cooldowns[s.num_cooldowns++] = {.skill = e->skills[i],
                                      .remaining_ms = MillisFor(e->ready_tick[i] - now, rate)};
  }
  return s;
}

Status Zone::SnapshotPlayer(EntityId id, uint64_t now, PlayerSnapshot* out) const {
  const Entity* e = store_.Find(id);
  if (e == nullptr || !e->is_real_player()) {
    return {StatusCode::kNotFound, "no such player in this zone"};
  }
  *out = SnapshotOf(*e, config_.id, now, world_->tick_rate);
  return Status::Ok();
}

Status Zone::RestorePlayer(EntityId id, const PlayerSnapshot& saved, uint64_t now) {
  Entity p = NewPlayer(id);
  const uint32_t rate = world_->tick_rate;
  p.facing = NormalizeAngle(saved.facing);
  p.alive = saved.alive && saved.hp > 0;
  p.hp = p.alive ? std::clamp(saved.hp, 1, p.max_hp) : 0;
  if (!p.alive) {
    const uint32_t longest = MillisFor(world_->player.respawn_ticks, rate);
    p.respawn_tick = now + TicksFor(std::min(saved.respawn_ms, longest), rate);
  }
  const uint32_t saved_count = std::min<uint32_t>(saved.num_cooldowns, kMaxSkills);
  for (uint32_t c = 0; c < saved_count; ++c) {
    const SkillCooldown& cd = saved.cooldowns[c];
    for (uint32_t i = 0; i < p.num_skills; ++i) {
      if (p.skills[i] != cd.skill) continue;
      const SkillDef* skill = world_->FindSkill(cd.skill);
      const uint32_t longest = skill != nullptr ? MillisFor(skill->cooldown_ticks, rate) : 0;
      p.ready_tick[i] = now + TicksFor(std::min(cd.remaining_ms, longest), rate);
    }
  }
  const Vec2 position = IsFinite(saved.position) ? saved.position : config_.player_spawn;
  return AdoptPlayer(std::move(p), position);
}

Status Zone::ContinueInputs(EntityId id, uint32_t last_input_seq) {
  Entity* e = store_.Find(id);
  if (e == nullptr || !e->is_real_player()) {
    return {StatusCode::kNotFound, "no such player in this zone"};
  }
  e->player().last_input_seq = last_input_seq;
  e->player().input_seq_seen = true;
  return Status::Ok();
}

}  // namespace zs::zone
