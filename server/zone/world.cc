#include "zone/world.h"

#include <algorithm>

#include <utility>

namespace zs::zone {

EntityId EntityIdAllocator::Allocate() {
  uint32_t j;
  if (!free_.empty()) {
    j = free_.front();
    free_.pop_front();
  } else {
    j = static_cast<uint32_t>(generation_.size());
    if ((kMaxEntityIndex - range_.offset) / range_.stride < j) return kInvalidEntity;
    generation_.push_back(0);
  }
  ++live_;
  const uint32_t index = range_.offset + range_.stride * j;
  EntityId id = MakeEntityId(index, generation_[j]);
  if (id == kInvalidEntity) {  // the one reserved value: skip to generation 0
    generation_[j] = 0;
    id = MakeEntityId(index, 0);
  }
  return id;
}

bool EntityIdAllocator::Free(EntityId id) {
  if (!range_.Holds(id)) return false;
  const uint32_t j = (EntityIndex(id) - range_.offset) / range_.stride;
  if (j == 0 || j >= generation_.size() || generation_[j] != EntityGeneration(id)) return false;
  generation_[j] = (generation_[j] + 1) & kMaxGeneration;
  free_.push_back(j);
  --live_;
  return true;
}

World::World(WorldConfig config, std::span<const uint32_t> hosted, IdSource* ids,
             std::span<const HostedCell> cells)
    : config_(std::move(config)), ids_(ids != nullptr ? ids : &own_ids_) {
  zones_.reserve(config_.zones.size());
  for (size_t i = 0; i < config_.zones.size(); ++i) {
    if (!hosted.empty() &&
        std::find(hosted.begin(), hosted.end(), config_.zones[i].id) == hosted.end()) {
      continue;  // hosted by another server
    }
    // Each zone's randomness derives from the world seed and its position: reproducible.
    const uint64_t seed = config_.seed * 0x9E3779B97F4A7C15ull + i + 1;
    uint32_t cell = kWholeZone;
    for (const HostedCell& c : cells) {
      if (c.zone_id == config_.zones[i].id) cell = c.cell;
    }
    zones_.emplace_back(
        config_, config_.zones[i], seed, [this] { return ids_->Allocate(); }, cell);
  }
  outputs_.resize(zones_.size());
  zone_inputs_.resize(zones_.size());
}

std::optional<size_t> World::ZoneIndexById(uint32_t zone_id) const {
  for (size_t i = 0; i < zones_.size(); ++i) {
    if (zones_[i].config().id == zone_id) return i;
  }
  return std::nullopt;
}

std::optional<size_t> World::ZoneIndexOf(EntityId player) const {
  const uint32_t index = EntityIndex(player);
  if (index >= zone_of_.size() || zone_of_[index] < 0) return std::nullopt;
  const auto z = static_cast<size_t>(zone_of_[index]);
  if (zones_[z].store().Find(player) == nullptr) return std::nullopt;  // stale id
  return z;
}

template <typename Place>
Status World::Enter(size_t z, EntityId* id, std::string name, Place place) {
  const EntityId new_id = ids_->Allocate();
  if (new_id == kInvalidEntity) return {StatusCode::kOutOfBounds, "no entity ids left"};
  if (Status s = place(zones_[z], new_id); !s.ok()) {
    ids_->Free(new_id);
    return s;
  }
  File(z, new_id, std::move(name));
  *id = new_id;
  return Status::Ok();
}

GhostVerdict World::TakeGhosts(GhostBatch batch) {
  const std::optional<size_t> z = ZoneIndexById(batch.zone);
  if (!z) return GhostVerdict::kNotANeighbour;
  // The names first: the batch is moved into the zone. A refused batch leaves names only under
  // indices of the cell it claims to come from, which this world never hands out.
  std::vector<std::pair<uint32_t, std::string>> names;
  for (const GhostState& g : batch.ghosts) {
    if (g.kind == EntityKind::kPlayer) names.emplace_back(EntityIndex(g.id), g.name);
  }
  std::vector<std::pair<EntityId, std::string>> arriving;  // players migrating here
  for (const Migrant& m : batch.migrants) {
    if (m.body.kind == EntityKind::kPlayer) arriving.emplace_back(m.body.id, m.body.name);
  }
  const GhostVerdict verdict = zones_[*z].TakeGhosts(std::move(batch));
  if (verdict != GhostVerdict::kTaken) return verdict;
  for (auto& [index, name] : names) {
    if (index >= names_.size()) names_.resize(static_cast<size_t>(index) + 1);
    if (names_[index] != name) names_[index] = std::move(name);
  }
  // Filed now, so that their inputs of the coming tick reach the zone, which makes them real
  // before it applies inputs.
  for (auto& [id, name] : arriving) File(*z, id, std::move(name));
  return verdict;
}

void World::NameBorderPlayers(ZoneTickOutput* out) {
  for (GhostBatch& b : out->border) {
    for (GhostState& g : b.ghosts) {
      if (g.kind == EntityKind::kPlayer) g.name = NameOf(g.id);
    }
    for (Migrant& m : b.migrants) {
      if (m.body.kind != EntityKind::kPlayer) continue;
      m.body.name = NameOf(m.body.id);
      zone_of_[EntityIndex(m.body.id)] = -1;  // gone to another node (its name stays: a ghost)
    }
  }
}

void World::SetPlayersCross(bool on) {
  for (Zone& z : zones_) z.SetPlayersCross(on);
}

void World::File(size_t z, EntityId id, std::string name) {
  const uint32_t index = EntityIndex(id);
  if (index >= zone_of_.size()) zone_of_.resize(static_cast<size_t>(index) + 1, -1);
  zone_of_[index] = static_cast<int32_t>(z);
  if (index >= names_.size()) names_.resize(static_cast<size_t>(index) + 1);
  names_[index] = std::move(name);
}

Status World::AddPlayer(std::optional<uint32_t> zone_id, EntityId* id, std::string name) {
  const std::optional<size_t> z = zone_id ? ZoneIndexById(*zone_id) : std::optional<size_t>(0);
  if (!z) return {StatusCode::kNotFound, "no such zone"};
  return Enter(*z, id, std::move(name), [](Zone& zone, EntityId new_id) {
    return zone.AddPlayer(new_id, zone.config().player_spawn);
  });
}

Status World::RestorePlayer(const PlayerSnapshot& saved, EntityId* id, std::string name) {
  const std::optional<size_t> z = ZoneIndexById(saved.zone);
  PlayerSnapshot where = saved;
  if (!z) where.position = zones_[0].config().player_spawn;  // the zone is gone
  return Enter(z.value_or(0), id, std::move(name), [&](Zone& zone, EntityId new_id) {
    return zone.RestorePlayer(new_id, where, tick_);
  });
}

Status World::SnapshotPlayer(EntityId id, PlayerSnapshot* out) const {
  if (const auto away = away_.find(EntityIndex(id));
      away != away_.end() && away->second.entity.id == id) {
    *out =
        SnapshotOf(away->second.entity, away->second.departure.to_zone, tick_, config_.tick_rate);
    out->position = away->second.departure.arrival;
    return Status::Ok();
  }
  const std::optional<size_t> z = ZoneIndexOf(id);
  if (!z) return {StatusCode::kNotFound, "no such player"};
  return zones_[*z].SnapshotPlayer(id, tick_, out);
}

Status World::RemovePlayer(EntityId id) {
  const std::optional<size_t> z = ZoneIndexOf(id);
  if (!z) return {StatusCode::kNotFound, "no such player"};
  if (Status s = zones_[*z].RemovePlayer(id); !s.ok()) return s;
  zone_of_[EntityIndex(id)] = -1;
  names_[EntityIndex(id)].clear();
  ids_->Free(id);
  return Status::Ok();
}

void World::ReleaseWhenGone(EntityId id) { releasing_.push_back({.id = id, .since = tick_}); }

bool World::Holds(EntityId id) const {
  const uint32_t index = EntityIndex(id);
  if (ZoneIndexOf(id) || away_.contains(index)) return true;
  return std::any_of(zones_.begin(), zones_.end(),
                     [id](const Zone& z) { return z.store().Find(id) != nullptr; });
}

void World::ReleaseDue() {
  while (!releasing_.empty() && tick_ - releasing_.front().since >= kReleaseAfterTicks) {
    const EntityId id = releasing_.front().id;
    releasing_.pop_front();
    if (Holds(id)) {  // still here (a ghost, or it came back): looked at again later
      releasing_.push_back({.id = id, .since = tick_});
      continue;
    }
    // Its name goes only if the id was still taken: an index freed meanwhile may be another
    // player's now (a no-op for an id of another source or of an older generation).
    if (ids_->Free(id) && EntityIndex(id) < names_.size()) names_[EntityIndex(id)].clear();
  }
}

Status World::ForgetKnown(EntityId id) {
  const std::optional<size_t> z = ZoneIndexOf(id);
  if (!z) return {StatusCode::kNotFound, "no such player"};
  return zones_[*z].ForgetKnown(id);
}

void World::Tick(std::span<const MoveInput> moves, std::span<const SkillInput> skills,
                 uint32_t overload_level, TaskRunner* runner) {
  shorthand_.clear();
  shorthand_.insert(shorthand_.end(), moves.begin(), moves.end());
  shorthand_.insert(shorthand_.end(), skills.begin(), skills.end());
  Tick(Inputs{.inputs = shorthand_}, overload_level, runner);
}

uint32_t World::RouteInputs(std::span<const PlayerInput> inputs) {
  for (auto& in : zone_inputs_) in.clear();
  uint32_t unknown = 0;
  for (const PlayerInput& in : inputs) {
    if (std::holds_alternative<ChatInput>(in)) continue;  // the world's: DeliverChat
    if (const auto z = ZoneIndexOf(PlayerOf(in))) {
      zone_inputs_[*z].push_back(in);
    } else {
      ++unknown;
    }
  }
  return unknown;
}

void World::Tick(const Inputs& inputs, uint32_t overload_level, TaskRunner* runner) {
  InlineRunner inline_runner;
  TaskRunner& r = runner != nullptr ? *runner : inline_runner;
  ++tick_;
  new_departures_.clear();
  if (!releasing_.empty()) ReleaseDue();
  const uint32_t unknown = RouteInputs(inputs.inputs);
  ShareNames();  // before the views are prepared: an entry's cost counts its name
  // Zones simulate side by side; then every view of every zone is one task on the same pool.
  r.ForEach(zones_.size(), [&](size_t z, size_t) {
    zones_[z].Simulate(tick_, zone_inputs_[z], overload_level, r.workers(), &outputs_[z]);
  });
  DeliverChat(inputs.inputs);
  for (size_t z = 0; z < zones_.size(); ++z) DeliverHeard(z);
  heard_chat_.swap(pending_chat_);  // the last tick's heard are encoded by now
  pending_chat_.clear();
  DeliverZoneChat();
  DeliverRelayed(inputs.relayed);
  AddResults(inputs.results);
  view_start_.assign(1, 0);
  for (const ZoneTickOutput& out : outputs_)
    view_start_.push_back(view_start_.back() + out.views.size());
  r.ForEach(view_start_.back(), [&](size_t i, size_t worker) {
    const auto z = static_cast<size_t>(std::upper_bound(view_start_.begin(), view_start_.end(), i) -
                                       view_start_.begin() - 1);
    zones_[z].BuildView(i - view_start_[z], worker, &outputs_[z]);
  });
  for (size_t z = 0; z < zones_.size(); ++z) {
    zones_[z].FinishTick(&outputs_[z]);
    NameBorderPlayers(&outputs_[z]);
  }
  outputs_[0].rejected[static_cast<size_t>(Reject::kUnknownEntity)] += unknown;
  // Portal travel, after every zone has ticked.
  for (size_t z = 0; z < zones_.size(); ++z) {
    std::vector<Entity>& leaving = zones_[z].departures();
    const std::vector<Transfer>& transfers = outputs_[z].transfers;
    for (size_t k = 0; k < leaving.size(); ++k) {
      const std::optional<size_t> target = ZoneIndexById(transfers[k].target_zone);
      if (!target) {  // hosted elsewhere
        Depart(z, std::move(leaving[k]), transfers[k]);
        continue;
      }
      const size_t dest = *target;
      const EntityId id = leaving[k].id;
      if (zones_[dest].AdoptPlayer(std::move(leaving[k]), transfers[k].target_position).ok()) {
        zone_of_[EntityIndex(id)] = static_cast<int32_t>(dest);
      } else {  // cannot happen with a validated config; never leave a player half-moved
        zone_of_[EntityIndex(id)] = -1;
        ids_->Free(id);
      }
    }
    leaving.clear();
  }
}

void World::Depart(size_t z, Entity leaving, const Transfer& t) {
  const Departure d{.player = leaving.id,
                    .from_zone = zones_[z].config().id,
                    .to_zone = t.target_zone,
                    .arrival = t.target_position};
  const uint32_t index = EntityIndex(leaving.id);
  zone_of_[index] = -1;
  new_departures_.push_back(d);
  away_[index] = {.entity = std::move(leaving), .departure = d};
}

Status World::SendOff(EntityId id) {
  const auto it = away_.find(EntityIndex(id));
  if (it == away_.end() || it->second.entity.id != id) {
    return {StatusCode::kNotFound, "not departing"};
  }
  away_.erase(it);
  names_[EntityIndex(id)].clear();
  ids_->Free(id);
  return Status::Ok();
}

Status World::HandOver(EntityId id, HandedPlayer* out) {
  const auto it = away_.find(EntityIndex(id));
  if (it == away_.end() || it->second.entity.id != id) {
    return {StatusCode::kNotFound, "not departing"};
  }
  const Entity& e = it->second.entity;
  *out = {.id = id,
          .name = std::move(names_[EntityIndex(id)]),
          .state = SnapshotOf(e, it->second.departure.to_zone, tick_, config_.tick_rate),
          .last_input_seq = e.player().last_input_seq,
          .input_seq_seen = e.player().input_seq_seen};
  out->state.position = it->second.departure.arrival;
  away_.erase(it);
  names_[EntityIndex(id)].clear();
  return Status::Ok();
}

Status World::Adopt(const HandedPlayer& player) {
  const std::optional<size_t> z = ZoneIndexById(player.state.zone);
  if (!z) return {StatusCode::kNotFound, "that zone is not hosted here"};
  if (ZoneIndexOf(player.id) || away_.contains(EntityIndex(player.id))) {
    return {StatusCode::kAlreadyExists, "that id is in use here"};
  }
  if (Status s = zones_[*z].RestorePlayer(player.id, player.state, tick_); !s.ok()) return s;
  if (player.input_seq_seen) (void)zones_[*z].ContinueInputs(player.id, player.last_input_seq);
  File(*z, player.id, player.name);
  return Status::Ok();
}

Status World::TakeBack(EntityId id) {
  const auto it = away_.find(EntityIndex(id));
  if (it == away_.end() || it->second.entity.id != id) {
    return {StatusCode::kNotFound, "not departing"};
  }
  const std::optional<size_t> z = ZoneIndexById(it->second.departure.from_zone);
  Entity e = std::move(it->second.entity);
  away_.erase(it);
  const Vec2 way_back = e.prev_position;  // where it stood before it stepped into the portal
  if (!z || !zones_[*z].AdoptPlayer(std::move(e), way_back).ok()) {
    names_[EntityIndex(id)].clear();
    ids_->Free(id);
    return {StatusCode::kNotFound, "the zone it left is gone"};
  }
  zone_of_[EntityIndex(id)] = static_cast<int32_t>(*z);
  return Status::Ok();
}

const ZoneConfig* World::FindZone(uint32_t zone_id) const {
  for (const ZoneConfig& z : config_.zones) {
    if (z.id == zone_id) return &z;
  }
  return nullptr;
}

const SkillDef* WorldConfig::FindSkill(uint32_t id) const {
  for (const SkillDef& s : skills) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

const MonsterTemplate* WorldConfig::FindMonster(uint32_t id) const {
  for (const MonsterTemplate& m : monsters) {
    if (m.id == id) return &m;
  }
  return nullptr;
}

float MinGhostDistance(const WorldConfig& world, const ZoneConfig& zone) {
  float extent = 0;
  for (const SkillDef& s : world.skills) {
    switch (s.shape) {
      case SkillShape::kArc:
        extent = std::max(extent, s.range);
        break;
      case SkillShape::kCircle:
        extent = std::max(extent, s.cast_range + s.radius);
        break;
      case SkillShape::kLine:
        extent = std::max(extent, s.range + s.width * 0.5f);
        break;
    }
  }
  float largest = world.player.radius;
  float fastest = world.player.speed;
  for (const MonsterTemplate& m : world.monsters) {
    largest = std::max(largest, m.radius);
    fastest = std::max({fastest, m.walk_speed, m.run_speed});
  }
  // A line starts at the caster's front, so the caster's radius counts once more.
  const float reach = extent + 2 * largest;
  return zone.view_radius + zone.view_hysteresis + reach +
         fastest / static_cast<float>(world.tick_rate);
}

const ZoneConfig* WorldConfig::FindZone(uint32_t id) const {
  for (const ZoneConfig& z : zones) {
    if (z.id == id) return &z;
  }
  return nullptr;
}

}  // namespace zs::zone
