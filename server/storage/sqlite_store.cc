// SQLite backend: connection set-up, migrations, the upsert and the select, error mapping.
#include "storage/sqlite_store.h"

#include <spdlog/spdlog.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <string_view>
#include <system_error>
#include <unordered_set>
#include <vector>

#include "names/player_name.h"
#include "storage/schema.h"

namespace zs::storage {

namespace {

// Long enough to ride out a checkpoint or a backup step by another connection, short enough
// that a locked file shows up as an error (and a retry) well within one save interval.
constexpr int kBusyTimeoutMs = 200;
// A write that fails at a file size limit stops short of it by up to a WAL frame (a page and
// its header; pages are 4 KiB unless someone changed page_size): this close to it is "full".
constexpr uintmax_t kFileLimitSlack = 16 * 1024;

// An I/O error's errno says more than SQLite's code: a full disk, an immutable file.
Fault FaultOfErrno(int sys_errno) {
  switch (sys_errno) {
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
      return Fault::kFull;
    case EROFS:
    case EPERM:
    case EACCES:
      return Fault::kReadOnly;
    case ENOENT:
      return Fault::kMissing;
    default:
      return Fault::kOther;
  }
}

Fault FaultOf(int rc, int sys_errno) {
  switch (rc & 0xff) {  // the primary code of an extended result code
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Fault::kBusy;
    case SQLITE_READONLY:
    case SQLITE_PERM:
      return Fault::kReadOnly;
    case SQLITE_FULL:
      return Fault::kFull;
    case SQLITE_CANTOPEN:
      return Fault::kMissing;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return Fault::kCorrupt;
    case SQLITE_IOERR:
      return FaultOfErrno(sys_errno);
    default:
      return Fault::kOther;
  }
}

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct StmtFinalizer {
  void operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }
};
using DbPtr = std::unique_ptr<sqlite3, DbCloser>;
using StmtPtr = std::unique_ptr<sqlite3_stmt, StmtFinalizer>;

class SqliteStore final : public CharacterStore {
 public:
  explicit SqliteStore(std::filesystem::path file) : file_(std::move(file)) {}

  // Opens the file, sets the pragmas, checks it, migrates it and prepares the statements.
  std::optional<StoreError> Connect(int open_flags);

  std::optional<StoreError> Load(const std::string& name,
                                 std::optional<CharacterRecord>* out) override;
  std::optional<StoreError> Save(std::span<const CharacterRecord> records) override;
  std::string Describe() const override { return "sqlite " + file_.string(); }

 private:
  std::optional<StoreError> Ready();
  std::optional<StoreError> Configure();
  std::optional<StoreError> Migrate();
  std::optional<StoreError> MigrateStep(const SchemaStep& step, int step_version);
  std::optional<StoreError> FillNameKeys(const std::string& what);
  std::optional<StoreError> Prepare(const char* sql, std::string_view what, StmtPtr* out);
  std::optional<StoreError> Exec(const char* sql, std::string_view what);
  std::optional<StoreError> QueryText(const char* sql, std::string_view what, std::string* out);
  std::optional<StoreError> Upsert(const CharacterRecord& record);
  std::optional<StoreError> ReadRow(const std::string& name, CharacterRecord* record);
  StoreError Error(int rc, std::string_view what) const;
  Fault DiagnoseIoError(std::string* why) const;
  void Rollback();
  void Close();

