// CellBorder: what crosses one cell's border, and the checks of what arrives (cell_border.h).
//
// A neighbour's GhostBatch is checked whole when it arrives (Take) and applied at the start of
// the next tick (Arrive): the zone adds or updates each listed entity as a ghost, makes each
// migrant real, and sweeps the neighbour's ghosts the batch no longer lists (Keeps). A
// neighbour silent for ghost_timeout_ticks loses every ghost. After the tick, Export and Show
// make this cell's batches.
#include "zone/cell_border.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace zs::zone {

namespace {

constexpr float kMaxGhostRadius = 1000.0f;
constexpr size_t kMaxBorderTextBytes = 256;  // a ghost's name, a say across the border
constexpr float kMaxViewRadius = 100000.0f;  // metres: a player's own view radius, at most
// A ghost may stand this much farther than ghost_distance from the cell it is sent to: float
// rounding at the sender, whose test is the same distance.
constexpr float kGhostDistanceSlack = 0.01f;

// The longest cooldown among `skills` (at least 1 tick each): a migrant's timers are within it.
template <typename Skills>
uint32_t LongestCooldown(const WorldConfig& world, const Skills& skills) {
  uint32_t cooldown = 0;
  for (const uint32_t id : skills) {
    const SkillDef* skill = world.FindSkill(id);
    if (skill != nullptr) {
      cooldown = std::max<uint32_t>(cooldown, std::max<uint32_t>(skill->cooldown_ticks, 1));
    }
  }
  return cooldown;
}

bool TimersWithin(const Migrant& m, uint32_t cooldown) {
  return std::all_of(m.ready_in.begin(), m.ready_in.end(),
                     [&](uint32_t ticks) { return ticks <= cooldown; });
}

}  // namespace

CellBorder::CellBorder(const WorldConfig& world, const ZoneConfig& config, uint32_t cell)
    : world_(&world),
      config_(&config),
      cell_(cell),
      area_(cell == kWholeZone ? config.bounds : CellBounds(config.bounds, config.cells, cell)) {
  if (cell_ == kWholeZone) return;
  for (uint32_t c = 0; c < config.cells.count(); ++c) {
    if (!Neighbours(config.cells, cell_, c)) continue;
    Neighbour n;
    n.cell = c;
    n.bounds = CellBounds(config.bounds, config.cells, c);
    neighbours_.push_back(std::move(n));
  }
}

// ---- neighbours ----

const CellBorder::Neighbour* CellBorder::NeighbourOf(uint32_t cell) const {
  for (const Neighbour& n : neighbours_) {
    if (n.cell == cell) return &n;
  }
  return nullptr;
}

CellBorder::Neighbour* CellBorder::NeighbourOf(uint32_t cell) {
  return const_cast<Neighbour*>(std::as_const(*this).NeighbourOf(cell));
}

bool CellBorder::Near(uint32_t cell) const {
  return cell_ == kWholeZone || cell == cell_ || NeighbourOf(cell) != nullptr;
}

bool CellBorder::Hears(uint32_t cell) const {
  const Neighbour* n = NeighbourOf(cell);
  return n != nullptr && n->heard;
}

// ---- checks ----

bool CellBorder::Plausible(const GhostState& g) const {
  const bool finite = IsFinite(g.position) && IsFinite(g.velocity) && std::isfinite(g.facing) &&
                      std::isfinite(g.radius);
  if (!finite || !config_->bounds.Contains(g.position)) return false;
  const float reach = config_->cells.ghost_distance + kGhostDistanceSlack;
  if (RectDistanceSq(g.position, area_) > reach * reach) return false;
  if (!(g.radius > 0 && g.radius <= kMaxGhostRadius)) return false;
  if (g.max_hp < 1 || g.hp < 0 || g.hp > g.max_hp) return false;
  if (g.name.size() > kMaxBorderTextBytes) return false;
  if (g.kind == EntityKind::kMonster) return world_->FindMonster(g.template_id) != nullptr;
  return g.kind == EntityKind::kPlayer && g.template_id == 0;
}

bool CellBorder::Plausible(const Migrant& m) const {
  const GhostState& g = m.body;
  if (!Plausible(g)) return false;
  // It is in this cell: the sender's CellAt, the same arithmetic.
  if (CellAt(config_->bounds, config_->cells, g.position) != cell_) return false;
  return g.kind == EntityKind::kPlayer ? PlausiblePlayer(m) : PlausibleMonster(m);
}

bool CellBorder::PlausiblePlayer(const Migrant& m) const {
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
  return TimersWithin(m, LongestCooldown(*world_, t.skills));
}

