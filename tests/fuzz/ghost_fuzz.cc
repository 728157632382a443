// Fuzz target: a split zone's border batch from another node (docs/seamless.md), from the bytes
// on NATS to the zone: cluster::DecodeGhostBatch, then Zone::TakeGhosts and two ticks.
//
// Input: the bytes of one NATS message on a cell's ghost subject (the seeds are valid batches,
// tests/fuzz/corpus/ghost_fuzz, written from text by protoc --encode).
// Properties (a crash, an abort or libFuzzer's timeout when broken):
//   - the link refuses the bytes or hands over a batch: no exception, no crash;
//   - the zone takes the batch whole or refuses it whole: a refused batch leaves no ghost;
//   - after ticks with a taken batch, every ghost stands inside the zone within ghost_distance
//     of the cell, with 0 <= hp <= max_hp; no real entity was replaced; every real one is within
//     migration_margin of the cell (beyond, it is a migrant, a ghost here); the real entities
//     are the zone's own plus at most the batch's migrants (players among them), and the
//     player is still real.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

#include "cluster/ghost_codec.h"
#include "zone/test_world.h"
#include "zone/world.h"

namespace zs::zone {
namespace {

void Require(bool ok) {
  if (!ok) __builtin_trap();
}

// TestWorld's zone split in two ("west" owns cell 0, "east" cell 1), a dummy on each side.
const WorldConfig& Split() {
  static const WorldConfig world = [] {
    WorldConfig w = testing::TestWorld();
    ZoneConfig& z = w.zones[0];
    z.spawns = {{.monster = testing::kDummy, .count = 1, .area = {{48, 20}, {48, 20}}},
                {.monster = testing::kWolf, .count = 1, .area = {{52, 20}, {52, 20}}}};
    return testing::SplitInTwo(std::move(w));
  }();
  return world;
}

void Run(std::string_view bytes) {
  const WorldConfig& config = Split();
  host::BorderBatch envelope;
  if (cluster::DecodeGhostBatch(bytes, config, &envelope).has_value()) return;
  const GhostBatch& batch = envelope.batch;
  const std::vector<HostedCell> cells = {{.zone_id = 1, .cell = 0}};
  EntityIdAllocator ids(IdsOfCell(config.zones[0].cells, 0));
  World west(config, {}, &ids, cells);
  west.SetPlayersCross(true);  // player migrants too
  EntityId player = kInvalidEntity;
  Require(west.RestorePlayer({.zone = 1, .position = {49, 20}, .hp = 100}, &player, "Wes").ok());
  const size_t reals = west.zone(0).store().entities().size();
  const size_t migrants = batch.migrants.size();
  const GhostVerdict verdict = west.TakeGhosts(batch);
  for (int t = 0; t < 2; ++t) west.Tick(std::span<const MoveInput>{}, {});
  const Zone& zone = west.zone(0);
  if (verdict != GhostVerdict::kTaken) Require(zone.store().ghost_count() == 0);
  const float margin = zone.config().cells.migration_margin;
  size_t real = 0;
  for (const Entity& e : zone.store().entities()) {
    if (!e.is_ghost()) {
      ++real;
      Require(RectDistanceSq(e.position, zone.border().area()) <= margin * margin);
      continue;
    }
    Require(e.ghost_of == 1);
    Require(zone.config().bounds.Contains(e.position));
    Require(e.hp >= 0 && e.hp <= e.max_hp);
  }
  Require(real >= reals && real <= reals + (verdict == GhostVerdict::kTaken ? migrants : 0));
  Require(zone.store().player_count() >= 1 && zone.store().player_count() <= 1 + migrants);
  Require(zone.store().Find(player) != nullptr && !zone.store().Find(player)->is_ghost());
}

}  // namespace
}  // namespace zs::zone

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  zs::zone::Run({reinterpret_cast<const char*>(data), size});
  return 0;
}