  std::filesystem::path file_;
  DbPtr db_;  // declared before the statements: destroyed after them
  StmtPtr upsert_;
  StmtPtr select_;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
};

StoreError SqliteStore::Error(int rc, std::string_view what) const {
  const int sys_errno = db_ ? sqlite3_system_errno(db_.get()) : 0;
  const char* detail = db_ ? sqlite3_errmsg(db_.get()) : sqlite3_errstr(rc);
  std::string message = "sqlite database " + file_.string() + ": " + std::string(what) +
                        " failed: " + detail + " (code " + std::to_string(rc);
  if (sys_errno != 0) message += ", " + std::generic_category().message(sys_errno);
  message += ")";
  Fault fault = FaultOf(rc, sys_errno);
  if ((rc & 0xff) == SQLITE_IOERR && fault == Fault::kOther) fault = DiagnoseIoError(&message);
  return StoreError{.fault = fault, .message = std::move(message)};
}

// SQLite often reports an I/O error without its errno (later calls overwrite it): look at the
// files and the disk for the usual causes, so the fault (and the operator) gets told which.
Fault SqliteStore::DiagnoseIoError(std::string* why) const {
  const std::string dir = file_.parent_path().string();
  for (const std::string& path : {file_.string(), file_.string() + "-wal", dir}) {
    if (::access(path.c_str(), W_OK) != 0 && errno != ENOENT) {
      const int err = errno;
      *why += "; " + path + " is not writable: " + std::generic_category().message(err);
      return FaultOfErrno(err) == Fault::kOther ? Fault::kReadOnly : FaultOfErrno(err);
    }
  }
  struct statvfs vfs {};
  if (::statvfs(dir.c_str(), &vfs) == 0 && vfs.f_bavail == 0) {
    *why += "; no space left on the disk of " + dir;
    return Fault::kFull;
  }
  rlimit limit{};
  if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    for (const std::string& path : {file_.string() + "-wal", file_.string()}) {
      std::error_code ec;
      const uintmax_t size = std::filesystem::file_size(path, ec);
      if (!ec && size + kFileLimitSlack >= limit.rlim_cur) {
        *why += "; " + path + " reached the process's file size limit (RLIMIT_FSIZE, " +
                std::to_string(limit.rlim_cur) + " bytes)";
        return Fault::kFull;
      }
    }
  }
  return Fault::kOther;
}

