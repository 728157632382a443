// CharacterRecord: what the storage layer keeps of one character, and how storage failures are
// described.
//
// A record is the character's name (the primary key), its owning account and the simulation's
// PlayerSnapshot (zone, position, facing, hp, dead timer, skill cooldowns): enough to put the
// player back exactly. Records are plain values, copied freely between threads.
//
// Errors are values (StoreError) on every path after start-up: a Fault kind (for the metric
// label and for the worker's decisions) and a message that names the file or server. Start-up
// problems throw StartupError: the server must not run on a database it cannot trust.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "zone/zone_types.h"

namespace zs::storage {

struct CharacterRecord {
  std::string name;      // the character's unique name: the primary key
  uint64_t account = 0;  // the owning account (0: auth mode none)
  zone::PlayerSnapshot state;
  int64_t saved_at_ms = 0;  // wall clock (ms since the epoch) when the state was taken
  friend bool operator==(const CharacterRecord&, const CharacterRecord&) = default;
};

// Why a store operation failed. kCount is not a fault: it sizes arrays indexed by Fault.
enum class Fault : uint8_t {
  kBusy,        // locked by another connection or process
  kReadOnly,    // the file, directory or database refuses writes
  kFull,        // disk full or file size limit
  kMissing,     // the database file is gone (deleted or moved away mid-run)
  kCorrupt,     // the file or a row is damaged
  kConnection,  // the server cannot be reached (PostgreSQL)
  kOther,
  kCount,
};
inline constexpr size_t kFaultCount = static_cast<size_t>(Fault::kCount);

const char* FaultName(Fault f);  // "busy", "read_only", ... (metric label)

struct StoreError {
  Fault fault = Fault::kOther;
  std::string message;  // clear, names the file or server
};

// A problem found at start-up (corrupt or non-database file, schema newer than this server
// knows, a directory that cannot be created, a server that cannot be reached). The message
// names the file or server.
class StartupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Skill cooldowns as the text kept in the `cooldowns` column: "skill:remaining_ms" pairs joined
// by ',' (empty when none). Text, not a child table: at most kMaxSkills pairs, always read and
// written with the character, and readable in a database shell.
std::string EncodeCooldowns(const zone::PlayerSnapshot& state);
// Fills state->cooldowns and num_cooldowns; false on malformed text or more than kMaxSkills.
[[nodiscard]] bool DecodeCooldowns(std::string_view text, zone::PlayerSnapshot* state);

}  // namespace zs::storage
