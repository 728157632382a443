// The two store backends as test fixtures with the same shape, for typed tests: Open() a store,
// and Exec()/Scalar() SQL over a connection of the test's own (not the store's).
#pragma once

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "storage/postgres_store.h"
#include "storage/sqlite_store.h"
#include "storage/storage_test_util.h"  // tests/storage
#include "storage/storage_worker.h"
#include "support/postgres_server.h"

namespace zs::storage::test {

// A worker that retries a failing backend quickly (20 ms to 100 ms), for the fault tests.
inline constexpr WorkerOptions kRetry{.max_unsaved = 50000,
                                      .max_pending_loads = 10000,
                                      .retry_min_seconds = 0.02,
                                      .retry_max_seconds = 0.1};

// SQL run by the test over its own sqlite3 connection.
class SqliteConnection {
 public:
  explicit SqliteConnection(const std::filesystem::path& file) {
    if (sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
      throw std::runtime_error("test cannot open " + file.string());
    }
    sqlite3_busy_timeout(db_, 2000);
  }
  ~SqliteConnection() { sqlite3_close_v2(db_); }
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  void Exec(const std::string& sql) {
    char* error = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      const std::string message = error != nullptr ? error : "?";
      sqlite3_free(error);
      throw std::runtime_error("test SQL failed: " + sql + ": " + message);
    }
  }
  std::string Scalar(const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
      throw std::runtime_error("test SQL failed: " + sql + ": " + sqlite3_errmsg(db_));
    }
    std::string out;
    if (sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0) != nullptr) {
      out = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    }
    sqlite3_finalize(stmt);
    return out;
  }

 private:
  sqlite3* db_ = nullptr;
};

class SqliteBackend {
 public:
  static constexpr bool kPostgres = false;
  std::unique_ptr<CharacterStore> Open() { return OpenSqliteStore(file()); }
  std::filesystem::path file() const { return dir_.path() / "characters.db"; }
  std::string where() const { return file().string(); }  // what messages must name
  void Exec(const std::string& sql) { SqliteConnection(file()).Exec(sql); }
  std::string Scalar(const std::string& sql) { return SqliteConnection(file()).Scalar(sql); }
  static std::string AddPoisonTrigger() {
    return "CREATE TRIGGER poison BEFORE INSERT ON characters WHEN NEW.name = 'poison' "
           "BEGIN SELECT RAISE(ABORT, 'poisoned row'); END";
  }
  static std::string DropPoisonTrigger() { return "DROP TRIGGER poison"; }

 private:
  TempDir dir_;
};

class PostgresBackend {
 public:
  static constexpr bool kPostgres = true;
  std::unique_ptr<CharacterStore> Open() { return OpenPostgresStore(server_.conninfo()); }
  std::string where() const { return server_.dir(); }
  zs::test::PostgresServer& server() { return server_; }
  void Exec(const std::string& sql) { Query(sql); }
  std::string Scalar(const std::string& sql) { return Query(sql); }
  static std::string AddPoisonTrigger() {
    return "CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.name = "
           "'poison' THEN RAISE EXCEPTION 'poisoned row'; END IF; RETURN NEW; END $$; "
           "CREATE TRIGGER poison BEFORE INSERT ON characters FOR EACH ROW EXECUTE FUNCTION "
           "poison()";
  }
  static std::string DropPoisonTrigger() { return "DROP TRIGGER poison ON characters"; }

 private:
  std::string Query(const std::string& sql) {
    PGconn* conn = PQconnectdb(server_.conninfo().c_str());
    PGresult* res = PQexec(conn, sql.c_str());
    const ExecStatusType status = PQresultStatus(res);
    std::string out;
    if (status == PGRES_TUPLES_OK && PQntuples(res) > 0) out = PQgetvalue(res, 0, 0);
    const std::string error = PQerrorMessage(conn);
    PQclear(res);
    PQfinish(conn);
    if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
      throw std::runtime_error("test SQL failed: " + sql + ": " + error);
    }
    return out;
  }

  zs::test::PostgresServer server_;
};

}  // namespace zs::storage::test
