// Server -> client frames. Each function returns one complete frame (varint length prefix +
// ServerMessage), ready to append to a connection's send queue.
//
// TickEncoder follows docs/architecture.md: each entity's EntityEnter, each field of its
// EntityUpdate, its move delta, and each hit event are encoded once per tick; a player's TickUpdate
// is then assembled from those shared pieces by copying bytes (protobuf's wire format lets a
// message be written as tag + length + its fields in any order, so an update with any set of fields
// is a concatenation of pieces). The per-entity and per-view phases may run on a TaskRunner. Not
// thread-safe otherwise: one per zone.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/task_runner.h"
#include "zone/world_config.h"
#include "zone/zone_types.h"

namespace zs::wire {

enum class ErrorCode : uint32_t {  // mirrors zone.proto ErrorCode; DO NOT RENUMBER
  kProtocolVersion = 1,
  kBadFrame = 2,
  kNotLoggedIn = 3,
  kAlreadyLoggedIn = 4,
  kBadValue = 5,
  kRateLimited = 6,
  kServerFull = 7,
  kBadName = 8,
  kAuthFailed = 9,
  kStorageUnavailable = 10,
  kBadTicket = 11,
  kZoneUnavailable = 12,
};
enum class NoticeCode : uint32_t { kZoneUnavailable = 1 };  // mirrors zone.proto NoticeCode

// What Welcome tells a player about itself and the world.
struct WelcomeInfo {
  EntityId player = kInvalidEntity;
  std::string_view name;
  const zone::PlayerSnapshot* state = nullptr;  // REQUIRES: non-null: where, hp, cooldowns
  const zone::ZoneConfig* zone = nullptr;       // REQUIRES: non-null
  const zone::WorldConfig* world = nullptr;     // REQUIRES: non-null (player template, skills,
                                                // monster templates, tick rate)
  uint64_t server_tick = 0;
  uint64_t server_time_ms = 0;  // wall clock, ms since the Unix epoch
};
std::string WelcomeFrame(const WelcomeInfo& info);
// Where a client goes when the zone is hosted by another server (v5; empty: by this one).
struct OtherServer {
  std::string_view address;        // "host:port" of its game port
  std::string_view ticket;         // the one-time hand-off ticket
  std::string_view websocket_url;  // v10: its WebSocket door; empty: it has none
};
std::string ZoneChangedFrame(const zone::ZoneConfig& zone, Vec2 arrival,
                             const OtherServer& there = {});
std::string NoticeFrame(NoticeCode code, std::string_view text);
std::string PongFrame(uint64_t client_time, uint64_t server_tick, uint64_t server_time_ms);
std::string ErrorFrame(ErrorCode code, std::string_view message);
std::string KickFrame(std::string_view reason);
// The `tick` of a TickUpdate frame as TickEncoder writes it (the length prefix, then
// ServerMessage.tick, whose first field is TickUpdate.tick), or nullopt for bytes that do not
// start so.
[[nodiscard]] std::optional<uint64_t> TickOfFrame(std::string_view frame);

// A fixed-capacity run of bytes: one pre-encoded piece of a message (a field or a few).
struct Piece {
  std::array<char, 24> bytes{};
  uint8_t size = 0;
  [[nodiscard]] std::string_view view() const { return {bytes.data(), size}; }
};

// How one view's frame is written, beyond what the view holds.
struct ViewFraming {
  bool resync = false;       // the TickUpdate is a resync (`entered` is everything known)
  bool turned = true;        // the client speaks kTurnedVersion: turns go in TickUpdate.turned_*
                             // (false: in `updated`, with absolute x, y and facing)
  uint64_t tick_offset = 0;  // added to the tick (wrapping): a player who came from another
                             // cell's node goes on with its client's count
};

class TickEncoder {
 public:
  // Encodes one tick of one zone: after this, Frame(i) is the frame for out.views[i], written
  // as framing[i] says (none: ViewFraming{}). `runner` (null: this thread) spreads the
  // per-entity and per-view work; frames are the same whatever runner is used.
  void Encode(const zone::ZoneTickOutput& out, std::span<const ViewFraming> framing = {},
              TaskRunner* runner = nullptr);
  // View i's frame, valid until the next Encode. The buffers are kept from tick to tick (no
  // allocation per frame once warm): a connection sends the bytes or copies them.
  [[nodiscard]] const std::string& Frame(size_t view) const { return frames_[view]; }
  // Bytes of `slot`'s EntityUpdate carrying `fields` (ChangeBits), as a TickUpdate.updated entry.
  [[nodiscard]] size_t UpdateBytes(uint32_t slot, uint8_t fields) const;
  // Bytes of `slot`'s move as a delta: its share of moved_ids (id gap from `prev_raw_id`) and
  // moved_deltas.
  [[nodiscard]] size_t MovedBytes(uint32_t slot, uint32_t prev_raw_id) const;
  // Bytes of `slot`'s move and facing as a turn: its share of turned_ids, turned_deltas and
  // turned_facings.
  [[nodiscard]] size_t TurnedBytes(uint32_t slot, uint32_t prev_raw_id) const;

 private:
  // Per slot: EntityUpdate fields, each a complete tag + value, the move's zigzag deltas and
  // the facing's bare value (for turned_facings).
  struct Fields {
    Piece id, position, facing, hp, alive, delta, turn;
    uint32_t raw_id = 0;
  };
  struct Scratch {  // per worker
    std::string body;
    std::string packed;
    std::string crowd;
  };
  void EncodeEntities(const zone::ZoneTickOutput& out, TaskRunner& runner);
  void EncodeHits(const zone::ZoneTickOutput& out);
  void EncodeChat(const zone::ZoneTickOutput& out);
  // The player's chat lines and input results, appended to its TickUpdate body.
  void AppendChatAndResults(const zone::ZoneTickOutput& out, EntityId player,
                            std::string* body) const;
  void EncodeView(const zone::ZoneTickOutput& out, size_t view, const ViewFraming& framing,
                  Scratch& sc);
  // A delta list (moved or turned; none if `slots` is empty) appended to `body`: the slots' ids,
  // each as the gap from the previous (ids ascending), then their dx, dy. `packed` is scratch.
  void PutDeltas(std::span<const uint32_t> slots, int ids_field, int deltas_field,
                 std::string* packed, std::string* body) const;
  void AppendUpdate(uint32_t slot, uint8_t fields, std::string* out) const;

  std::vector<Fields> fields_;       // by slot
  std::vector<std::string> enter_;   // by slot, empty unless someone enters it; capacity kept
  std::vector<uint8_t> need_enter_;  // by slot
  std::vector<std::string> hits_;    // by event
  std::vector<std::string> chat_;    // by chat line: a complete TickUpdate.chat entry
  std::vector<Scratch> scratch_;     // by worker
  std::vector<std::string> frames_;  // by view; capacity kept
};

}  // namespace zs::wire
