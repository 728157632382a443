// Zone: ghosts, the entities of neighbouring cells near the border (zone/cells.h).
//
// A neighbour's GhostBatch is checked whole when it arrives (TakeGhosts) and applied at the start
// of the next tick (ApplyGhosts): each listed entity is added or updated as a ghost (position,
// facing, hp and alive recorded as changes, so viewers get the same deltas as for a real
// entity), and the neighbour's ghosts it no longer lists are removed. A neighbour silent for
// ghost_timeout_ticks loses every ghost here. After the tick, ExportBorder lists this cell's
// real entities near each neighbour.
#include <algorithm>
#include <cmath>
#include <utility>

#include "zone/zone.h"

namespace zs::zone {

namespace {

constexpr float kMaxGhostRadius = 1000.0f;
constexpr size_t kMaxBorderTextBytes = 256;  // a ghost's name, a say across the border
// A ghost may stand this much farther than ghost_distance from the cell it is sent to: float
// rounding at the sender, whose test is the same distance.
constexpr float kGhostDistanceSlack = 0.01f;

}  // namespace

void Zone::FindNeighbours() {
  if (cell_ == kWholeZone) return;
  for (uint32_t c = 0; c < config_.cells.count(); ++c) {
    if (!Neighbours(config_.cells, cell_, c)) continue;
    Neighbour n;
    n.cell = c;
    n.bounds = CellBounds(config_.bounds, config_.cells, c);
    neighbours_.push_back(std::move(n));
  }
}

Zone::Neighbour* Zone::NeighbourOf(uint32_t cell) {
  for (Neighbour& n : neighbours_) {
    if (n.cell == cell) return &n;
  }
  return nullptr;
}

bool Zone::Plausible(const GhostState& g) const {
  const bool finite = IsFinite(g.position) && IsFinite(g.velocity) && std::isfinite(g.facing) &&
                      std::isfinite(g.radius);
  if (!finite || !config_.bounds.Contains(g.position)) return false;
  const float reach = config_.cells.ghost_distance + kGhostDistanceSlack;
  if (RectDistanceSq(g.position, area_) > reach * reach) return false;
  if (!(g.radius > 0 && g.radius <= kMaxGhostRadius)) return false;
  if (g.max_hp < 1 || g.hp < 0 || g.hp > g.max_hp) return false;
  if (g.name.size() > kMaxBorderTextBytes) return false;
  if (g.kind == EntityKind::kMonster) return world_->FindMonster(g.template_id) != nullptr;
  return g.kind == EntityKind::kPlayer && g.template_id == 0;
}

GhostVerdict Zone::Check(const GhostBatch& batch) {
  const Neighbour* n = NeighbourOf(batch.from_cell);
  if (n == nullptr || batch.zone != config_.id || batch.to_cell != cell_) {
    return GhostVerdict::kNotANeighbour;
  }
  if (n->taken_any &&
      (batch.epoch < n->epoch || (batch.epoch == n->epoch && batch.tick <= n->tick))) {
    return GhostVerdict::kStale;
  }
  if (batch.ghosts.size() > kMaxGhostsPerBatch) return GhostVerdict::kTooMany;
  // An entity's id stays its own wherever it migrates, so any cell may list any id; never one
  // real here (that would be a second real copy).
  ghost_ids_.clear();
  for (uint32_t i = 0; i < batch.ghosts.size(); ++i) {
    const GhostState& g = batch.ghosts[i];
    if (g.id == kInvalidEntity || RealHere(g.id)) return GhostVerdict::kForeignId;
    if (!Plausible(g)) return GhostVerdict::kBadValue;
    ghost_ids_.emplace_back(ToRaw(g.id), i);
  }
  if (const GhostVerdict v = CheckMigrants(batch); v != GhostVerdict::kTaken) return v;
  for (uint32_t i = 0; i < batch.migrants.size(); ++i) {  // listed like the ghosts (Listed)
    ghost_ids_.emplace_back(ToRaw(batch.migrants[i].body.id), batch.ghosts.size() + i);
  }
  std::sort(ghost_ids_.begin(), ghost_ids_.end());
  const auto same_id = [](const auto& a, const auto& b) { return a.first == b.first; };
  if (std::adjacent_find(ghost_ids_.begin(), ghost_ids_.end(), same_id) != ghost_ids_.end()) {
    return GhostVerdict::kForeignId;  // an id twice
  }
  if (batch.hits.size() > kMaxGhostsPerBatch) return GhostVerdict::kTooMany;
  for (const RemoteHit& hit : batch.hits) {
    const GhostState* attacker = Listed(batch, hit.attacker);
    if (attacker == nullptr || hit.target == kInvalidEntity) return GhostVerdict::kForeignId;
    if (!MayDeal(*attacker, hit)) return GhostVerdict::kBadValue;
  }
  if (batch.says.size() > kMaxGhostsPerBatch) return GhostVerdict::kTooMany;
  for (const BorderSay& say : batch.says) {
    const GhostState* speaker = Listed(batch, say.speaker);
    if (speaker == nullptr || speaker->kind != EntityKind::kPlayer) {
      return GhostVerdict::kForeignId;
    }
    if (say.text.empty() || say.text.size() > kMaxBorderTextBytes) return GhostVerdict::kBadValue;
  }
  return GhostVerdict::kTaken;
}

void Zone::SayAcross(EntityId speaker, std::string_view text) {
  const Entity* e = Find(speaker);
  if (e == nullptr || !e->is_real_player()) return;
  const float hear = config_.chat_radius + world_->player.radius;
  const float d = config_.cells.ghost_distance;
  for (const Neighbour& n : neighbours_) {
    const float away = RectDistanceSq(e->position, n.bounds);
    if (away <= hear * hear && away <= d * d) {
      said_.push_back({.cell = n.cell, .say = {.speaker = speaker, .text = std::string(text)}});
    }
  }
}

const GhostState* Zone::Listed(const GhostBatch& batch, EntityId id) const {
  const auto it = std::lower_bound(ghost_ids_.begin(), ghost_ids_.end(),
                                   std::pair<uint32_t, uint32_t>(ToRaw(id), 0));
  if (it == ghost_ids_.end() || it->first != ToRaw(id)) return nullptr;
  const size_t i = it->second;
  return i < batch.ghosts.size() ? &batch.ghosts[i] : &batch.migrants[i - batch.ghosts.size()].body;
}

// The attacker (one of the batch's ghosts) has the skill, and the hit is that skill's damage.
bool Zone::MayDeal(const GhostState& attacker, const RemoteHit& hit) const {
  const SkillDef* skill = world_->FindSkill(hit.skill);
  if (skill == nullptr || hit.damage != skill->damage) return false;
  if (attacker.kind == EntityKind::kMonster) {
    return world_->FindMonster(attacker.template_id)->skill == hit.skill;
  }
  const std::vector<uint32_t>& skills = world_->player.skills;
  return std::find(skills.begin(), skills.end(), hit.skill) != skills.end();
}

GhostVerdict Zone::TakeGhosts(GhostBatch batch) {
  const GhostVerdict verdict = Check(batch);
  if (verdict != GhostVerdict::kTaken) return verdict;
  Neighbour& n = *NeighbourOf(batch.from_cell);
  n.taken_any = true;
  n.epoch = batch.epoch;
  n.tick = batch.tick;
  n.hits.insert(n.hits.end(), batch.hits.begin(), batch.hits.end());
  for (BorderSay& say : batch.says) n.says.push_back(std::move(say));
  // Migrants are never dropped for a newer batch: each is the only copy of its entity.
  for (Migrant& m : batch.migrants) n.migrants.emplace_back(std::move(m), batch.hits_applied);
  n.batch = std::move(batch);
  n.pending = true;
  return GhostVerdict::kTaken;
}

void Zone::Haunt(const GhostState& g, uint32_t from_cell) {
  const uint32_t index = EntityIndex(g.id);
  if (index < slot_of_.size() && slot_of_[index] >= 0) {
    const auto slot = static_cast<uint32_t>(slot_of_[index]);
    Entity& e = entities_[slot];
    // A real entity here never shares an index with another cell's (IdsOfCell); an older
    // generation of the ghost, or one that changed kind or size, is replaced.
    if (!e.is_ghost()) return;
    if (e.id != g.id || e.kind() != g.kind || e.template_id != g.template_id ||
        e.radius != g.radius) {
      EraseSlot(slot);
    } else {
      e.ghost_of = from_cell;
      e.ghost_seen = tick_;
      Place(e, g.position);
      e.velocity = g.velocity;
      Face(e, g.facing);
      if (e.hp != g.hp || e.max_hp != g.max_hp) e.changed |= kChangedHp;
      e.hp = g.hp;
      e.max_hp = g.max_hp;
      SetAlive(e, g.alive);
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
  Insert(std::move(e));
}

void Zone::ApplyGhosts(ZoneTickOutput* out) {
  heard_.clear();
  bool sweep = false;
  for (Neighbour& n : neighbours_) {
    if (n.pending) {
      n.pending = false;
      n.heard = true;
      n.heard_at = tick_;
      sweep = true;
      for (const GhostState& g : n.batch.ghosts) Haunt(g, n.cell);
      n.batch.ghosts.clear();
      for (const auto& [m, hits_applied] : n.migrants) Immigrate(m, n.cell, hits_applied);
      n.migrants.clear();
      for (BorderSay& say : n.says) heard_.push_back(std::move(say));
      n.says.clear();
    } else if (n.heard && tick_ - n.heard_at > config_.cells.ghost_timeout_ticks) {
      n.heard = false;
      sweep = true;
      out->silent_cells.push_back(n.cell);
    }
  }
  if (!sweep) return;
  // Highest slot first, so erasing (swap with the last) never moves a slot still to visit.
  for (size_t slot = entities_.size(); slot-- > 0;) {
    const Entity& e = entities_[slot];
    if (!e.is_ghost()) continue;
    const Neighbour& n = *NeighbourOf(e.ghost_of);
    // An emigrant of the last tick is listed by its new cell from that cell's next batch on.
    const bool listed_now = n.heard && n.heard_at == tick_ && e.ghost_seen >= tick_;
    const bool kept_stale = n.heard && n.heard_at != tick_;  // no batch this tick: keep it
    if (!listed_now && !kept_stale) EraseSlot(static_cast<uint32_t>(slot));
  }
}

void Zone::ExportBorder(ZoneTickOutput* out) {
  out->border.resize(neighbours_.size());
  for (size_t i = 0; i < neighbours_.size(); ++i) {
    GhostBatch& b = out->border[i];
    b.zone = config_.id;
    b.from_cell = cell_;
    b.to_cell = neighbours_[i].cell;
    b.tick = tick_;
    b.ghosts.clear();
    b.hits.clear();
    for (const Dealt& d : dealt_) {
      if (d.cell == b.to_cell) b.hits.push_back(d.hit);
    }
    b.says.clear();
    for (const Said& s : said_) {
      if (s.cell == b.to_cell) b.says.push_back(s.say);
    }
    b.migrants.clear();
    for (const Emigrant& m : emigrants_) {
      if (m.cell == b.to_cell) b.migrants.push_back(m.migrant);
    }
    b.hits_applied = neighbours_[i].hits_applied;
  }
  std::erase_if(dealt_history_,
                [this](const Dealt& d) { return d.tick + kHitMemoryTicks < tick_; });
  dealt_history_.insert(dealt_history_.end(), dealt_.begin(), dealt_.end());
  dealt_.clear();
  said_.clear();
  if (neighbours_.empty()) return;
  const float d = config_.cells.ghost_distance;
  const float d2 = d * d;
  // Farther than d from every edge of this cell: near no neighbour.
  const auto deep_inside = [&](Vec2 p) {
    return p.x - area_.min.x > d && area_.max.x - p.x > d && p.y - area_.min.y > d &&
           area_.max.y - p.y > d;
  };
  for (const Entity& e : entities_) {
    // This tick's emigrants too (ghost_seen ahead), to the cells other than their new one,
    // which list them only from their next batch on: no leave and enter in between.
    const bool emigrant = e.is_ghost() && e.ghost_seen > tick_;
    if ((e.is_ghost() && !emigrant) || deep_inside(e.position)) continue;
    for (size_t i = 0; i < neighbours_.size(); ++i) {
      if (emigrant && neighbours_[i].cell == e.ghost_of) continue;
      if (RectDistanceSq(e.position, neighbours_[i].bounds) <= d2) {
        out->border[i].ghosts.push_back(GhostOf(e));
      }
    }
  }
}

}  // namespace zs::zone
