// Viewer frames: what the zone viewer (/viewer) draws of one zone, captured on the tick thread
// and encoded for the browser on an I/O thread.
//
// Capture copies only what is drawn (ids, kind, position, hitbox radius, hp, alive; the quadtree's
// nodes from ExportNodes; the swings of the ticks since the last capture with their real shapes
// and the entities they hit; the interest set of each selected player) into a ViewerSnapshot,
// plain data that owns everything it holds, so it can cross threads as a shared_ptr<const>.
// EncodeViewerFrame writes it as one binary WebSocket message.
//
// Why binary and not JSON: at 5,000 entities a frame is ~140 KB binary (28 B an entity) against
// ~450 KB of JSON, 10 times a second, and encoding is a few memcpy-sized stores instead of
// formatting 30,000 numbers on the admin thread; the page reads it with a DataView (no library).
//
// The layout (little-endian; DO NOT CHANGE without web/viewer/viewer.js, which decodes it, and
// kViewerFrameVersion):
//   header   u8 type (1 = zone frame), u8 version, u16 tick_rate, u32 zone id, u32 tick,
//            f32 bounds min x, min y, max x, max y, f32 last tick ms, u32 connections,
//            f64 bytes out (total since start), u32 counts of entities, nodes, swings, hits,
//            selections                                                         (64 bytes)
//   entity   u32 id, f32 x, f32 y, f32 radius, i32 hp, i32 max_hp, u8 kind (0 player,
//            1 monster), u8 flags (bit 0: alive; bit 1: a ghost, real in a neighbouring cell
//            on another node: docs/seamless.md), u16 0                          (28 bytes)
//   node     f32 min x, min y, max x, max y, u16 depth, u16 flags (bit 0: leaf), u32 count
//                                                                               (24 bytes)
//   swing    u32 attacker, u8 shape (0 arc, 1 circle, 2 line), u8 0, u16 age in ticks,
//            f32 origin x, origin y, facing, range, half angle, radius, width,
//            u32 first hit, u32 hit count                                        (44 bytes)
//   hit      u32 target, i32 damage, u8 killed, u8 0, u16 0                      (12 bytes)
//   selection u32 entity, f32 view radius, f32 bytes per second, u32 known count,
//            then known count x u32 id                                           (16 + 4n bytes)
// Thread: CaptureZone on the thread that owns the World (between ticks); the rest anywhere.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/entity_id.h"
#include "core/shapes.h"
#include "spatial/quadtree.h"
#include "zone/world.h"

namespace zs::admin {

inline constexpr uint8_t kViewerFrameType = 1;
inline constexpr uint8_t kViewerFrameVersion = 1;

struct ViewerEntity {
  uint32_t id = 0;
  float x = 0;
  float y = 0;
  float radius = 0;
  int32_t hp = 0;
  int32_t max_hp = 0;
  zone::EntityKind kind = zone::EntityKind::kPlayer;
  bool alive = false;
  bool ghost = false;  // real in a neighbouring cell, on another node (docs/seamless.md)
};

// A skill's shape as drawn (on the wire as a u8: DO NOT RENUMBER).
enum class ViewerShape : uint8_t { kArc = 0, kCircle = 1, kLine = 2 };

struct ViewerSwing {
  uint32_t attacker = 0;
  ViewerShape shape = ViewerShape::kArc;
  uint64_t tick = 0;  // when it was swung (encoded as the age relative to the snapshot's tick)
  Vec2 origin;        // the shape's origin: the caster's centre, its front (line), a ground point
  float facing = 0;
  float range = 0;
  float half_angle = 0;
  float radius = 0;
  float width = 0;
  uint32_t first_hit = 0;  // range in ViewerSnapshot::hits
  uint32_t num_hits = 0;
};

struct ViewerHit {
  uint32_t target = 0;
  int32_t damage = 0;
  bool killed = false;
};

struct ViewerSelection {
  uint32_t entity = 0;
  float view_radius = 0;        // 0: not a player
  float bytes_per_s = 0;        // what its client was sent, averaged since the last capture
  std::vector<uint32_t> known;  // its interest set, ascending id
};

struct ViewerSnapshot {
  uint32_t zone_id = 0;
  uint64_t tick = 0;
  uint32_t tick_rate = 0;
  Aabb bounds;
  float tick_ms = 0;
  uint32_t connections = 0;
  uint64_t bytes_out = 0;
  std::vector<ViewerEntity> entities;
  std::vector<spatial::NodeInfo> nodes;
  std::vector<ViewerSwing> swings;
  std::vector<ViewerHit> hits;
  std::vector<ViewerSelection> selections;
};

// Swings of the last tick of zone `zone` (World::output), appended to `swings` and `hits`, at
// most `max_swings` swings in all (the rest of a burst is not drawn).
void CollectSwings(const zone::World& world, size_t zone, size_t max_swings,
                   std::vector<ViewerSwing>* swings, std::vector<ViewerHit>* hits);

// Entities and quadtree nodes of zone `zone` as of the last tick, into `out` (its other fields
// are left as they are). REQUIRES: called between ticks, on the World's thread.
void CaptureZone(const zone::World& world, size_t zone, ViewerSnapshot* out);

// The interest set and view radius of `player` in zone `zone` (empty when it is not a player
// there).
void CaptureSelection(const zone::World& world, size_t zone, uint32_t player, ViewerSelection* out);

// One binary WebSocket message (layout above).
[[nodiscard]] std::string EncodeViewerFrame(const ViewerSnapshot& s);

}  // namespace zs::admin
