// The schema both stores render: every released step's DDL, in each dialect, is exactly what
// was released (DO NOT EDIT a released step: databases in the field have applied it), and the
// statements name every column once, in table order.
#include "storage/schema.h"

#include <gtest/gtest.h>

#include <string>

namespace zs::storage {
namespace {

TEST(Schema, ReleasedStepsRenderAsReleasedInBothDialects) {
  ASSERT_EQ(SchemaVersion(), 5);
  const auto steps = SchemaSteps();
  EXPECT_EQ(StepSql(steps[0], Dialect::kSqlite),
            "CREATE TABLE characters(name TEXT PRIMARY KEY, account INTEGER NOT NULL, "
            "zone INTEGER NOT NULL, x REAL, y REAL, facing REAL, hp INTEGER, "
            "alive INTEGER, respawn_ms INTEGER, cooldowns TEXT, saved_at_ms INTEGER)");
  EXPECT_EQ(StepSql(steps[0], Dialect::kPostgres),
            "CREATE TABLE characters(name TEXT PRIMARY KEY, account BIGINT NOT NULL, "
            "zone BIGINT NOT NULL, x DOUBLE PRECISION, y DOUBLE PRECISION, "
            "facing DOUBLE PRECISION, hp INTEGER, alive BOOLEAN, respawn_ms BIGINT, "
            "cooldowns TEXT, saved_at_ms BIGINT)");
  for (const Dialect d : {Dialect::kSqlite, Dialect::kPostgres}) {
    EXPECT_EQ(StepSql(steps[1], d), "CREATE INDEX characters_account ON characters(account)");
    // Version 3 to 5: the look-alike key (names/player_name.h), filled in by the server, then
    // unique.
    EXPECT_EQ(StepSql(steps[2], d), "ALTER TABLE characters ADD COLUMN name_key TEXT");
    EXPECT_EQ(steps[3].kind, SchemaStep::Kind::kFillNameKeys);
    EXPECT_EQ(StepSql(steps[3], d), "");
    EXPECT_EQ(StepSql(steps[4], d),
              "CREATE UNIQUE INDEX characters_name_key ON characters(name_key)");
  }
}

TEST(Schema, TheStatementsNameEveryColumnInOrderAndTheLookAlikeKey) {
  EXPECT_EQ(UpsertCharacterSql(Dialect::kSqlite),
            "INSERT INTO characters(name, account, zone, x, y, facing, hp, alive, respawn_ms, "
            "cooldowns, saved_at_ms, name_key) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
            "?11, (SELECT CASE WHEN EXISTS(SELECT 1 FROM characters WHERE name_key = ?12 AND "
            "name <> ?1) THEN NULL ELSE ?12 END)) ON CONFLICT(name) DO UPDATE SET "
            "account = excluded.account, zone = excluded.zone, x = excluded.x, y = excluded.y, "
            "facing = excluded.facing, hp = excluded.hp, alive = excluded.alive, "
            "respawn_ms = excluded.respawn_ms, cooldowns = excluded.cooldowns, "
            "saved_at_ms = excluded.saved_at_ms, name_key = excluded.name_key");
  const std::string pg = UpsertCharacterSql(Dialect::kPostgres);
  EXPECT_NE(pg.find("VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, (SELECT"),
            std::string::npos)
      << pg;
  EXPECT_EQ(pg.find('?'), std::string::npos) << pg;
  EXPECT_EQ(SelectCharacterSql(Dialect::kSqlite),
            "SELECT account, zone, x, y, facing, hp, alive, respawn_ms, cooldowns, saved_at_ms, "
            "name FROM characters WHERE name_key = ?1 OR name = ?2 ORDER BY name = ?2 DESC "
            "LIMIT 1");
  EXPECT_EQ(SelectCharacterSql(Dialect::kPostgres),
            "SELECT account, zone, x, y, facing, hp, alive, respawn_ms, cooldowns, saved_at_ms, "
            "name FROM characters WHERE name_key = $1 OR name = $2 ORDER BY name = $2 DESC "
            "LIMIT 1");
  EXPECT_EQ(SelectNamesSql(), "SELECT name FROM characters ORDER BY saved_at_ms, name");
  EXPECT_EQ(FillNameKeySql(Dialect::kPostgres),
            "UPDATE characters SET name_key = $1 WHERE name = $2");
}

}  // namespace
}  // namespace zs::storage
