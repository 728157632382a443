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

// A migration step: a table with these columns, or an index on one column.
struct SchemaStep {
  enum class Kind : uint8_t { kCreateTable, kCreateIndex } kind;
  const char* table;
  std::span<const Column> columns;  // kCreateTable
  const char* index = "";           // kCreateIndex: the index's name ...
  const char* indexed = "";         // ... and its column
};

// Every step, oldest first.
[[nodiscard]] std::span<const SchemaStep> SchemaSteps();
// The version a database has once every step ran.
[[nodiscard]] int SchemaVersion();
// A step's DDL in `dialect`.
[[nodiscard]] std::string StepSql(const SchemaStep& step, Dialect dialect);
// Insert or update a character: its columns in table order as parameters 1..N.
[[nodiscard]] std::string UpsertCharacterSql(Dialect dialect);
// A character by name (parameter 1): every column but the name, in table order.
[[nodiscard]] std::string SelectCharacterSql(Dialect dialect);

}  // namespace zs::storage
