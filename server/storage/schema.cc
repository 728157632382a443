#include "storage/schema.h"

#include <array>

namespace zs::storage {

namespace {

// The characters table as released in step 1 (DO NOT EDIT: see the header).
constexpr std::array kCharacterColumns = {
    Column{.name = "name", .type = ColumnType::kText, .constraint = "PRIMARY KEY"},
    Column{.name = "account", .type = ColumnType::kInt64, .constraint = "NOT NULL"},
    Column{.name = "zone", .type = ColumnType::kInt64, .constraint = "NOT NULL"},
    Column{.name = "x", .type = ColumnType::kDouble, .constraint = ""},
    Column{.name = "y", .type = ColumnType::kDouble, .constraint = ""},
    Column{.name = "facing", .type = ColumnType::kDouble, .constraint = ""},
    Column{.name = "hp", .type = ColumnType::kInt32, .constraint = ""},
    Column{.name = "alive", .type = ColumnType::kBool, .constraint = ""},
    Column{.name = "respawn_ms", .type = ColumnType::kInt64, .constraint = ""},
    Column{.name = "cooldowns", .type = ColumnType::kText, .constraint = ""},
    Column{.name = "saved_at_ms", .type = ColumnType::kInt64, .constraint = ""},
};

static_assert(kCharacterColumns.size() == kCharacterColumnCount);

// Added in schema version 3: the name's look-alike key (names/player_name.h), unique.
constexpr const char* kNameKey = "name_key";
constexpr std::array kNameKeyColumn = {
    Column{.name = kNameKey, .type = ColumnType::kText, .constraint = ""},
};

constexpr std::array kSteps = {
    SchemaStep{.kind = SchemaStep::Kind::kCreateTable,
               .table = "characters",
               .columns = kCharacterColumns},
    SchemaStep{.kind = SchemaStep::Kind::kCreateIndex,
               .table = "characters",
               .columns = {},
               .index = "characters_account",
               .indexed = "account"},
    SchemaStep{
        .kind = SchemaStep::Kind::kAddColumn, .table = "characters", .columns = kNameKeyColumn},
    SchemaStep{.kind = SchemaStep::Kind::kFillNameKeys, .table = "characters", .columns = {}},
    SchemaStep{.kind = SchemaStep::Kind::kCreateIndex,
               .table = "characters",
               .columns = {},
               .index = "characters_name_key",
               .indexed = kNameKey,
               .unique = true},
};

const char* TypeName(ColumnType type, Dialect d) {
  const bool pg = d == Dialect::kPostgres;
  switch (type) {
    case ColumnType::kText:
      return "TEXT";
    case ColumnType::kInt64:
      return pg ? "BIGINT" : "INTEGER";
    case ColumnType::kInt32:
      return "INTEGER";
    case ColumnType::kDouble:
      return pg ? "DOUBLE PRECISION" : "REAL";
    case ColumnType::kBool:
      return pg ? "BOOLEAN" : "INTEGER";
  }
  return "TEXT";
}

// Parameter n (1-based) in the dialect's spelling.
std::string Param(int n, Dialect d) {
  return (d == Dialect::kPostgres ? "$" : "?") + std::to_string(n);
}

}  // namespace

std::span<const SchemaStep> SchemaSteps() { return kSteps; }

int SchemaVersion() { return static_cast<int>(kSteps.size()); }

std::string StepSql(const SchemaStep& step, Dialect dialect) {
  switch (step.kind) {
    case SchemaStep::Kind::kCreateIndex:
      return std::string(step.unique ? "CREATE UNIQUE INDEX " : "CREATE INDEX ") + step.index +
             " ON " + step.table + "(" + step.indexed + ")";
    case SchemaStep::Kind::kAddColumn:
      return std::string("ALTER TABLE ") + step.table + " ADD COLUMN " + step.columns[0].name +
             " " + TypeName(step.columns[0].type, dialect);
    case SchemaStep::Kind::kFillNameKeys:
      return "";
    case SchemaStep::Kind::kCreateTable:
      break;
  }
  std::string sql = std::string("CREATE TABLE ") + step.table + "(";
  for (size_t i = 0; i < step.columns.size(); ++i) {
    const Column& c = step.columns[i];
    sql.append(i == 0 ? "" : ", ").append(c.name).append(" ").append(TypeName(c.type, dialect));
    if (*c.constraint != '\0') sql.append(" ").append(c.constraint);
  }
  return sql + ")";
}

std::string UpsertCharacterSql(Dialect dialect) {
  std::string names;
  std::string params;
  std::string updates;
  for (size_t i = 0; i < kCharacterColumns.size(); ++i) {
    const char* name = kCharacterColumns[i].name;
    const char* comma = i == 0 ? "" : ", ";
    names.append(comma).append(name);
    params.append(comma).append(Param(static_cast<int>(i) + 1, dialect));
    if (i > 0) updates.append(i == 1 ? "" : ", ").append(name).append(" = excluded.").append(name);
  }
  const std::string key = Param(kUpsertParamCount, dialect);
  const std::string name = Param(1, dialect);
  return "INSERT INTO characters(" + names + ", " + kNameKey + ") VALUES(" + params +
         ", (SELECT CASE WHEN EXISTS(SELECT 1 FROM characters WHERE " + kNameKey + " = " + key +
         " AND name <> " + name + ") THEN NULL ELSE " + key + " END)) ON CONFLICT(" +
         kCharacterColumns[0].name + ") DO UPDATE SET " + updates + ", " + kNameKey +
         " = excluded." + kNameKey;
}

std::string SelectCharacterSql(Dialect dialect) {
  std::string names;
  for (size_t i = 1; i < kCharacterColumns.size(); ++i) {
    names.append(i == 1 ? "" : ", ").append(kCharacterColumns[i].name);
  }
  const std::string name = Param(2, dialect);
  return "SELECT " + names + ", name FROM characters WHERE " + kNameKey + " = " +
         Param(1, dialect) + " OR name = " + name + " ORDER BY name = " + name + " DESC LIMIT 1";
}

std::string SelectNamesSql() { return "SELECT name FROM characters ORDER BY saved_at_ms, name"; }

std::string FillNameKeySql(Dialect dialect) {
  return std::string("UPDATE characters SET ") + kNameKey + " = " + Param(1, dialect) +
         " WHERE name = " + Param(2, dialect);
}

}  // namespace zs::storage
