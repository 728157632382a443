// CharacterStore contract, typed over both backends: SQLite files and a real PostgreSQL server.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "storage/backends.h"

namespace zs::storage::test {
namespace {

template <typename Backend>
class StoreTest : public ::testing::Test {
 protected:
  std::optional<CharacterRecord> MustLoad(CharacterStore& store, const std::string& name) {
    std::optional<CharacterRecord> out;
    const std::optional<StoreError> error = store.Load(name, &out);
    EXPECT_FALSE(error) << error->message;
    return out;
  }
  Backend backend_;
};

using Backends = ::testing::Types<SqliteBackend, PostgresBackend>;
class BackendNames {
 public:
  template <typename T>
  static std::string GetName(int) {
    return T::kPostgres ? "Postgres" : "Sqlite";
  }
};
TYPED_TEST_SUITE(StoreTest, Backends, BackendNames);

TYPED_TEST(StoreTest, RoundTripsEveryField) {
  auto store = this->backend_.Open();
  CharacterRecord a = MakeRecord("Alice", 4);            // 4 cooldowns
  a.account = std::numeric_limits<uint64_t>::max() - 7;  // above INT64_MAX: kept as a bit pattern
  a.state.position = {-12345.678f, 3.4028e38f};
  a.state.facing = -0.0001f;
  a.state.hp = -3;
  a.state.alive = false;
  a.state.respawn_ms = std::numeric_limits<uint32_t>::max();
  a.state.cooldowns[3].remaining_ms = std::numeric_limits<uint32_t>::max();
  CharacterRecord b = MakeRecord("Bob", 5);  // no cooldowns, alive
  ASSERT_EQ(b.state.num_cooldowns, 0u);
  const std::vector<CharacterRecord> records = {a, b};
  const std::optional<StoreError> error = store->Save(records);
  ASSERT_FALSE(error) << error->message;
  EXPECT_EQ(this->MustLoad(*store, "Alice"), a);
  EXPECT_EQ(this->MustLoad(*store, "Bob"), b);
  // And from a fresh connection: nothing came from a cache.
  store.reset();
  auto again = this->backend_.Open();
  EXPECT_EQ(this->MustLoad(*again, "Alice"), a);
}

TYPED_TEST(StoreTest, UnknownNameIsNotFound) {
  auto store = this->backend_.Open();
  std::optional<CharacterRecord> out = MakeRecord("stale", 1);
  const std::optional<StoreError> error = store->Load("nobody", &out);
  ASSERT_FALSE(error) << error->message;
  EXPECT_FALSE(out.has_value());
}

TYPED_TEST(StoreTest, SaveReplacesByName) {
  auto store = this->backend_.Open();
  const std::vector<CharacterRecord> first = {MakeRecord("Carol", 1), MakeRecord("Dave", 2)};
  ASSERT_FALSE(store->Save(first));
  const std::vector<CharacterRecord> second = {MakeRecord("Carol", 9)};
  ASSERT_FALSE(store->Save(second));
  EXPECT_EQ(this->MustLoad(*store, "Carol"), MakeRecord("Carol", 9));
  EXPECT_EQ(this->MustLoad(*store, "Dave"), MakeRecord("Dave", 2));
  EXPECT_EQ(this->backend_.Scalar("SELECT count(*) FROM characters"), "2");
}

// All or nothing: a batch whose last row fails (a trigger refuses it) leaves no row behind;
// without the trigger the same 5,000 rows land together.
TYPED_TEST(StoreTest, BatchOf5000IsOneTransaction) {
  auto store = this->backend_.Open();
  std::vector<CharacterRecord> batch;
  for (uint32_t i = 0; i < 4999; ++i) batch.push_back(MakeRecord("c" + std::to_string(i), i));
  batch.push_back(MakeRecord("poison", 1));
  this->backend_.Exec(TypeParam::AddPoisonTrigger());
  const std::optional<StoreError> error = store->Save(batch);
  ASSERT_TRUE(error);
  EXPECT_NE(error->message.find("poisoned row"), std::string::npos) << error->message;
  EXPECT_EQ(this->backend_.Scalar("SELECT count(*) FROM characters"), "0");
  this->backend_.Exec(TypeParam::DropPoisonTrigger());
  const std::optional<StoreError> retry = store->Save(batch);
  ASSERT_FALSE(retry) << retry->message;
  EXPECT_EQ(this->backend_.Scalar("SELECT count(*) FROM characters"), "5000");
  EXPECT_EQ(this->MustLoad(*store, "c4998"), MakeRecord("c4998", 4998));
  if constexpr (TypeParam::kPostgres) {  // every row written by one transaction id
    EXPECT_EQ(this->backend_.Scalar("SELECT count(DISTINCT xmin::text) FROM characters"), "1");
  }
}

TYPED_TEST(StoreTest, FreshDatabaseGetsTheCurrentSchemaVersion) {
  auto store = this->backend_.Open();
  const int expected = TypeParam::kPostgres ? PostgresSchemaVersion() : SqliteSchemaVersion();
  EXPECT_EQ(this->backend_.Scalar("SELECT max(version) FROM schema_version"),
            std::to_string(expected));
  EXPECT_EQ(this->backend_.Scalar("SELECT count(*) FROM schema_version"), "1");
}

TYPED_TEST(StoreTest, ReopeningKeepsRowsAndVersion) {
  const std::vector<CharacterRecord> rows = {MakeRecord("Erin", 3), MakeRecord("Frank", 4)};
  ASSERT_FALSE(this->backend_.Open()->Save(rows));
  const std::string version = this->backend_.Scalar("SELECT max(version) FROM schema_version");
  auto store = this->backend_.Open();
  EXPECT_EQ(this->MustLoad(*store, "Erin"), rows[0]);
  EXPECT_EQ(this->MustLoad(*store, "Frank"), rows[1]);
  EXPECT_EQ(this->backend_.Scalar("SELECT max(version) FROM schema_version"), version);
}

// A database left by a server of schema version 1 (before the account index): opening it
// applies the missing step, keeps the rows and records the current version.
// A database of schema version 1 (no account index, no look-alike keys) is brought up to date:
// its rows stay, each gets its look-alike key (two stored look-alikes: the first keeps the key,
// the other stays loadable by its exact name), and the keys are unique from then on.
TYPED_TEST(StoreTest, AnOlderSchemaIsMigratedOnStartKeepingItsRows) {
  const std::vector<CharacterRecord> rows = {MakeRecord("Gwen", 5), MakeRecord("Hal", 6),
                                             MakeRecord("observer", 7), MakeRecord("0bserver", 8)};
  ASSERT_FALSE(this->backend_.Open()->Save(rows));
  this->backend_.Exec("DROP INDEX characters_name_key");
  this->backend_.Exec("ALTER TABLE characters DROP COLUMN name_key");
  this->backend_.Exec("DROP INDEX characters_account");
  this->backend_.Exec("UPDATE schema_version SET version = 1");
  const auto index_count = [](const char* index) {
    return std::string(
               TypeParam::kPostgres
                   ? "SELECT count(*) FROM pg_indexes WHERE indexname = '"
                   : "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = '") +
           index + "'";
  };
  ASSERT_EQ(this->backend_.Scalar(index_count("characters_account")), "0");
  auto store = this->backend_.Open();
  const int expected = TypeParam::kPostgres ? PostgresSchemaVersion() : SqliteSchemaVersion();
  EXPECT_EQ(this->backend_.Scalar("SELECT max(version) FROM schema_version"),
            std::to_string(expected));
  EXPECT_EQ(this->backend_.Scalar(index_count("characters_account")), "1") << "step 2 applied";
  EXPECT_EQ(this->backend_.Scalar(index_count("characters_name_key")), "1") << "step 5 applied";
  EXPECT_EQ(this->backend_.Scalar("SELECT count(name_key) FROM characters"), "3")
      << "every key filled in but the second look-alike's";
  for (const CharacterRecord& r : rows) EXPECT_EQ(this->MustLoad(*store, r.name), r);
}

// Names are unique by their look: loading a look-alike of a stored character finds that
// character (the caller refuses the login); saving a look-alike anyway (two servers created
// both) keeps it, without its key, and never fails the batch.
TYPED_TEST(StoreTest, ALookAlikeOfAStoredCharacterFindsIt) {
  auto store = this->backend_.Open();
  ASSERT_FALSE(store->Save(std::vector{MakeRecord("observer", 3)}));
  EXPECT_EQ(this->MustLoad(*store, "0bserver").value_or(CharacterRecord{}).name, "observer");
  EXPECT_EQ(this->MustLoad(*store, "OBSERVER").value_or(CharacterRecord{}).name, "observer");
  const std::vector<CharacterRecord> both = {MakeRecord("Observer", 4), MakeRecord("Ann", 5)};
  ASSERT_FALSE(store->Save(both)) << "a look-alike saved anyway does not fail the batch";
  EXPECT_EQ(this->MustLoad(*store, "Observer"), both[0]) << "its exact name still finds it";
  EXPECT_EQ(this->MustLoad(*store, "Ann"), both[1]);
  EXPECT_EQ(this->backend_.Scalar("SELECT count(*) FROM characters WHERE name_key IS NULL"), "1");
}

TYPED_TEST(StoreTest, NewerSchemaRefusesToStart) {
  this->backend_.Open().reset();
  this->backend_.Exec("UPDATE schema_version SET version = 99");
  try {
    this->backend_.Open();
    FAIL() << "opened a database of a newer schema";
  } catch (const StartupError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("schema version 99, newer than this server knows"), std::string::npos)
        << what;
    EXPECT_NE(what.find(this->backend_.where()), std::string::npos) << what;
  }
}

TYPED_TEST(StoreTest, DescribeNamesTheDatabase) {
  auto store = this->backend_.Open();
  const std::string describe = store->Describe();
  EXPECT_EQ(describe.rfind(TypeParam::kPostgres ? "postgres " : "sqlite /", 0), 0u) << describe;
  EXPECT_NE(describe.find(this->backend_.where()), std::string::npos) << describe;
}

}  // namespace
}  // namespace zs::storage::test