bool CellBorder::PlausibleMonster(const Migrant& m) const {
  const GhostState& g = m.body;
  if (m.spawn_group >= config_->spawns.size()) return false;
  const SpawnGroup& group = config_->spawns[m.spawn_group];
  const MonsterTemplate* t = world_->FindMonster(g.template_id);
  if (t == nullptr || group.monster != g.template_id) return false;
  if (g.max_hp != t->max_hp || g.radius != t->radius) return false;
  if (m.ai != MonsterState::kIdle && m.ai != MonsterState::kChase &&
      m.ai != MonsterState::kReturn) {
    return false;
  }
  const Aabb& bounds = config_->bounds;
  if (!IsFinite(m.home) || !IsFinite(m.wander_goal) || !bounds.Contains(m.home) ||
      !bounds.Contains(m.wander_goal)) {
    return false;
  }
  if (m.think_in > kThinkInterval) return false;
  if (m.respawn_in > group.respawn_ticks || (g.alive && m.respawn_in > 0)) return false;
  return TimersWithin(m, LongestCooldown(*world_, std::array<uint32_t, 1>{t->skill}));
}

bool CellBorder::MayDeal(const GhostState& attacker, const RemoteHit& hit) const {
  const SkillDef* skill = world_->FindSkill(hit.skill);
  if (skill == nullptr || hit.damage != skill->damage) return false;
  if (attacker.kind == EntityKind::kMonster) {
    return world_->FindMonster(attacker.template_id)->skill == hit.skill;
  }
  const std::vector<uint32_t>& skills = world_->player.skills;
  return std::find(skills.begin(), skills.end(), hit.skill) != skills.end();
}

const GhostState* CellBorder::Listed(const GhostBatch& batch, EntityId id) const {
  const auto it = std::lower_bound(ghost_ids_.begin(), ghost_ids_.end(),
                                   std::pair<uint32_t, uint32_t>(ToRaw(id), 0));
  if (it == ghost_ids_.end() || it->first != ToRaw(id)) return nullptr;
  const size_t i = it->second;
  return i < batch.ghosts.size() ? &batch.ghosts[i] : &batch.migrants[i - batch.ghosts.size()].body;
}

GhostVerdict CellBorder::Check(const GhostBatch& batch, const Entities& here) {
  const Neighbour* n = NeighbourOf(batch.from_cell);
  if (n == nullptr || batch.zone != config_->id || batch.to_cell != cell_) {
    return GhostVerdict::kNotANeighbour;
  }
  if (n->taken_any &&
      (batch.epoch < n->epoch || (batch.epoch == n->epoch && batch.tick <= n->tick))) {
    return GhostVerdict::kStale;
  }
  if (const GhostVerdict v = CheckGhosts(batch, here); v != GhostVerdict::kTaken) return v;
  return CheckHitsAndSays(batch);
}

// The ghosts and migrants, each id once (ghost_ids_ lists them, sorted, for Listed).
GhostVerdict CellBorder::CheckGhosts(const GhostBatch& batch, const Entities& here) {
  if (batch.ghosts.size() > kMaxGhostsPerBatch) return GhostVerdict::kTooMany;
  // An entity's id stays its own wherever it migrates, so any cell may list any id; never one
  // real here (that would be a second real copy).
  ghost_ids_.clear();
  for (uint32_t i = 0; i < batch.ghosts.size(); ++i) {
    const GhostState& g = batch.ghosts[i];
    if (g.id == kInvalidEntity || here.RealHere(g.id)) return GhostVerdict::kForeignId;
    if (!Plausible(g)) return GhostVerdict::kBadValue;
    ghost_ids_.emplace_back(ToRaw(g.id), i);
  }
  if (const GhostVerdict v = CheckMigrants(batch, here); v != GhostVerdict::kTaken) return v;
  for (uint32_t i = 0; i < batch.migrants.size(); ++i) {  // listed like the ghosts (Listed)
    ghost_ids_.emplace_back(ToRaw(batch.migrants[i].body.id), batch.ghosts.size() + i);
  }
  std::sort(ghost_ids_.begin(), ghost_ids_.end());
  const auto same_id = [](const auto& a, const auto& b) { return a.first == b.first; };
  if (std::adjacent_find(ghost_ids_.begin(), ghost_ids_.end(), same_id) != ghost_ids_.end()) {
    return GhostVerdict::kForeignId;  // an id twice
  }
  return GhostVerdict::kTaken;
}

GhostVerdict CellBorder::CheckMigrants(const GhostBatch& batch, const Entities& here) const {
  if (batch.migrants.size() > kMaxGhostsPerBatch) return GhostVerdict::kTooMany;
  for (const Migrant& m : batch.migrants) {
    if (m.body.id == kInvalidEntity || here.RealHere(m.body.id)) return GhostVerdict::kForeignId;
    // A player only where players cross: its host relays its connection.
    if (!Plausible(m) || (m.body.kind == EntityKind::kPlayer && !players_cross_)) {
      return GhostVerdict::kBadValue;
    }
  }
  return GhostVerdict::kTaken;
}

