// CharacterStore: the backend interface of character persistence (SQLite or PostgreSQL).
//
// What it is for: the storage worker (storage_worker.h) loads a character on login and saves
// dirty characters in batches; a store is the one thing that talks to the database. The
// backends use the C APIs (sqlite3, libpq) directly: both are small, packaged by Debian, and
// the two statements we need (an upsert and a select by name) do not call for a wrapper.
//
// Threads: not thread-safe. One thread at a time (the storage worker's) calls a store.
//
// Errors: every operation returns a StoreError as a value (std::nullopt: success) with a Fault
// kind and a message naming the file or server. A failed Save changes nothing (one
// transaction); a failed Load tells nothing (the caller must not treat it as "no character").
// The factories (sqlite_store.h, postgres_store.h) throw StartupError instead: a database the
// server cannot trust stops start-up.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "storage/character_record.h"

namespace zs::storage {

class CharacterStore {
 public:
  virtual ~CharacterStore() = default;
  // *out = the record, or nullopt when there is none. Error: nothing known (*out unchanged).
  virtual std::optional<StoreError> Load(const std::string& name,
                                         std::optional<CharacterRecord>* out) = 0;
  // Insert-or-replace every record by name in ONE transaction: all or nothing.
  // REQUIRES: names are unique within `records`.
  virtual std::optional<StoreError> Save(std::span<const CharacterRecord> records) = 0;
  // "sqlite /abs/path/characters.db", "postgres host=... dbname=..." (never a password).
  virtual std::string Describe() const = 0;
};

}  // namespace zs::storage