std::optional<StoreError> SqliteStore::Exec(const char* sql, std::string_view what) {
  const int rc = sqlite3_exec(db_.get(), sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return Error(rc, what);
  return std::nullopt;
}

// The first column of the first row of `sql` (empty when there is no row).
std::optional<StoreError> SqliteStore::QueryText(const char* sql, std::string_view what,
                                                 std::string* out) {
  StmtPtr stmt;
  if (auto e = Prepare(sql, what, &stmt)) return e;
  const int rc = sqlite3_step(stmt.get());
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return Error(rc, what);
  const unsigned char* text = rc == SQLITE_ROW ? sqlite3_column_text(stmt.get(), 0) : nullptr;
  out->assign(text != nullptr ? reinterpret_cast<const char*>(text) : "");
  return std::nullopt;
}

std::optional<StoreError> SqliteStore::Prepare(const char* sql, std::string_view what,
                                               StmtPtr* out) {
  sqlite3_stmt* raw = nullptr;
  const int rc = sqlite3_prepare_v3(db_.get(), sql, -1, SQLITE_PREPARE_PERSISTENT, &raw, nullptr);
  out->reset(raw);
  if (rc != SQLITE_OK) return Error(rc, what);
  return std::nullopt;
}

void SqliteStore::Rollback() {
  if (db_ && sqlite3_get_autocommit(db_.get()) == 0) {
    sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
  }
}

void SqliteStore::Close() {
  upsert_.reset();
  select_.reset();
  db_.reset();
}

std::optional<StoreError> SqliteStore::Connect(int open_flags) {
  Close();
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(file_.c_str(), &raw, open_flags, nullptr);
  db_.reset(raw);  // a handle comes back even on failure, and must be closed
  if (rc != SQLITE_OK) {
    StoreError e = Error(rc, "open");
    Close();
    return e;
  }
  sqlite3_extended_result_codes(db_.get(), 1);
  sqlite3_busy_timeout(db_.get(), kBusyTimeoutMs);
  std::optional<StoreError> e = Configure();
  if (!e) e = Migrate();
  if (!e) e = Prepare(UpsertCharacterSql(Dialect::kSqlite).c_str(), "prepare the upsert", &upsert_);
  if (!e) e = Prepare(SelectCharacterSql(Dialect::kSqlite).c_str(), "prepare the select", &select_);
  struct stat st {};
  if (!e && ::stat(file_.c_str(), &st) != 0) {
    e = StoreError{.fault = Fault::kMissing,
                   .message = "database file " + file_.string() + " vanished while opening it"};
  }
  if (e) {
    Close();
    return e;
  }
  dev_ = st.st_dev;
  ino_ = st.st_ino;
  return std::nullopt;
}

// WAL mode and its synchronous level (see the header), then an integrity check: the first
// statement that reads the file is where a non-database or damaged file shows.
std::optional<StoreError> SqliteStore::Configure() {
  std::string mode;
  if (auto e = QueryText("PRAGMA journal_mode=WAL", "set WAL mode", &mode)) return e;
  if (mode != "wal") {
    return StoreError{.fault = Fault::kOther,
                      .message = "sqlite database " + file_.string() +
                                 ": cannot use WAL mode (journal_mode is '" + mode + "')"};
  }
  if (auto e = Exec("PRAGMA synchronous=NORMAL", "set synchronous=NORMAL")) return e;
  std::string check;
  if (auto e = QueryText("PRAGMA quick_check", "integrity check", &check)) return e;
  if (check != "ok") {
    return StoreError{.fault = Fault::kCorrupt,
                      .message = "sqlite database " + file_.string() + " is corrupt: " + check};
  }
  return std::nullopt;
}

// The kFillNameKeys step: every character's look-alike key, computed here (ICU), set unless
// another character already holds it (then NULL: both stay, the later one unprotected).
std::optional<StoreError> SqliteStore::FillNameKeys(const std::string& what) {
  std::vector<std::string> all;
  StmtPtr names;
  if (auto e = Prepare(SelectNamesSql().c_str(), what, &names)) return e;
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(names.get())) == SQLITE_ROW) {
    all.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(names.get(), 0)));
  }
  if (rc != SQLITE_DONE) return Error(rc, what + ": read the names");
  StmtPtr fill;
  if (auto e = Prepare(FillNameKeySql(Dialect::kSqlite).c_str(), what, &fill)) return e;
  std::unordered_set<std::string> seen;  // keys given: a later look-alike keeps NULL
  for (const std::string& name : all) {
    const std::string key = names::LookAlikeKey(name);
    if (!seen.insert(key).second) continue;
    sqlite3_bind_text(fill.get(), 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
    sqlite3_bind_text(fill.get(), 2, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
    rc = sqlite3_step(fill.get());
    sqlite3_reset(fill.get());
    if (rc != SQLITE_DONE)
      return Error(rc, std::string(what).append(": key of '").append(name).append("'"));
  }
  return std::nullopt;
}

std::optional<StoreError> SqliteStore::Migrate() {
  int step_version = 0;
  for (const SchemaStep& step : SchemaSteps()) {
    if (auto e = MigrateStep(step, ++step_version)) {
      Rollback();
      return e;
    }
  }
  return std::nullopt;
}

// One step in its own transaction: reads the version under the write lock (another server
// starting on the same file waits), applies the step if the file is older, records it.
std::optional<StoreError> SqliteStore::MigrateStep(const SchemaStep& step, int step_version) {
  if (auto e = Exec("BEGIN IMMEDIATE", "begin migration")) return e;
  if (auto e = Exec("CREATE TABLE IF NOT EXISTS schema_version(version INTEGER NOT NULL)",
                    "create schema_version")) {
    return e;
  }
  std::string text;
  if (auto e = QueryText("SELECT max(version) FROM schema_version", "read schema version", &text)) {
    return e;
  }
  const int version = text.empty() ? 0 : std::stoi(text);
  if (version > SqliteSchemaVersion()) {
    return StoreError{.fault = Fault::kOther,
                      .message = "sqlite database " + file_.string() + " has schema version " +
                                 std::to_string(version) + ", newer than this server knows (" +
                                 std::to_string(SqliteSchemaVersion()) +
                                 "): run a newer server or use another file"};
  }
  if (version < step_version) {
    const std::string what = "migration step " + std::to_string(step_version);
    const std::string sql = StepSql(step, Dialect::kSqlite);
    if (auto e = step.kind == SchemaStep::Kind::kFillNameKeys ? FillNameKeys(what)
                                                              : Exec(sql.c_str(), what)) {
      return e;
    }
    const std::string record = "DELETE FROM schema_version; INSERT INTO schema_version VALUES(" +
                               std::to_string(step_version) + ")";
    if (auto e = Exec(record.c_str(), "record schema version")) return e;
  }
  return Exec("COMMIT", "commit migration");
}

// Before each transaction: the file must still be the one we opened (see the header).
std::optional<StoreError> SqliteStore::Ready() {
  struct stat st {};
  if (::stat(file_.c_str(), &st) != 0) {
    const int err = errno;
    return StoreError{.fault = err == ENOENT ? Fault::kMissing : FaultOfErrno(err),
                      .message = "database file " + file_.string() + " is missing (" +
                                 std::generic_category().message(err) +
                                 "); not creating a new one: restore it"};
  }
  if (!db_) return Connect(SQLITE_OPEN_READWRITE);  // the last attempt to reopen failed
  if (st.st_dev == dev_ && st.st_ino == ino_) return std::nullopt;
  spdlog::warn(
      "storage: database file {} is another file than the one opened (restored?): "
      "opening it",
      file_.string());
  // The -wal beside the path holds pages of the file we had open: move them into that file
  // (wherever it went) and empty the -wal, or SQLite would replay them onto the new one.
  const int rc =
      sqlite3_wal_checkpoint_v2(db_.get(), nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
  if (rc != SQLITE_OK) return Error(rc, "checkpoint the replaced file before reopening");
  return Connect(SQLITE_OPEN_READWRITE);
}

std::optional<StoreError> SqliteStore::Upsert(const CharacterRecord& r) {
  sqlite3_stmt* s = upsert_.get();
  const zone::PlayerSnapshot& p = r.state;
  const std::string cooldowns = EncodeCooldowns(p);
  sqlite3_bind_text(s, 1, r.name.data(), static_cast<int>(r.name.size()), SQLITE_STATIC);
  sqlite3_bind_int64(s, 2, static_cast<sqlite3_int64>(r.account));  // bit pattern: round trips
  sqlite3_bind_int64(s, 3, p.zone);
  sqlite3_bind_double(s, 4, p.position.x);
  sqlite3_bind_double(s, 5, p.position.y);
  sqlite3_bind_double(s, 6, p.facing);
  sqlite3_bind_int64(s, 7, p.hp);
  sqlite3_bind_int(s, 8, p.alive ? 1 : 0);
  sqlite3_bind_int64(s, 9, p.respawn_ms);
  sqlite3_bind_text(s, 10, cooldowns.data(), static_cast<int>(cooldowns.size()), SQLITE_STATIC);
  sqlite3_bind_int64(s, 11, r.saved_at_ms);
  const std::string key = names::LookAlikeKey(r.name);
  sqlite3_bind_text(s, kUpsertParamCount, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
  const int rc = sqlite3_step(s);
  std::optional<StoreError> e;
  if (rc != SQLITE_DONE) e = Error(rc, "save character '" + r.name + "'");
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  return e;
}

std::optional<StoreError> SqliteStore::Save(std::span<const CharacterRecord> records) {
  if (auto e = Ready()) return e;
  if (auto e = Exec("BEGIN IMMEDIATE", "begin")) return e;
  for (const CharacterRecord& r : records) {
    if (auto e = Upsert(r)) {
      Rollback();
      return e;
    }
  }
  if (auto e = Exec("COMMIT", "commit")) {
    Rollback();
    return e;
  }
  return std::nullopt;
}

std::optional<StoreError> SqliteStore::ReadRow(const std::string& name, CharacterRecord* r) {
  sqlite3_stmt* s = select_.get();
  zone::PlayerSnapshot& p = r->state;
  const unsigned char* stored = sqlite3_column_text(s, kCharacterColumnCount - 1);
  r->name = stored != nullptr ? reinterpret_cast<const char*>(stored) : name;
  r->account = static_cast<uint64_t>(sqlite3_column_int64(s, 0));
  p.zone = static_cast<uint32_t>(sqlite3_column_int64(s, 1));
  p.position = {static_cast<float>(sqlite3_column_double(s, 2)),
                static_cast<float>(sqlite3_column_double(s, 3))};
  p.facing = static_cast<float>(sqlite3_column_double(s, 4));
  p.hp = static_cast<int32_t>(sqlite3_column_int64(s, 5));
  p.alive = sqlite3_column_int(s, 6) != 0;
  p.respawn_ms = static_cast<uint32_t>(sqlite3_column_int64(s, 7));
  const unsigned char* text = sqlite3_column_text(s, 8);
  const std::string_view cooldowns = text != nullptr ? reinterpret_cast<const char*>(text) : "";
  r->saved_at_ms = sqlite3_column_int64(s, 9);
  if (!DecodeCooldowns(cooldowns, &p)) {
    return StoreError{.fault = Fault::kCorrupt,
                      .message = "sqlite database " + file_.string() + ": character '" + name +
                                 "' has malformed cooldowns '" + std::string(cooldowns) + "'"};
  }
  return std::nullopt;
}

std::optional<StoreError> SqliteStore::Load(const std::string& name,
                                            std::optional<CharacterRecord>* out) {
  if (auto e = Ready()) return e;
  sqlite3_stmt* s = select_.get();
  const std::string key = names::LookAlikeKey(name);
  sqlite3_bind_text(s, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
  sqlite3_bind_text(s, 2, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
  const int rc = sqlite3_step(s);
  std::optional<StoreError> e;
  CharacterRecord record;
  if (rc == SQLITE_ROW) {
    e = ReadRow(name, &record);
  } else if (rc != SQLITE_DONE) {
    e = Error(rc, "load character '" + name + "'");
  }
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  if (e) return e;
  if (rc == SQLITE_ROW) {
    *out = std::move(record);
  } else {
    out->reset();
  }
  return std::nullopt;
}

}  // namespace

int SqliteSchemaVersion() { return SchemaVersion(); }

std::unique_ptr<CharacterStore> OpenSqliteStore(const std::filesystem::path& file) {
  std::error_code ec;
  const std::filesystem::path path = std::filesystem::absolute(file, ec);
  if (ec || path.filename().empty()) {
    throw StartupError("character database '" + file.string() + "': not a usable file path");
  }
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) {
    throw StartupError("cannot create directory " + path.parent_path().string() +
                       " for the character database " + path.string() + ": " + ec.message());
  }
  const bool existed = std::filesystem::exists(path, ec);
  if (!existed && std::filesystem::exists(path.string() + "-wal", ec)) {
    throw StartupError("the character database " + path.string() + " is missing but its " +
                       path.string() + "-wal is there: restore the file, or move the -wal away " +
                       "to start with an empty database");
  }
  auto store = std::make_unique<SqliteStore>(path);
  if (auto e = store->Connect(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) {
    throw StartupError("cannot use the character database " + path.string() + ": " + e->message);
  }
  if (!existed) spdlog::info("storage: created the character database {}", path.string());
  return store;
}

}  // namespace zs::storage
