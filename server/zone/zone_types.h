// The simulation's inputs and outputs: plain data, no protobuf, no sockets.
//
// Inputs are what a client may ask for (intents); the zone validates every field. Outputs are
// what each player may learn this tick, built so the network layer can encode each entity's
// state once and share it between viewers: per-entity tables (`states`, indexed by a slot
// number) plus, per player, ranges of slot references into shared pools.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/entity_id.h"
#include "core/vec2.h"
#include "interest/interest.h"
#include "zone/border_types.h"
#include "zone/entity_kind.h"

namespace zs::zone {

// ---- a player's lasting state ----

// What it takes to put a player back exactly as they were (persistence, zone hand-off): where,
// how hurt, and how long their dead timer and skill cooldowns still run. Times are in
// milliseconds, not ticks, so a saved player survives a change of tick rate.
struct SkillCooldown {
  uint32_t skill = 0;         // skill id
  uint32_t remaining_ms = 0;  // until it may be used again
  friend bool operator==(const SkillCooldown&, const SkillCooldown&) = default;
};
struct PlayerSnapshot {
  uint32_t zone = 0;  // zone id
  Vec2 position;
  float facing = 0;
  int32_t hp = 0;
  bool alive = true;
  uint32_t respawn_ms = 0;  // dead: until they respawn at the zone's spawn point
  std::array<SkillCooldown, kMaxSkills> cooldowns{};  // the first num_cooldowns are used
  uint32_t num_cooldowns = 0;
  friend bool operator==(const PlayerSnapshot&, const PlayerSnapshot&) = default;
};

// ---- inputs ----

// Input sequence numbers are serial numbers (RFC 1982): they wrap from 2^32-1 to 0, and `a` is
// newer than `b` when it is less than 2^31 steps ahead. A client that counts past 2^32-1 keeps
// getting acknowledgements.
constexpr bool SeqNewer(uint32_t a, uint32_t b) { return static_cast<int32_t>(a - b) > 0; }

// What became of one input, told to the player who sent it (the wire's InputResult).
enum class InputKind : uint8_t { kMove = 1, kSkill = 2, kChat = 3 };

// Each input names its player (`entity`: stamped by the host from the connection, never taken
// from the client), carries the client's sequence number, and states its InputKind.

// Move in `direction` (normalised by the server; zero = stop) until told otherwise.
struct MoveInput {
  static constexpr InputKind kKind = InputKind::kMove;
  EntityId entity = kInvalidEntity;
  uint32_t seq = 0;  // client input sequence number, echoed back once applied
  Vec2 direction;
};

// Use skill `skill` facing `facing` radians; `target` is the ground point for ground-targeted
// circle skills (ignored otherwise; clamped to the skill's cast range).
struct SkillInput {
  static constexpr InputKind kKind = InputKind::kSkill;
  EntityId entity = kInvalidEntity;
  uint32_t seq = 0;
  uint32_t skill = 0;
  float facing = 0;
  Vec2 target;
};

enum class ChatChannel : uint8_t { kSay = 1, kZone = 2, kWhisper = 3 };  // as on the wire

// Say `text` on `channel`; `text_ok`: the text passed the wire's check (else the speaker is
// told BAD_TEXT and nobody hears it). A whisper names its recipient (`to_name`); the host
// resolves the name into `to` (kInvalidEntity: nobody of that name here, NO_SUCH_PLAYER) or
// sets `relayed` when that player is in another world of this process (which gets a
// RelayedWhisper): this world then only gives the speaker its copy. The world's output points
// into `text` and `to_name`: the input must outlive the tick's encoding.
struct ChatInput {
  static constexpr InputKind kKind = InputKind::kChat;
  EntityId entity = kInvalidEntity;
  uint32_t seq = 0;
  ChatChannel channel = ChatChannel::kSay;
  std::string text;
  bool text_ok = true;
  std::string to_name = {};
  EntityId to = kInvalidEntity;
  bool relayed = false;
};

// Everything a player may ask of the world in a tick, as one type: the host queues these and
// hands them to World::Tick in one span. A new kind of input is a new alternative here, its
// parse in wire and its handling in the zone (Zone::Apply); the host carries it unchanged.
using PlayerInput = std::variant<MoveInput, SkillInput, ChatInput>;

[[nodiscard]] inline InputKind KindOf(const PlayerInput& in) {
  return std::visit([](const auto& i) { return std::decay_t<decltype(i)>::kKind; }, in);
}
[[nodiscard]] inline uint32_t SeqOf(const PlayerInput& in) {
  return std::visit([](const auto& i) { return i.seq; }, in);
}
[[nodiscard]] inline EntityId PlayerOf(const PlayerInput& in) {
  return std::visit([](const auto& i) { return i.entity; }, in);
}
inline void SetPlayer(PlayerInput& in, EntityId player) {
  std::visit([player](auto& i) { i.entity = player; }, in);
}

// A whisper said in another world of this process to player `to` of this one, by `from` called
// `from_name` (views valid until the tick's output has been encoded).
struct RelayedWhisper {
  EntityId from = kInvalidEntity;
  std::string_view from_name = {};
  EntityId to = kInvalidEntity;
  std::string_view text = {};
};

// Why an input was not applied. Counted in the tick output for metrics.
enum class Reject : uint8_t {
  kUnknownEntity,  // no such player in this zone (or a stale id)
  kDead,           // the player is dead
  kBadValue,       // NaN/inf or otherwise impossible numbers
  kUnknownSkill,   // not one of the player's skills
  kCooldown,       // the skill is not ready yet
  kCount
};

// ---- outputs ----

// The full public state of an entity, as sent when it enters a player's view.
struct EntityState {
  EntityId id = kInvalidEntity;
  EntityKind kind = EntityKind::kPlayer;
  uint32_t template_id = 0;  // monster template; 0 for players
  Vec2 position;
  Vec2 prev_position;  // at the end of the previous tick (position deltas are from here)
  float facing = 0;
  float radius = 0;
  int32_t hp = 0;
  int32_t max_hp = 0;
  bool alive = false;
};

// Which fields of an entity changed this tick (what an "updated" message carries).
enum ChangeBits : uint8_t {
  kChangedPosition = 1 << 0,
  kChangedFacing = 1 << 1,
  kChangedHp = 1 << 2,
  kChangedAlive = 1 << 3,
};
static_assert(kChangedPosition == interest::kPositionBit, "the interest policy reads this bit");
static_assert(kChangedFacing == interest::kFacingBit, "the interest policy reads this bit");

struct HitTarget {
  EntityId target = kInvalidEntity;
  int32_t damage = 0;
  bool killed = false;
};

struct HitEvent {
  EntityId attacker = kInvalidEntity;
  uint32_t skill = 0;
  Vec2 origin;  // the shape's origin (caster, or ground point)
  float facing = 0;
  uint32_t first_target = 0;  // range in ZoneTickOutput::targets
  uint32_t num_targets = 0;
};

// What one player learns this tick: the interest policy's view (entered, updated, moved, turned,
// left, hits as slots and indices into this output's tables) and the player's input
// acknowledgement.
struct PlayerView : interest::ViewOutput {
  uint32_t last_input_seq = 0;  // the highest input sequence applied so far
};

enum class Outcome : uint8_t {
  kAccepted = 1,
  kCooldown = 2,
  kDead = 3,
  kUnknownSkill = 4,
  kRateLimited = 5,
  kNoSuchPlayer = 6,
  kBadText = 7,
};
struct InputResult {
  EntityId player = kInvalidEntity;
  InputKind kind = InputKind::kMove;
  uint32_t seq = 0;
  Outcome outcome = Outcome::kAccepted;
  uint32_t order = 0;  // arrival order within the tick (results are sorted by player, then this)
};

inline void TellResult(EntityId player, InputKind kind, uint32_t seq, Outcome outcome,
                       std::vector<InputResult>* results) {
  results->push_back(InputResult{.player = player,
                                 .kind = kind,
                                 .seq = seq,
                                 .outcome = outcome,
                                 .order = static_cast<uint32_t>(results->size())});
}

// One chat line, and who gets it (deliveries sorted by recipient, then line).
struct ChatLine {
  EntityId from = kInvalidEntity;
  ChatChannel channel = ChatChannel::kSay;
  std::string_view text;
  EntityId to = kInvalidEntity;  // kWhisper
  // Names of a speaker or recipient in another world of this process (else: by their ids).
  std::string_view from_name = {};
  std::string_view to_name = {};
};
struct ChatDelivery {
  EntityId recipient = kInvalidEntity;
  uint32_t line = 0;
};

struct Transfer {
  EntityId player = kInvalidEntity;
  uint32_t target_zone = 0;
  Vec2 target_position;
};

struct ZoneTickOutput {
  uint64_t tick = 0;
  uint32_t zone = 0;
  std::vector<EntityState> states;  // by slot: every entity in the zone at the end of the tick
  std::vector<uint8_t> changed;     // by slot: ChangeBits of this tick
  std::vector<PlayerView> views;    // one per player in the zone (and per player leaving it);
                                    // reused across ticks: resized, never shrunk
  std::vector<HitEvent> events;
  std::vector<HitTarget> targets;
  std::vector<Transfer> transfers;
  std::array<uint32_t, static_cast<size_t>(Reject::kCount)> rejected{};
  std::vector<InputResult> results;  // sorted by player (then arrival) once the tick is done
  std::vector<ChatLine> chat_lines;
  std::vector<ChatDelivery> chat_deliveries;  // sorted by recipient, then line
  // Player names by EntityIndex (the world's table; empty string: none), set before the zone
  // simulates (the policy counts them in an entry's cost). Null: no names. Read through NameOf.
  const std::vector<std::string>* names = nullptr;
  // A split zone (zone/cells.h): one batch per neighbouring cell, in cell order (the host sends
  // them), and the neighbours whose ghosts were dropped this tick because they fell silent.
  std::vector<GhostBatch> border;
  std::vector<uint32_t> silent_cells;
  // A split zone: this tick's `zone` chat of the players real here, for every other cell (the
  // host sends it when it has lines), at most kMaxZoneLines (the rest: heard here only).
  ZoneChat zone_chat;

