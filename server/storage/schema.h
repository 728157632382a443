// The character table's schema, once for both databases: its columns (with a logical type each
// database spells its own way), the migration steps, and the statements the stores prepare.
// sqlite_store.cc and postgres_store.cc render it in their dialect and run it; neither spells
// a column or a step of its own.
//
// DO NOT EDIT a step once released: databases in the field have applied it (a test keeps the
// rendered DDL of every released step equal to what was released). Add steps at the end; a
// step's version is its position (1-based). Threads: pure functions, any thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace zs::storage {

enum class Dialect : uint8_t { kSqlite, kPostgres };

// The characters table's columns: the parameters UpsertCharacterSql takes.
inline constexpr int kCharacterColumnCount = 11;

enum class ColumnType : uint8_t {
  kText,    // TEXT
  kInt64,   // SQLite INTEGER, PostgreSQL BIGINT
  kInt32,   // INTEGER
  kDouble,  // SQLite REAL, PostgreSQL DOUBLE PRECISION
  kBool,    // SQLite INTEGER (0/1), PostgreSQL BOOLEAN
};

struct Column {
  const char* name;
  ColumnType type;
  const char* constraint;  // "" or e.g. "PRIMARY KEY", "NOT NULL"
};

// A migration step: a table with these columns, an index on one column, a column added, or the
// look-alike keys of every character filled in (computed by the server with ICU, not in SQL:
// StepSql gives "" and the store runs FillNameKeySql once per row; see there).
struct SchemaStep {
  enum class Kind : uint8_t { kCreateTable, kCreateIndex, kAddColumn, kFillNameKeys } kind;
  const char* table;
  std::span<const Column> columns;  // kCreateTable; kAddColumn: the one column
  const char* index = "";           // kCreateIndex: the index's name ...
  const char* indexed = "";         // ... and its column
  bool unique = false;              // kCreateIndex: a UNIQUE index
};

// Every step, oldest first.
[[nodiscard]] std::span<const SchemaStep> SchemaSteps();
// The version a database has once every step ran.
[[nodiscard]] int SchemaVersion();
// A step's DDL in `dialect`.
[[nodiscard]] std::string StepSql(const SchemaStep& step, Dialect dialect);
// Insert or update a character: its columns in table order as parameters 1..N, then its
// look-alike key (names::LookAlikeKey) as parameter N+1. The key is stored only if no other
// character holds it (else NULL: the look-alike was refused at login already unless two servers
// created both within one checkpoint; two such saves committing at once can still fail one
// batch on the unique index, retried as any failed save).
[[nodiscard]] std::string UpsertCharacterSql(Dialect dialect);
inline constexpr int kUpsertParamCount = kCharacterColumnCount + 1;
// The character called parameter 2, or else the one whose look-alike key is parameter 1: every
// column but the name in table order, then the name (when it differs from parameter 2 the
// stored character only looks like the one asked for).
[[nodiscard]] std::string SelectCharacterSql(Dialect dialect);
// The kFillNameKeys step: every name, the longest saved first (no parameter) ...
[[nodiscard]] std::string SelectNamesSql();
// ... then, for each name whose key no earlier name had (the store keeps the keys seen), its key
// (parameter 1) for the name (parameter 2): one primary-key update per character.
[[nodiscard]] std::string FillNameKeySql(Dialect dialect);

}  // namespace zs::storage
