// Zone: construction, spawning, players coming and going, inputs, player movement, portals and
// the tick order. The entities and their quadtree are an EntityStore (entity_store.h), combat
// is Combat (combat.h), monster AI is in monster_ai.cc, chat in world_chat.cc, the border's
// entity side in zone_border.cc, and each player's view (the interest policy and what it
// reads) in ZoneViews (zone_views.h).
#include "zone/zone.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace zs::zone {

namespace {

// Acknowledgement: the newest sequence judged (applied or refused with a result: one rule for
// every move and skill), in serial-number order; the first is taken as it is (a client may
// start anywhere, even just below the wrap).
void NoteInputSeq(PlayerPart& p, uint32_t seq) {
  if (!p.input_seq_seen || SeqNewer(seq, p.last_input_seq)) p.last_input_seq = seq;
  p.input_seq_seen = true;
}

// Directions and targets beyond this are not mistakes a client makes by accident.
constexpr float kMaxInputMagnitude = 1e9f;

// A unit vector along any finite `v` however long (scaled down first, so 1e30 does not
// overflow), or zero for a vector too short to have a direction.
Vec2 Normalised(Vec2 v) {
  const float m = std::max(std::abs(v.x), std::abs(v.y));
  if (m < 1e-6f) return {};
  const Vec2 u = v * (1.0f / m);
  return u * (1.0f / Length(u));
}

bool Reasonable(Vec2 v) {
  return IsFinite(v) && std::abs(v.x) <= kMaxInputMagnitude && std::abs(v.y) <= kMaxInputMagnitude;
}

}  // namespace

Zone::Zone(const WorldConfig& world, const ZoneConfig& config, uint64_t seed, uint32_t cell)
    : world_(&world),
      config_(config),
      border_(world, config, config.cells.split() ? cell : kWholeZone),
      rng_(seed),
      store_(TreeConfigFor(config)),
      views_(config.interest, world.overload.near_floor, world.wire_cost) {}

// ---- bookkeeping ----

Vec2 Zone::Clamp(Vec2 p) const {
  const Aabb& b = config_.bounds;
  return {std::clamp(p.x, b.min.x, b.max.x), std::clamp(p.y, b.min.y, b.max.y)};
}

Vec2 Zone::Confine(Vec2 p) const {
  const Aabb& a = border_.area();
  return {std::clamp(p.x, a.min.x, a.max.x), std::clamp(p.y, a.min.y, a.max.y)};
}

Vec2 Zone::PlayerPlace(Vec2 p) {
  const uint32_t cell = CellAt(config_.bounds, config_.cells, Clamp(p));
  return border_.players_cross() && border_.Near(cell) ? Clamp(p) : Confine(p);
}

Vec2 Zone::RandomPointIn(const Aabb& area) {
  const float x = rng_.Range(area.min.x, area.max.x);
  const float y = rng_.Range(area.min.y, area.max.y);
  return Clamp({x, y});
}

bool Zone::Spawns(const SpawnGroup& group) const {
  if (border_.cell() == kWholeZone) return true;
  const Vec2 centre = (group.area.min + group.area.max) * 0.5f;
  return CellAt(config_.bounds, config_.cells, centre) == border_.cell();
}

// ---- spawning and players ----

void Zone::SpawnMonster(EntityId id, const MonsterTemplate& t, uint32_t group) {
  Entity m;
  m.id = id;
  m.template_id = t.id;
  m.radius = t.radius;
  m.speed = t.walk_speed / static_cast<float>(world_->tick_rate);
  m.hp = m.max_hp = t.max_hp;
  // The first spawn stays in this cell (its neighbours may not run yet); a respawn may not.
  m.position = Confine(RandomPointIn(config_.spawns[group].area));
  m.facing = NormalizeAngle(rng_.Range(-kPi, kPi));
  m.skills[0] = t.skill;
  m.num_skills = world_->FindSkill(t.skill) != nullptr ? 1 : 0;
  m.part = MonsterPart{.home = m.position,
                       .wander_goal = m.position,
                       .next_think = EntityIndex(id) % 10,  // stagger the aggro scans over ticks
                       .spawn_group = group,
                       .type = &t};
  store_.Insert(std::move(m), views_);
}

Status Zone::AddPlayer(EntityId id, Vec2 position) { return AdoptPlayer(NewPlayer(id), position); }

Entity Zone::NewPlayer(EntityId id) const {
  const PlayerTemplate& t = world_->player;
  Entity p;
  p.id = id;
  p.part = PlayerPart{};
  p.radius = t.radius;
  p.speed = t.speed / static_cast<float>(world_->tick_rate);
  p.hp = p.max_hp = t.max_hp;
  for (uint32_t skill : t.skills) {
    if (p.num_skills < kMaxSkills && world_->FindSkill(skill) != nullptr) {
      p.skills[p.num_skills++] = skill;
    }
  }
  return p;
}

