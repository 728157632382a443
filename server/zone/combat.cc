// Combat (zone/combat.h): the queue of a tick's attacks and their resolution.
#include <algorithm>
#include <cmath>

#include "zone/combat.h"

namespace zs::zone {

void Combat::ResolveAll(uint64_t tick, const Rules& rules, EntityStore& store, CellBorder& border,
                        ZoneTickOutput* out) {
  for (const Attack& a : attacks_) {
    const Outcome outcome = Resolve(tick, a, rules, store, border, out);
    if (!a.from_player) continue;
    if (outcome == Outcome::kCooldown) ++out->rejected[static_cast<size_t>(Reject::kCooldown)];
    TellResult(store.at(a.slot).id, InputKind::kSkill, a.seq, outcome, &out->results);
  }
}

void Combat::NearestSurfaceFirst(Vec2 origin, const EntityStore& store) {
  // The quadtree orders by centre distance; a player expects the hitbox nearest to the blade
  // first: a big monster whose edge is closer wins over a small one behind it.
  auto surface = [&](EntityId id) {
    const Entity& e = store.at(static_cast<uint32_t>(store.SlotOf(id)));
    return Length(e.position - origin) - e.radius;
  };
  EntityId* ids = query_.ids.data();
  std::sort(ids, ids + query_.ids.size(), [&](EntityId a, EntityId b) {  // a total order
    const float da = surface(a), db = surface(b);
    return da < db || (da == db && ToRaw(a) < ToRaw(b));
  });
}

Outcome Combat::Resolve(uint64_t tick, const Attack& a, const Rules& rules, EntityStore& store,
                        CellBorder& border, ZoneTickOutput* out) {
  Entity& attacker = store.at(a.slot);
  if (!attacker.alive) return Outcome::kDead;  // died earlier this tick
  if (tick < attacker.ready_tick[a.skill_index]) return Outcome::kCooldown;
  const SkillDef& skill = *rules.world.FindSkill(attacker.skills[a.skill_index]);
  attacker.ready_tick[a.skill_index] = tick + std::max<uint32_t>(skill.cooldown_ticks, 1);
  store.Face(attacker, a.facing);

  spatial::QueryFilter filter;
  filter.exclude = attacker.id;
  const uint32_t real = attacker.is_monster()
                            ? kMaskPlayerAlive
                            : kMaskMonsterAlive | (rules.zone.pvp ? kMaskPlayerAlive : 0u);
  filter.mask = real | (real << kGhostShift);
  const Vec2 dir = FromAngle(attacker.facing);
  Vec2 origin = attacker.position;
  switch (skill.shape) {
    case SkillShape::kArc:
      store.tree().QuerySector({origin, attacker.facing, skill.half_angle, skill.range}, filter,
                               spatial::QueryOrder::kByDistance, &query_);
      break;
    case SkillShape::kCircle:
      if (skill.cast_range > 0) {  // a ground target, pulled back within cast range
        const Vec2 to = a.target - attacker.position;
        const float d = Length(to);
        origin = d <= skill.cast_range ? a.target : attacker.position + to * (skill.cast_range / d);
        const Aabb& b = rules.zone.bounds;  // and within the zone: a blast never centres outside
        origin = {std::clamp(origin.x, b.min.x, b.max.x), std::clamp(origin.y, b.min.y, b.max.y)};
      }
      store.tree().QueryCircle({origin, skill.radius}, filter, spatial::QueryOrder::kByDistance,
                               &query_);
      break;
    case SkillShape::kLine:
      origin = attacker.position + dir * attacker.radius;  // from the caster's front
      store.tree().QueryCapsule({origin, origin + dir * skill.range, skill.width * 0.5f}, filter,
                                spatial::QueryOrder::kByDistance, &query_);
      break;
  }
  NearestSurfaceFirst(origin, store);

  HitEvent event;
  event.attacker = attacker.id;
  event.skill = skill.id;
  event.origin = origin;
  event.facing = attacker.facing;
  event.first_target = static_cast<uint32_t>(out->targets.size());
  const size_t count = std::min<size_t>(query_.ids.size(), skill.max_targets);
  for (size_t i = 0; i < count; ++i) {
    Entity& target = store.at(static_cast<uint32_t>(store.SlotOf(query_.ids[i])));
    if (target.is_ghost()) {
      border.Deal(target.ghost_of, {.attacker = attacker.id,
                                    .target = target.id,
                                    .skill = skill.id,
                                    .damage = skill.damage});
      out->targets.push_back(HitTarget{
          .target = target.id, .damage = std::min(target.hp, skill.damage), .killed = false});
      continue;
    }
    out->targets.push_back(Damage(target, skill.damage, tick, rules, store));
  }
  event.num_targets = static_cast<uint32_t>(count);
  if (count > 0 && attacker.is_player()) attacker.player().last_target = query_.ids[0];
  out->events.push_back(event);
  return Outcome::kAccepted;
}

HitTarget Combat::Damage(Entity& target, int32_t damage, uint64_t tick, const Rules& rules,
                         EntityStore& store) {
  const int32_t removed = std::min(target.hp, damage);  // honest: never more than it had
  target.hp -= removed;
  target.changed |= kChangedHp;
  const bool killed = target.hp == 0;
  if (killed) {
    store.SetAlive(target, false);
    target.velocity = {};
    if (target.is_player()) {
      target.player().move_direction = {};
      target.respawn_tick = tick + rules.world.player.respawn_ticks;
    } else {
      target.respawn_tick = tick + rules.zone.spawns[target.monster().spawn_group].respawn_ticks;
    }
  }
  return HitTarget{.target = target.id, .damage = removed, .killed = killed};
}

}  // namespace zs::zone