GhostVerdict CellBorder::CheckHitsAndSays(const GhostBatch& batch) const {
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

// ---- between ticks ----

GhostVerdict CellBorder::Take(GhostBatch batch, const Entities& here) {
  const GhostVerdict verdict = Check(batch, here);
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

void CellBorder::SayAcross(EntityId speaker, Vec2 position, std::string_view text) {
  const float hear = config_->chat_radius + world_->player.radius;
  const float d = config_->cells.ghost_distance;
  for (const Neighbour& n : neighbours_) {
    const float away = RectDistanceSq(position, n.bounds);
    if (away <= hear * hear && away <= d * d) {
      said_.push_back({.cell = n.cell, .say = {.speaker = speaker, .text = std::string(text)}});
    }
  }
}

// ---- the tick ----

bool CellBorder::Arrive(uint64_t tick, Entities& here, std::vector<uint32_t>* silent) {
  tick_ = tick;
  heard_.clear();
  bool sweep = false;
  for (Neighbour& n : neighbours_) {
    if (n.pending) {
      n.pending = false;
      n.heard = true;
      n.heard_at = tick_;
      sweep = true;
      for (const GhostState& g : n.batch.ghosts) here.Haunt(g, n.cell);
      n.batch.ghosts.clear();
      for (const auto& [m, hits_applied] : n.migrants) {
        if (here.Immigrate(m, n.cell)) {
          immigrants_.push_back({.id = m.body.id, .from = n.cell, .hits_applied = hits_applied});
        }
      }
      n.migrants.clear();
      for (BorderSay& say : n.says) heard_.push_back(std::move(say));
      n.says.clear();
    } else if (n.heard && tick_ - n.heard_at > config_->cells.ghost_timeout_ticks) {
      n.heard = false;
      sweep = true;
      silent->push_back(n.cell);
    }
  }
  return sweep;
}

bool CellBorder::Keeps(uint32_t ghost_of, uint64_t ghost_seen) const {
  const Neighbour* n = NeighbourOf(ghost_of);
  if (n == nullptr || !n->heard) return false;
  // No batch this tick: kept as it was. An emigrant of the last tick is listed by its new cell
  // from that cell's next batch on.
  return n->heard_at != tick_ || ghost_seen >= tick_;
}

void CellBorder::TakeHits(std::vector<RemoteHit>* hits) {
  for (Neighbour& n : neighbours_) {
    hits->insert(hits->end(), n.hits.begin(), n.hits.end());
    n.hits.clear();
    if (n.taken_any) n.hits_applied = n.tick;  // the hits of its batches up to that one
  }
}

void CellBorder::TakeHitsOnImmigrants(std::vector<RemoteHit>* hits) {
  for (const Immigrant& im : immigrants_) {
    // Our hits on it sent to the cell it came from after the last of our batches whose hits that
    // cell applied: it let the entity go before it could apply them, and never will.
    std::erase_if(dealt_history_, [&](const Dealt& d) {
      if (d.cell != im.from || d.hit.target != im.id || d.tick <= im.hits_applied) return false;
      hits->push_back(d.hit);
      return true;
    });
  }
  immigrants_.clear();
}

void CellBorder::Deal(uint32_t owner, const RemoteHit& hit) {
  dealt_.push_back({.cell = owner, .tick = tick_, .hit = hit});
}

void CellBorder::Export(std::vector<GhostBatch>* border) {
  border->resize(neighbours_.size());
  for (size_t i = 0; i < neighbours_.size(); ++i) {
    GhostBatch& b = (*border)[i];
    b.zone = config_->id;
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
    for (Emigrant& m : emigrants_) {  // each goes to one cell: moved, not copied
      if (m.cell == b.to_cell) b.migrants.push_back(std::move(m.migrant));
    }
    b.hits_applied = neighbours_[i].hits_applied;
  }
  std::erase_if(dealt_history_,
                [this](const Dealt& d) { return d.tick + kHitMemoryTicks < tick_; });
  dealt_history_.insert(dealt_history_.end(), dealt_.begin(), dealt_.end());
  dealt_.clear();
  said_.clear();
  emigrants_.clear();
}

void CellBorder::Show(const Entity& e, std::vector<GhostBatch>* border) const {
  const float d = config_->cells.ghost_distance;
  // Farther than d from every edge of this cell: near no neighbour.
  const Vec2 p = e.position;
  if (p.x - area_.min.x > d && area_.max.x - p.x > d && p.y - area_.min.y > d &&
      area_.max.y - p.y > d) {
    return;
  }
  const bool emigrant = e.is_ghost() && e.ghost_seen > tick_;
  if (e.is_ghost() && !emigrant) return;
  for (size_t i = 0; i < neighbours_.size(); ++i) {
    if (emigrant && neighbours_[i].cell == e.ghost_of) continue;
    if (RectDistanceSq(p, neighbours_[i].bounds) <= d * d)
      (*border)[i].ghosts.push_back(GhostOf(e));
  }
}

}  // namespace zs::zone