Status Zone::AdoptPlayer(Entity player, Vec2 position) {
  if (player.id == kInvalidEntity || !player.is_player()) {
    return {StatusCode::kInvalidArgument, "not a player"};
  }
  if (!IsFinite(position)) return {StatusCode::kInvalidArgument, "position is not finite"};
  if (store_.SlotOf(player.id) >= 0) {
    return {StatusCode::kAlreadyExists, "entity index already in this zone"};
  }
  player.position = PlayerPlace(position);
  player.ghost_of = kWholeZone;
  player.velocity = {};
  player.player().move_direction = {};
  player.changed = 0;
  const auto coming = static_cast<uint32_t>(tick_ + 1);
  player.changed_at.fill(coming);  // whoever knew it gets its fields whole...
  player.last_move_tick = coming;  // ...and its position absolute, never as a delta
  store_.Insert(std::move(player), views_);
  return Status::Ok();
}

Status Zone::RemovePlayer(EntityId id) {
  const Entity* e = store_.Find(id);
  if (e == nullptr || !e->is_real_player()) {
    return {StatusCode::kNotFound, "no such player in this zone"};
  }
  store_.Erase(static_cast<uint32_t>(store_.SlotOf(id)), views_);
  return Status::Ok();
}

Status Zone::ForgetKnown(EntityId player) {
  Entity* e = store_.Find(player);
  if (e == nullptr || !e->is_real_player()) {
    return {StatusCode::kNotFound, "no such player in this zone"};
  }
  views_.Forget(player);
  return Status::Ok();
}

Status Zone::SetViewRadius(EntityId player, float radius) {
  Entity* e = store_.Find(player);
  if (e == nullptr || !e->is_real_player()) {
    return {StatusCode::kNotFound, "no such player in this zone"};
  }
  if (!std::isfinite(radius) || radius < 0) {
    return {StatusCode::kInvalidArgument, "view radius must be finite and >= 0"};
  }
  e->player().view_radius = radius;
  return Status::Ok();
}

// ---- the tick ----

void Zone::Tick(uint64_t tick, std::span<const PlayerInput> inputs, ZoneTickOutput* out,
                uint32_t overload_level, TaskRunner* runner) {
  InlineRunner inline_runner;
  TaskRunner& r = runner != nullptr ? *runner : inline_runner;
  Simulate(tick, inputs, overload_level, r.workers(), out);
  r.ForEach(out->views.size(), [&](size_t view, size_t worker) { BuildView(view, worker, out); });
  FinishTick(out);
}

void Zone::Simulate(uint64_t tick, std::span<const PlayerInput> inputs, uint32_t overload_level,
                    size_t workers, ZoneTickOutput* out) {
  out->Reset(tick, config_.id);
  tick_ = tick;
  for (Entity& e : store_.all()) {
    e.changed = 0;
    e.prev_position = e.position;
    e.prev_move_tick = e.last_move_tick;
  }
  ApplyGhosts(out);
  Respawn(tick);
  ApplyInputs(inputs, out);
  MovePlayers();
  ThinkMonsters(tick);
  ApplyRemoteHits(tick, out);
  ApplyHitsOnImmigrants(tick, out);
  combat_.ResolveAll(tick, CombatRules(), store_, border_, out);
  // A player killed this tick after stepping into a portal stays here (and respawns here).
  std::erase_if(portal_slots_, [this](uint32_t slot) {
    if (store_.at(slot).alive) return false;
    portal_of_[slot] = nullptr;
    return true;
  });
  views_.Prepare({.entities = store_.all(),
                  .slot_of = store_.slots(),
                  .portal_of = portal_of_,
                  .tree = &store_.tree(),
                  .config = &config_,
                  .tick = tick_},
                 overload_level, workers, out);
}

void Zone::FinishTick(ZoneTickOutput* out) {
  views_.Finish();  // the views have seen every change so far
  LeaveForPortals(out);
  Emigrate();
  ExportBorder(out);
  out->SortByPlayer();  // the encoder finds each player's results and chat by binary search
}

void Zone::Respawn(uint64_t tick) {
  for (Entity& e : store_.all()) {
    if (e.alive || e.is_ghost() || tick < e.respawn_tick) continue;
    if (e.is_player()) {
      store_.Place(e, PlayerPlace(config_.player_spawn), tick_);  // the zone's spawn point
    } else {
      MonsterPart& m = e.monster();
      // Its group's area, in whichever cell (it migrates there at the end of the tick), but
      // never beyond the cells next to this one: only those take migrants from here.
      m.home = RandomPointIn(config_.spawns[m.spawn_group].area);
      if (!border_.Near(CellAt(config_.bounds, config_.cells, m.home))) m.home = Confine(m.home);
      m.wander_goal = m.home;
      m.ai = MonsterState::kIdle;
      m.target = kInvalidEntity;
      store_.Place(e, m.home, tick_);
    }
    e.hp = e.max_hp;
    e.changed |= kChangedHp;
    e.velocity = {};
    store_.SetAlive(e, true);
  }
}

