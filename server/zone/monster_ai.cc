// Monster AI: idle/wander near home, aggro on the nearest living player in range, chase, attack
// with the monster's skill (queued for the same combat step players use), leash back home and
// heal when dragged too far.
//
// Cost: one k=1 nearest query per idle monster every 10 ticks (staggered by id), one id lookup
// per chasing monster per tick: O(N log N) per tick overall, never N^2.
#include <cmath>

#include "zone/zone.h"

namespace zs::zone {

namespace {

constexpr float kHomeTolerance = 0.5f;

}  // namespace

void Zone::StepToward(Entity& e, Vec2 goal, float speed, float stop_distance) {
  const Vec2 to = goal - e.position;
  const float dist = Length(to);
  if (dist <= stop_distance || dist <= 1e-6f) {
    e.velocity = {};
    return;
  }
  const float step = std::min(speed, dist - stop_distance);
  // Anywhere in the zone: a monster that crosses into another cell migrates there.
  store_.Place(e, Clamp(e.position + to * (step / dist)), tick_);
  store_.Face(e, std::atan2(to.y, to.x));
}

void Zone::ThinkMonsters(uint64_t tick) {
  const float per_tick = 1.0f / static_cast<float>(world_->tick_rate);
  for (uint32_t slot = 0; slot < store_.size(); ++slot) {
    Entity& m = store_.at(slot);
    if (!m.is_monster() || m.is_ghost() || !m.alive) continue;
    MonsterPart& mp = m.monster();
    const MonsterTemplate& t = *mp.type;
    const float walk = t.walk_speed * per_tick;
    const float run = t.run_speed * per_tick;

    if (mp.ai == MonsterState::kIdle && tick >= mp.next_think && t.aggro_radius > 0) {
      mp.next_think = tick + kThinkInterval;
      // Players across a cell border too (their ghosts): the hits go to their cell.
      store_.tree().QueryNearest(m.position, 1, t.aggro_radius,
                                 {.mask = kMaskPlayerAlive | (kMaskPlayerAlive << kGhostShift)},
                                 &query_);
      if (!query_.ids.empty()) {
        mp.ai = MonsterState::kChase;
        mp.target = query_.ids[0];
      }
    }

    if (mp.ai == MonsterState::kChase) {
      const Entity* target = store_.Find(mp.target);
      if (target == nullptr || !target->alive ||
          DistanceSq(m.position, mp.home) > t.leash_radius * t.leash_radius) {
        mp.ai = MonsterState::kReturn;  // lost, dead, or dragged too far from home
        mp.target = kInvalidEntity;
      } else {
        const SkillDef* skill = m.num_skills > 0 ? world_->FindSkill(m.skills[0]) : nullptr;
        // Close enough to hit: the skill's reach plus the target's hitbox, with a margin so
        // that the swing (which uses the exact test) lands.
        const float reach =
            skill != nullptr
                ? (skill->shape == SkillShape::kCircle ? skill->radius : skill->range) +
                      target->radius
                : 0.0f;
        const Vec2 to = target->position - m.position;
        const float facing = std::atan2(to.y, to.x);
        if (skill != nullptr && Length(to) <= reach * 0.9f) {
          m.velocity = {};
          store_.Face(m, facing);
          if (tick >= m.ready_tick[0]) combat_.Queue(Combat::MonsterAttack(slot, facing, *target));
        } else {
          StepToward(m, target->position, run, reach * 0.8f);
        }
      }
    }

    if (mp.ai == MonsterState::kReturn) {
      const Vec2 before = m.position;
      StepToward(m, mp.home, run, 0.0f);
      if (m.position == before)
        store_.Place(m, mp.home, tick_);  // a step too small for float: arrive
      if (DistanceSq(m.position, mp.home) <= kHomeTolerance * kHomeTolerance) {
        mp.ai = MonsterState::kIdle;
        mp.next_think = tick + kThinkInterval;
        if (m.hp != m.max_hp) {
          m.hp = m.max_hp;  // back home: heal, so kiting a monster away does not wear it down
          m.changed |= kChangedHp;
        }
      }
      continue;
    }

    if (mp.ai == MonsterState::kIdle) {
      if (DistanceSq(m.position, mp.wander_goal) <= kHomeTolerance * kHomeTolerance) {
        // Pause, then pick a new spot near home now and then.
        if (rng_.Below(40) == 0) {
          const float a = rng_.Range(-kPi, kPi);
          const float d = rng_.Range(0.0f, t.wander_radius);
          mp.wander_goal = Clamp(mp.home + FromAngle(a) * d);
        } else {
          m.velocity = {};
        }
      } else {
        StepToward(m, mp.wander_goal, walk, 0.0f);
      }
    }
  }
}

}  // namespace zs::zone