  void Reset(uint64_t t, uint32_t zone_id) {
    tick = t;
    zone = zone_id;
    states.clear();
    changed.clear();
    events.clear();
    targets.clear();
    transfers.clear();
    rejected.fill(0);
    results.clear();
    chat_lines.clear();
    chat_deliveries.clear();
    silent_cells.clear();
    zone_chat.lines.clear();
  }

  // Sorts results by player (then arrival) and chat deliveries by recipient (then line).
  void SortByPlayer() {
    std::sort(results.begin(), results.end(), [](const InputResult& a, const InputResult& b) {
      return ToRaw(a.player) != ToRaw(b.player) ? ToRaw(a.player) < ToRaw(b.player)
                                                : a.order < b.order;
    });
    std::sort(chat_deliveries.begin(), chat_deliveries.end(),
              [](const ChatDelivery& a, const ChatDelivery& b) {
                return ToRaw(a.recipient) != ToRaw(b.recipient)
                           ? ToRaw(a.recipient) < ToRaw(b.recipient)
                           : a.line < b.line;
              });
  }
};

// The name an entry of `state` carries: a player's, from the world's table (empty: a monster,
// or no names).
inline std::string_view NameOf(const std::vector<std::string>* names, const EntityState& state) {
  if (names == nullptr || state.kind != EntityKind::kPlayer ||
      EntityIndex(state.id) >= names->size()) {
    return {};
  }
  return (*names)[EntityIndex(state.id)];
}

}  // namespace zs::zone