void Zone::ApplyInputs(std::span<const PlayerInput> inputs, ZoneTickOutput* out) {
  combat_.Clear();
  for (const PlayerInput& in : inputs) {
    std::visit([this, out](const auto& input) { Apply(input, out); }, in);
  }
}

Entity* Zone::Actor(EntityId id, InputKind kind, uint32_t seq, bool valid, ZoneTickOutput* out) {
  const auto reject = [out](Reject why) { ++out->rejected[static_cast<size_t>(why)]; };
  Entity* p = store_.Find(id);
  if (p == nullptr || !p->is_real_player()) {
    reject(Reject::kUnknownEntity);
    return nullptr;
  }
  if (!valid) {
    reject(Reject::kBadValue);
    return nullptr;
  }
  if (!p->alive) {
    reject(Reject::kDead);
    TellResult(id, kind, seq, Outcome::kDead, &out->results);
    NoteInputSeq(p->player(), seq);  // refused, but judged: acknowledged like any other
    return nullptr;
  }
  return p;
}

Status Zone::Acknowledge(EntityId id, uint32_t seq) {
  Entity* p = store_.Find(id);
  if (p == nullptr || !p->is_real_player()) return {StatusCode::kNotFound, "no such player"};
  NoteInputSeq(p->player(), seq);
  return Status::Ok();
}

void Zone::Apply(const MoveInput& in, ZoneTickOutput* out) {
  Entity* p = Actor(in.entity, MoveInput::kKind, in.seq, IsFinite(in.direction), out);
  if (p == nullptr) return;
  NoteInputSeq(p->player(), in.seq);
  p->player().move_direction = Normalised(in.direction);
}

void Zone::Apply(const SkillInput& in, ZoneTickOutput* out) {
  const bool valid = std::isfinite(in.facing) && Reasonable(in.target);
  Entity* p = Actor(in.entity, SkillInput::kKind, in.seq, valid, out);
  if (p == nullptr) return;
  uint32_t index = 0;
  while (index < p->num_skills && p->skills[index] != in.skill) ++index;
  if (index == p->num_skills) {
    ++out->rejected[static_cast<size_t>(Reject::kUnknownSkill)];
    TellResult(in.entity, InputKind::kSkill, in.seq, Outcome::kUnknownSkill, &out->results);
    NoteInputSeq(p->player(), in.seq);
    return;
  }
  NoteInputSeq(p->player(), in.seq);
  const auto slot = static_cast<uint32_t>(store_.SlotOf(in.entity));
  combat_.Queue({.slot = slot,
                 .skill_index = index,
                 .facing = in.facing,
                 .target = in.target,
                 .from_player = true,
                 .seq = in.seq});
}

// Chat is the World's (it crosses zones): World::Tick never routes it here.
void Zone::Apply(const ChatInput& /*in*/, ZoneTickOutput* /*out*/) {}

void Zone::MovePlayers() {
  portal_slots_.clear();
  portal_of_.assign(store_.size(), nullptr);
  for (uint32_t slot = 0; slot < store_.size(); ++slot) {
    Entity& p = store_.at(slot);
    if (!p.is_real_player() || !p.alive) continue;
    const Vec2 direction = p.player().move_direction;
    if (direction == Vec2{}) {
      p.velocity = {};
      continue;
    }
    // At most speed per tick, never outside the zone (nor its cell, unless players cross): the
    // server decides where a player is.
    const Vec2 to = p.position + direction * p.speed;
    store_.Place(p, border_.players_cross() ? Clamp(to) : Confine(to), tick_);
    store_.Face(p, std::atan2(direction.y, direction.x));
    if ((p.changed & kChangedPosition) == 0) continue;
    for (const Portal& portal : config_.portals) {
      if (portal.area.Contains(p.position)) {
        portal_slots_.push_back(slot);
        portal_of_[slot] = &portal;
        break;
      }
    }
  }
}

void Zone::LeaveForPortals(ZoneTickOutput* out) {
  departures_.clear();
  // Highest slot first, so erasing (swap with the last) never moves a slot still to visit.
  std::sort(portal_slots_.begin(), portal_slots_.end(), std::greater<>());
  for (uint32_t slot : portal_slots_) {
    const Portal& portal = *portal_of_[slot];
    out->transfers.push_back(
        Transfer{store_.at(slot).id, portal.target_zone, portal.target_position});
    Entity leaving = std::move(store_.at(slot));  // Erase reads only id and kind
    store_.Erase(slot, views_);
    departures_.push_back(std::move(leaving));
  }
}

}  // namespace zs::zone
