// CharacterRecord <-> CharacterState, with validation of what another process sent.
#include "cluster/character_state.h"

#include <cmath>

namespace zs::cluster {

void ToProto(const storage::CharacterRecord& record, v1::CharacterState* out) {
  const zone::PlayerSnapshot& s = record.state;
  out->Clear();
  out->set_name(record.name);
  out->set_account(record.account);
  out->set_zone_id(s.zone);
  out->set_x(s.position.x);
  out->set_y(s.position.y);
  out->set_facing(s.facing);
  out->set_hp(s.hp);
  out->set_alive(s.alive);
  out->set_respawn_ms(s.respawn_ms);
  for (uint32_t i = 0; i < s.num_cooldowns && i < zone::kMaxSkills; ++i) {
    v1::Cooldown* c = out->add_cooldowns();
    c->set_skill(s.cooldowns[i].skill);
    c->set_remaining_ms(s.cooldowns[i].remaining_ms);
  }
  out->set_saved_at_ms(record.saved_at_ms);
}

bool FromProto(const v1::CharacterState& state, storage::CharacterRecord* out, std::string* error) {
  if (state.name().empty()) {
    *error = "character name is empty";
    return false;
  }
  if (!std::isfinite(state.x()) || !std::isfinite(state.y()) || !std::isfinite(state.facing())) {
    *error = "character '" + state.name() + "': position or facing is not finite";
    return false;
  }
  if (static_cast<size_t>(state.cooldowns_size()) > zone::kMaxSkills) {
    *error = "character '" + state.name() + "': " + std::to_string(state.cooldowns_size()) +
             " cooldowns, at most " + std::to_string(zone::kMaxSkills);
    return false;
  }
  *out = storage::CharacterRecord{.name = state.name(),
                                  .account = state.account(),
                                  .state = {.zone = state.zone_id(),
                                            .position = {state.x(), state.y()},
                                            .facing = state.facing(),
                                            .hp = state.hp(),
                                            .alive = state.alive(),
                                            .respawn_ms = state.respawn_ms()},
                                  .saved_at_ms = state.saved_at_ms()};
  for (const v1::Cooldown& c : state.cooldowns()) {
    out->state.cooldowns[out->state.num_cooldowns++] =
        zone::SkillCooldown{.skill = c.skill(), .remaining_ms = c.remaining_ms()};
  }
  return true;
}

}  // namespace zs::cluster
