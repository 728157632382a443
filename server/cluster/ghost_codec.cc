#include "cluster/ghost_codec.h"

#include <limits>

#include "cluster/cell_message.h"
#include "cluster/cluster_protocol.h"
#include "wire/chat_text.h"

namespace zs::cluster {

namespace {

// What protobuf can parse at all (its sizes are ints); NATS bounds a message far below.
constexpr size_t kMaxMessageBytes = static_cast<size_t>(std::numeric_limits<int>::max());

bool KindFromProto(v1::GhostKind kind, zone::EntityKind* out) {
  switch (kind) {
    case v1::GHOST_KIND_PLAYER:
      *out = zone::EntityKind::kPlayer;
      return true;
    case v1::GHOST_KIND_MONSTER:
      *out = zone::EntityKind::kMonster;
      return true;
    default:
      return false;
  }
}

v1::GhostKind KindToProto(zone::EntityKind kind) {
  return kind == zone::EntityKind::kPlayer ? v1::GHOST_KIND_PLAYER : v1::GHOST_KIND_MONSTER;
}

void ToProto(const zone::GhostState& g, v1::Ghost* out) {
  out->set_id(ToRaw(g.id));
  out->set_kind(KindToProto(g.kind));
  out->set_template_id(g.template_id);
  out->set_x(g.position.x);
  out->set_y(g.position.y);
  out->set_vx(g.velocity.x);
  out->set_vy(g.velocity.y);
  out->set_facing(g.facing);
  out->set_radius(g.radius);
  out->set_hp(g.hp);
  out->set_max_hp(g.max_hp);
  out->set_alive(g.alive);
  out->set_name(g.name);
}

bool FromProto(const v1::Ghost& g, zone::GhostState* out) {
  if (!KindFromProto(g.kind(), &out->kind)) return false;
  out->id = static_cast<EntityId>(g.id());
  out->template_id = g.template_id();
  out->position = {g.x(), g.y()};
  out->velocity = {g.vx(), g.vy()};
  out->facing = g.facing();
  out->radius = g.radius();
  out->hp = g.hp();
  out->max_hp = g.max_hp();
  out->alive = g.alive();
  out->name = g.name();
  return true;
}

bool AiFromProto(v1::MonsterAi ai, zone::MonsterState* out) {
  switch (ai) {
    case v1::MONSTER_AI_IDLE:
      *out = zone::MonsterState::kIdle;
      return true;
    case v1::MONSTER_AI_CHASE:
      *out = zone::MonsterState::kChase;
      return true;
    case v1::MONSTER_AI_RETURN:
      *out = zone::MonsterState::kReturn;
      return true;
    default:
      return false;
  }
}

v1::MonsterAi AiToProto(zone::MonsterState ai) {
  switch (ai) {
    case zone::MonsterState::kChase:
      return v1::MONSTER_AI_CHASE;
    case zone::MonsterState::kReturn:
      return v1::MONSTER_AI_RETURN;
    case zone::MonsterState::kIdle:
      break;
  }
  return v1::MONSTER_AI_IDLE;
}

// `client`: where the client of a player migrant is (null: none listed, sent empty).
void ToProto(const zone::Migrant& m, const host::MigrantClient* client, v1::Migrant* out) {
  ToProto(m.body, out->mutable_body());
  out->set_spawn_group(m.spawn_group);
  out->set_ai(AiToProto(m.ai));
  out->set_target(ToRaw(m.target));
  out->set_home_x(m.home.x);
  out->set_home_y(m.home.y);
  out->set_wander_x(m.wander_goal.x);
  out->set_wander_y(m.wander_goal.y);
  out->set_think_in(m.think_in);
  out->set_respawn_in(m.respawn_in);
  out->clear_ready_in();
  for (const uint32_t ticks : m.ready_in) out->add_ready_in(ticks);
  if (m.body.kind != zone::EntityKind::kPlayer) {
    out->clear_player();
    return;
  }
  const zone::PlayerMigrant& p = m.player;
  v1::PlayerMigrant* q = out->mutable_player();
  q->set_move_x(p.move_direction.x);
  q->set_move_y(p.move_direction.y);
  q->set_last_input_seq(p.last_input_seq);
  q->set_input_seq_seen(p.input_seq_seen);
  q->set_view_radius(p.view_radius);
  q->set_last_target(ToRaw(p.last_target));
  q->clear_known();
  for (const EntityId id : p.known) q->add_known(ToRaw(id));
  const host::MigrantClient none;
  const host::MigrantClient& c = client != nullptr ? *client : none;
  q->set_home(c.home);
  q->set_session(c.session);
  q->set_account(c.account);
  q->set_last_frame_tick(c.last_frame_tick);
  q->set_protocol_version(c.protocol_version);
}

// A player migrant's client goes to *clients (the host's part of the batch).
bool FromProto(const v1::Migrant& m, zone::Migrant* out,
               std::vector<host::MigrantClient>* clients) {
  if (!m.has_body() || !FromProto(m.body(), &out->body)) return false;
  if (!AiFromProto(m.ai(), &out->ai)) return false;
  if (static_cast<size_t>(m.ready_in_size()) > zone::kMaxSkills) return false;
  out->spawn_group = m.spawn_group();
  out->target = static_cast<EntityId>(m.target());
  out->home = {m.home_x(), m.home_y()};
  out->wander_goal = {m.wander_x(), m.wander_y()};
  out->think_in = m.think_in();
  out->respawn_in = m.respawn_in();
  out->ready_in = {};
  for (int i = 0; i < m.ready_in_size(); ++i) out->ready_in[static_cast<size_t>(i)] = m.ready_in(i);
  out->player = {};
  if (out->body.kind != zone::EntityKind::kPlayer) return !m.has_player();
  if (!m.has_player() || static_cast<size_t>(m.player().known_size()) > zone::kMaxGhostsPerBatch) {
    return false;
  }
  const v1::PlayerMigrant& p = m.player();
  out->player.move_direction = {p.move_x(), p.move_y()};
  out->player.last_input_seq = p.last_input_seq();
  out->player.input_seq_seen = p.input_seq_seen();
  out->player.view_radius = p.view_radius();
  out->player.last_target = static_cast<EntityId>(p.last_target());
  out->player.known.reserve(static_cast<size_t>(p.known_size()));
  for (const uint32_t id : p.known()) out->player.known.push_back(static_cast<EntityId>(id));
  clients->push_back({.entity = out->body.id,
                      .home = p.home(),
                      .session = p.session(),
                      .account = p.account(),
                      .last_frame_tick = p.last_frame_tick(),
                      .protocol_version = p.protocol_version()});
  return true;
}

}  // namespace

void EncodeGhostBatch(const zone::GhostBatch& batch, std::span<const host::MigrantClient> clients,
                      const std::string& node, uint64_t epoch, v1::GhostBatch* scratch,
                      std::string* out, uint64_t sent_at_us) {
  v1::GhostBatch& m = *scratch;
  m.set_version(kClusterProtocolVersion);
  m.set_from_node(node);
  m.set_zone_id(batch.zone);
  m.set_from_cell(batch.from_cell);
  m.set_to_cell(batch.to_cell);
  m.set_epoch(epoch);
  m.set_tick(batch.tick);
  m.set_hits_applied(batch.hits_applied);
  m.set_sent_at_us(sent_at_us);
  // Reuse the repeated field's elements: no allocation once warm.
  const int n = static_cast<int>(batch.ghosts.size());
  while (m.ghosts_size() > n) m.mutable_ghosts()->RemoveLast();
  for (int i = 0; i < n; ++i) {
    ToProto(batch.ghosts[static_cast<size_t>(i)],
            i < m.ghosts_size() ? m.mutable_ghosts(i) : m.add_ghosts());
  }
  const int h = static_cast<int>(batch.hits.size());
  while (m.hits_size() > h) m.mutable_hits()->RemoveLast();
  for (int i = 0; i < h; ++i) {
    const zone::RemoteHit& hit = batch.hits[static_cast<size_t>(i)];
    v1::RemoteHit* p = i < m.hits_size() ? m.mutable_hits(i) : m.add_hits();
    p->set_attacker(ToRaw(hit.attacker));
    p->set_target(ToRaw(hit.target));
    p->set_skill(hit.skill);
    p->set_damage(hit.damage);
  }
  const int n_says = static_cast<int>(batch.says.size());
  while (m.says_size() > n_says) m.mutable_says()->RemoveLast();
  for (int i = 0; i < n_says; ++i) {
    const zone::BorderSay& say = batch.says[static_cast<size_t>(i)];
    v1::BorderSay* p = i < m.says_size() ? m.mutable_says(i) : m.add_says();
    p->set_speaker(ToRaw(say.speaker));
    p->set_text(say.text);
  }
  const int n_migrants = static_cast<int>(batch.migrants.size());
  while (m.migrants_size() > n_migrants) m.mutable_migrants()->RemoveLast();
  for (int i = 0; i < n_migrants; ++i) {
    const zone::Migrant& migrant = batch.migrants[static_cast<size_t>(i)];
    ToProto(migrant, host::ClientOf(clients, migrant.body.id),
            i < m.migrants_size() ? m.mutable_migrants(i) : m.add_migrants());
  }
  m.SerializeToString(out);
}

std::optional<host::BorderRefusal> DecodeGhostBatch(std::string_view bytes,
                                                    const zone::WorldConfig& world,
                                                    host::BorderBatch* envelope) {
  using host::BorderRefusal;
  zone::GhostBatch* out = &envelope->batch;
  v1::GhostBatch m;
  const zone::ZoneConfig* z = nullptr;
  if (const auto refused = ParseCellMessage(bytes, kMaxMessageBytes, world, &m, &z)) {
    return refused;
  }
  if (static_cast<size_t>(m.ghosts_size()) > zone::kMaxGhostsPerBatch ||
      static_cast<size_t>(m.hits_size()) > zone::kMaxGhostsPerBatch ||
      static_cast<size_t>(m.says_size()) > zone::kMaxGhostsPerBatch ||
      static_cast<size_t>(m.migrants_size()) > zone::kMaxGhostsPerBatch) {
    return BorderRefusal::kUnparsable;  // the zone would refuse it too; do not copy it first
  }
  out->zone = m.zone_id();
  out->from_cell = m.from_cell();
  out->to_cell = m.to_cell();
  out->epoch = m.epoch();
  out->tick = m.tick();
  out->hits_applied = m.hits_applied();
  envelope->sent_at_us = m.sent_at_us();
  out->ghosts.resize(static_cast<size_t>(m.ghosts_size()));
  for (int i = 0; i < m.ghosts_size(); ++i) {
    if (!FromProto(m.ghosts(i), &out->ghosts[static_cast<size_t>(i)])) {
      return BorderRefusal::kUnparsable;
    }
  }
  out->hits.resize(static_cast<size_t>(m.hits_size()));
  for (int i = 0; i < m.hits_size(); ++i) {
    const v1::RemoteHit& hit = m.hits(i);
    out->hits[static_cast<size_t>(i)] = {.attacker = static_cast<EntityId>(hit.attacker()),
                                         .target = static_cast<EntityId>(hit.target()),
                                         .skill = hit.skill(),
                                         .damage = hit.damage()};
  }
  // What reaches clients as protobuf strings must be text: names and says are checked here.
  for (const zone::GhostState& g : out->ghosts) {
    if (!g.name.empty() && !wire::IsChatText(g.name)) return BorderRefusal::kUnparsable;
  }
  out->says.resize(static_cast<size_t>(m.says_size()));
  for (int i = 0; i < m.says_size(); ++i) {
    if (!wire::IsChatText(m.says(i).text())) return BorderRefusal::kUnparsable;
    out->says[static_cast<size_t>(i)] = {.speaker = static_cast<EntityId>(m.says(i).speaker()),
                                         .text = m.says(i).text()};
  }
  out->migrants.resize(static_cast<size_t>(m.migrants_size()));
  envelope->clients.clear();
  for (int i = 0; i < m.migrants_size(); ++i) {
    if (!FromProto(m.migrants(i), &out->migrants[static_cast<size_t>(i)], &envelope->clients)) {
      return BorderRefusal::kUnparsable;
    }
  }
  return std::nullopt;
}

void EncodeZoneChat(const zone::ZoneChat& chat, uint32_t to_cell, const std::string& node,
                    uint64_t epoch, std::string* out) {
  v1::ZoneChat m;
  m.set_version(kClusterProtocolVersion);
  m.set_from_node(node);
  m.set_zone_id(chat.zone);
  m.set_from_cell(chat.from_cell);
  m.set_to_cell(to_cell);
  m.set_epoch(epoch);
  m.set_tick(chat.tick);
  for (const zone::ZoneLine& l : chat.lines) {
    v1::ZoneChatLine* p = m.add_lines();
    p->set_speaker(ToRaw(l.speaker));
    p->set_name(l.name);
    p->set_text(l.text);
  }
  m.SerializeToString(out);
}

std::optional<host::BorderRefusal> DecodeZoneChat(std::string_view bytes,
                                                  const zone::WorldConfig& world,
                                                  zone::ZoneChat* out, uint32_t* to_cell) {
  using host::BorderRefusal;
  v1::ZoneChat m;
  const zone::ZoneConfig* z = nullptr;
  if (const auto refused = ParseCellMessage(bytes, kMaxMessageBytes, world, &m, &z)) {
    return refused;
  }
  if (m.from_cell() == m.to_cell()) return BorderRefusal::kNotSplit;  // its own cell's
  if (m.lines_size() == 0 || static_cast<size_t>(m.lines_size()) > zone::kMaxZoneLines) {
    return BorderRefusal::kUnparsable;
  }
  out->zone = m.zone_id();
  out->from_cell = m.from_cell();
  out->epoch = m.epoch();
  out->tick = m.tick();
  out->lines.clear();
  for (const v1::ZoneChatLine& l : m.lines()) {
    if (l.speaker() == 0 || static_cast<EntityId>(l.speaker()) == kInvalidEntity ||
        l.name().size() > kMaxZoneName || !wire::IsChatText(l.name()) ||
        !wire::IsChatText(l.text())) {
      return BorderRefusal::kUnparsable;
    }
    out->lines.push_back(
        {.speaker = static_cast<EntityId>(l.speaker()), .name = l.name(), .text = l.text()});
  }
  *to_cell = m.to_cell();
  return std::nullopt;
}

}  // namespace zs::cluster
