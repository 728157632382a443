#include "admin/viewer_frame.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

namespace zs::admin {

namespace {

static_assert(std::endian::native == std::endian::little,
              "the viewer frame is written little-endian with plain stores");

ViewerShape ShapeOf(zone::SkillShape s) {
  switch (s) {
    case zone::SkillShape::kArc:
      return ViewerShape::kArc;
    case zone::SkillShape::kCircle:
      return ViewerShape::kCircle;
    case zone::SkillShape::kLine:
      return ViewerShape::kLine;
  }
  return ViewerShape::kArc;
}

// Appends fixed-size values to a string sized once up front.
class Writer {
 public:
  explicit Writer(size_t bytes) { out_.reserve(bytes); }
  template <typename T>
  void Put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out_.append(b, sizeof(T));
  }
  void U8(uint8_t v) { Put(v); }
  void U16(uint16_t v) { Put(v); }
  void U32(uint32_t v) { Put(v); }
  void I32(int32_t v) { Put(v); }
  void F32(float v) { Put(v); }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

constexpr size_t kHeaderBytes = 64;
constexpr size_t kEntityBytes = 28;
constexpr size_t kNodeBytes = 24;
constexpr size_t kSwingBytes = 44;
constexpr size_t kHitBytes = 12;
constexpr size_t kSelectionBytes = 16;

uint16_t Saturate16(uint64_t v) {
  return static_cast<uint16_t>(std::min<uint64_t>(v, std::numeric_limits<uint16_t>::max()));
}

void WriteHeader(const ViewerSnapshot& s, Writer& w) {
  w.U8(kViewerFrameType);
  w.U8(kViewerFrameVersion);
  w.U16(Saturate16(s.tick_rate));
  w.U32(s.zone_id);
  w.U32(static_cast<uint32_t>(s.tick));
  w.F32(s.bounds.min.x);
  w.F32(s.bounds.min.y);
  w.F32(s.bounds.max.x);
  w.F32(s.bounds.max.y);
  w.F32(s.tick_ms);
  w.U32(s.connections);
  w.Put(static_cast<double>(s.bytes_out));
  w.U32(static_cast<uint32_t>(s.entities.size()));
  w.U32(static_cast<uint32_t>(s.nodes.size()));
  w.U32(static_cast<uint32_t>(s.swings.size()));
  w.U32(static_cast<uint32_t>(s.hits.size()));
  w.U32(static_cast<uint32_t>(s.selections.size()));
}

void WriteSwing(const ViewerSwing& sw, uint64_t now, Writer& w) {
  w.U32(sw.attacker);
  w.U8(static_cast<uint8_t>(sw.shape));
  w.U8(0);
  w.U16(Saturate16(now >= sw.tick ? now - sw.tick : 0));
  for (const float f :
       {sw.origin.x, sw.origin.y, sw.facing, sw.range, sw.half_angle, sw.radius, sw.width}) {
    w.F32(f);
  }
  w.U32(sw.first_hit);
  w.U32(sw.num_hits);
}

}  // namespace

void CollectSwings(const zone::World& world, size_t zone, size_t max_swings,
                   std::vector<ViewerSwing>* swings, std::vector<ViewerHit>* hits) {
  const zone::ZoneTickOutput& out = world.output(zone);
  for (const zone::HitEvent& e : out.events) {
    if (swings->size() >= max_swings) return;
    const zone::SkillDef* skill = world.config().FindSkill(e.skill);
    if (skill == nullptr) continue;
    swings->push_back({.attacker = ToRaw(e.attacker),
                       .shape = ShapeOf(skill->shape),
                       .tick = out.tick,
                       .origin = e.origin,
                       .facing = e.facing,
                       .range = skill->range,
                       .half_angle = skill->half_angle,
                       .radius = skill->radius,
                       .width = skill->width,
                       .first_hit = static_cast<uint32_t>(hits->size()),
                       .num_hits = e.num_targets});
    for (uint32_t t = 0; t < e.num_targets; ++t) {
      const zone::HitTarget& h = out.targets[e.first_target + t];
      hits->push_back({.target = ToRaw(h.target), .damage = h.damage, .killed = h.killed});
    }
  }
}

void CaptureZone(const zone::World& world, size_t zone, ViewerSnapshot* out) {
  const zone::Zone& z = world.zone(zone);
  out->zone_id = z.config().id;
  out->tick = world.tick();
  out->tick_rate = world.config().tick_rate;
  out->bounds = z.config().bounds;
  const std::vector<zone::EntityState>& states = world.output(zone).states;
  out->entities.resize(states.size());
  for (size_t i = 0; i < states.size(); ++i) {
    const zone::EntityState& e = states[i];
    const zone::Entity* entity = z.store().Find(e.id);
    out->entities[i] = {.id = ToRaw(e.id),
                        .x = e.position.x,
                        .y = e.position.y,
                        .radius = e.radius,
                        .hp = e.hp,
                        .max_hp = e.max_hp,
                        .kind = e.kind,
                        .alive = e.alive,
                        .ghost = entity != nullptr && entity->is_ghost()};
  }
  z.store().tree().ExportNodes(&out->nodes);
}

void CaptureSelection(const zone::World& world, size_t zone, uint32_t player,
                      ViewerSelection* out) {
  const zone::Zone& z = world.zone(zone);
  out->entity = player;
  out->known.clear();
  const zone::Entity* e = z.store().Find(static_cast<EntityId>(player));
  if (e == nullptr || !e->is_player()) return;
  out->view_radius = zone::ViewRadiusOf(*e, z.config());
  std::vector<interest::KnownEntity> known;
  z.interest().Known(e->id, &known);
  out->known.reserve(known.size());
  for (const interest::KnownEntity& k : known) out->known.push_back(ToRaw(k.id));
}

std::string EncodeViewerFrame(const ViewerSnapshot& s) {
  size_t bytes = kHeaderBytes + s.entities.size() * kEntityBytes + s.nodes.size() * kNodeBytes +
                 s.swings.size() * kSwingBytes + s.hits.size() * kHitBytes;
  for (const ViewerSelection& sel : s.selections) bytes += kSelectionBytes + 4 * sel.known.size();
  Writer w(bytes);
  WriteHeader(s, w);
  for (const ViewerEntity& e : s.entities) {
    w.U32(e.id);
    w.F32(e.x);
    w.F32(e.y);
    w.F32(e.radius);
    w.I32(e.hp);
    w.I32(e.max_hp);
    w.U8(static_cast<uint8_t>(e.kind));
    w.U8(static_cast<uint8_t>((e.alive ? 1 : 0) | (e.ghost ? 2 : 0)));
    w.U16(0);
  }
  for (const spatial::NodeInfo& n : s.nodes) {
    for (const float f : {n.rect.min.x, n.rect.min.y, n.rect.max.x, n.rect.max.y}) w.F32(f);
    w.U16(Saturate16(n.depth));
    w.U16(n.leaf ? 1 : 0);
    w.U32(n.count);
  }
  for (const ViewerSwing& sw : s.swings) WriteSwing(sw, s.tick, w);
  for (const ViewerHit& h : s.hits) {
    w.U32(h.target);
    w.I32(h.damage);
    w.U8(h.killed ? 1 : 0);
    w.U8(0);
    w.U16(0);
  }
  for (const ViewerSelection& sel : s.selections) {
    w.U32(sel.entity);
    w.F32(sel.view_radius);
    w.F32(sel.bytes_per_s);
    w.U32(static_cast<uint32_t>(sel.known.size()));
    for (const uint32_t id : sel.known) w.U32(id);
  }
  return w.Take();
}

}  // namespace zs::admin
