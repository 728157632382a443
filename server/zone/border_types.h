// The border between the cells of a split zone (zone/cells.h, docs/seamless.md): what a cell
// tells each neighbour every tick (GhostBatch: its real entities near the border, the hits they
// dealt, the says heard across, the entities migrating over), what the receiver made of it
// (GhostVerdict), and a split zone's `zone` chat (ZoneChat). Plain data; CellBorder
// (zone/cell_border.h) checks and applies it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/entity_id.h"
#include "core/vec2.h"
#include "zone/entity_kind.h"

namespace zs::zone {
// What a cell's node tells its neighbour of one real entity near their border, every tick.
struct GhostState {
  EntityId id = kInvalidEntity;
  EntityKind kind = EntityKind::kPlayer;
  uint32_t template_id = 0;  // monsters: their template
  Vec2 position;
  Vec2 velocity;  // metres per tick, the last step taken
  float facing = 0;
  float radius = 0;
  int32_t hp = 0;
  int32_t max_hp = 0;
  bool alive = true;
  std::string name;  // players: what other players are told
};

// A hit dealt in the sender's tick by one of its real entities (`attacker`, listed among the
// batch's ghosts) to an entity real in the receiving cell (a ghost at the sender): the owner
// applies it at its next tick (docs/seamless.md).
struct RemoteHit {
  EntityId attacker = kInvalidEntity;
  EntityId target = kInvalidEntity;
  uint32_t skill = 0;
  int32_t damage = 0;  // the skill's damage
};

// A `say` by a player near the border (one of the batch's ghosts): the receiving cell's players
// within the zone's chat_radius of the speaker hear it too (docs/seamless.md).
struct BorderSay {
  EntityId speaker = kInvalidEntity;
  std::string text;  // chat text (the speaker's node checked it; the link checks it again)
};

// What a migrating player carries beyond its body.
struct PlayerMigrant {
  Vec2 move_direction;  // unit vector or zero
  uint32_t last_input_seq = 0;
  bool input_seq_seen = false;
  float view_radius = 0;  // 0: the zone's default
  EntityId last_target = kInvalidEntity;
  std::vector<EntityId> known;  // what its client knows (its interest set), to go on from
  // Where its client is connected is the host's, not the zone's: host::MigrantClient, in the
  // host's envelope around the batch (host/border_batch.h).
};

// A real entity whose centre crossed into the receiving cell (farther than the zone's
// cells.migration_margin past the sender's border) at the end of the sender's tick: the
// receiver makes it real at its next tick, with the same id and state, and the sender keeps it
// as a ghost (docs/seamless.md "Migration"). Timers are counted from the end of that tick, in
// ticks, since the cells' tick counters differ.
struct Migrant {
  GhostState body;       // never also one of the batch's ghosts
  PlayerMigrant player;  // body.kind kPlayer
  // The rest: body.kind kMonster.
  uint32_t spawn_group = 0;  // index into the zone's spawn groups: home and respawn area
  MonsterState ai = MonsterState::kIdle;
  EntityId target = kInvalidEntity;  // kChase: the player hunted (real or a ghost anywhere)
  Vec2 home;                         // where it leashes back to (may be in another cell)
  Vec2 wander_goal;
  uint32_t think_in = 0;                        // ticks until its next aggro scan
  uint32_t respawn_in = 0;                      // dead: ticks until it respawns
  std::array<uint32_t, kMaxSkills> ready_in{};  // per skill: ticks until it may be used again
};

// Every real entity of cell `from_cell` within ghost_distance of cell `to_cell` at the end of the
// sender's tick `tick`: the whole set, so a receiver replaces what it held of that cell (an
// entity missing from the batch is no longer a ghost there), the hits its entities dealt to
// the receiver's, and the monsters that crossed into the receiver's cell (`migrants`).
// `epoch` tells one run of the sending node from the next (its ticks start again from 1).
struct GhostBatch {
  uint32_t zone = 0;
  uint32_t from_cell = 0;
  uint32_t to_cell = 0;
  uint64_t epoch = 0;
  uint64_t tick = 0;
  std::vector<GhostState> ghosts;
  std::vector<RemoteHit> hits;
  std::vector<BorderSay> says;
  std::vector<Migrant> migrants;
  // The newest tick of the receiver's batches whose hits the sender had applied when it made
  // this one (0: none): the receiver applies its later hits on this batch's migrants itself.
  uint64_t hits_applied = 0;
};

// A split zone's `zone` chat of one tick, from the cell its speakers are real in, for the nodes
// of every other cell of the zone (not only the neighbours: the whole zone hears it).
struct ZoneLine {
  EntityId speaker = kInvalidEntity;
  std::string name;  // the speaker's, as its cell knows it
  std::string text;  // chat text (wire::IsChatText)
};
struct ZoneChat {
  uint32_t zone = 0;
  uint32_t from_cell = 0;
  uint64_t epoch = 0;  // the sending process's start (filled in by the cluster link)
  uint64_t tick = 0;   // the sender's tick: a receiver takes only newer ones from a cell
  std::vector<ZoneLine> lines;
};
// At most this many lines in one ZoneChat: more is a broken or hostile sender.
inline constexpr size_t kMaxZoneLines = 1024;

// At most this many ghosts in one batch: more is a broken or hostile sender.
inline constexpr size_t kMaxGhostsPerBatch = 65536;

// What a zone made of a neighbour's GhostBatch (Zone::TakeGhosts). Anything but kTaken leaves
// the zone as it was: a batch is taken whole or not at all.
enum class GhostVerdict : uint8_t {
  kTaken,          // applied at the coming tick
  kNotANeighbour,  // this zone is not split, or the batch is for another zone or cell, or
                   // from a cell that does not touch this one
  kStale,          // not newer than the last batch taken from that cell (a replay, or late)
  kTooMany,        // more than kMaxGhostsPerBatch ghosts
  kForeignId,      // an id real in the receiving cell, or listed twice; a hit by an entity
                   // the batch does not list; a say by one that is not a listed player
  kBadValue,       // NaN/inf, a position outside the zone or far from this cell, hp beyond
                   // max_hp, a radius out of range, a name too long, an unknown template; a
                   // hit with a skill its attacker does not have, or not that skill's damage;
                   // a migrant outside the receiving cell, of a spawn group of another
                   // monster, or with timers beyond its template's
  kCount
};
[[nodiscard]] constexpr const char* GhostVerdictName(GhostVerdict v) {
  switch (v) {
    case GhostVerdict::kTaken:
      return "taken";
    case GhostVerdict::kNotANeighbour:
      return "not_a_neighbour";
    case GhostVerdict::kStale:
      return "stale";
    case GhostVerdict::kTooMany:
      return "too_many";
    case GhostVerdict::kForeignId:
      return "foreign_id";
    case GhostVerdict::kBadValue:
      return "bad_value";
    case GhostVerdict::kCount:
      break;
  }
  return "unknown";
}

}  // namespace zs::zone
