// PostgreSQL backend: connection and reconnection, migrations, the pipelined batch upsert, the
// select, error mapping.
#include "storage/postgres_store.h"

#include <libpq-fe.h>
#include <spdlog/spdlog.h>

#include <array>
#include <charconv>
#include <cstring>
#include <string_view>
#include <unordered_set>

#include "names/player_name.h"
#include "storage/schema.h"

namespace zs::storage {

namespace {

// pg_advisory_xact_lock key that serialises migrations between servers ("zschar").
constexpr int64_t kMigrationLockKey = 0x7a7363686172;
constexpr const char* kUpsertName = "zs_upsert_character";
constexpr const char* kSelectName = "zs_select_character";
constexpr int kUpsertParams = kUpsertParamCount;

Fault FaultOfState(std::string_view state) {
  if (state == "53100") return Fault::kFull;      // disk_full
  if (state == "25006") return Fault::kReadOnly;  // read_only_sql_transaction
  if (state == "40001" || state == "40P01" || state == "55P03") return Fault::kBusy;
  if (state.starts_with("08") || state.starts_with("57P")) return Fault::kConnection;
  if (state == "XX001" || state == "XX002") return Fault::kCorrupt;  // data/index corrupted
  return Fault::kOther;
}

std::string Trimmed(const char* text) {
  std::string s = text != nullptr ? text : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

template <typename T>
bool ParseNumber(const char* text, T* out) {
  const char* last = text + std::strlen(text);
  const auto [ptr, ec] = std::from_chars(text, last, *out);
  return ec == std::errc() && ptr == last;
}

std::string FormatDouble(double v) {
  std::array<char, 32> buf{};
  const auto [ptr, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  return ec == std::errc() ? std::string(buf.data(), ptr) : "NaN";
}

struct ConnCloser {
  void operator()(PGconn* c) const { PQfinish(c); }
};
struct ResultClearer {
  void operator()(PGresult* r) const { PQclear(r); }
};
using ConnPtr = std::unique_ptr<PGconn, ConnCloser>;
using ResultPtr = std::unique_ptr<PGresult, ResultClearer>;

// One record as the upsert's text parameters (reused row after row).
struct UpsertParams {
  std::array<std::string, kUpsertParams> text;
  std::array<const char*, kUpsertParams> values{};

  void Fill(const CharacterRecord& r) {
    const zone::PlayerSnapshot& p = r.state;
    text = {r.name,
            std::to_string(static_cast<int64_t>(r.account)),  // bit pattern: round trips
            std::to_string(p.zone),
            FormatDouble(p.position.x),
            FormatDouble(p.position.y),
            FormatDouble(p.facing),
            std::to_string(p.hp),
            p.alive ? "true" : "false",
            std::to_string(p.respawn_ms),
            EncodeCooldowns(p),
            std::to_string(r.saved_at_ms),
            names::LookAlikeKey(r.name)};
    for (size_t i = 0; i < text.size(); ++i) values[i] = text[i].c_str();
  }
};

class PostgresStore final : public CharacterStore {
 public:
  PostgresStore(std::string conninfo, std::string describe)
      : conninfo_(std::move(conninfo)), describe_(std::move(describe)) {}

  std::optional<StoreError> Connect();  // a session, migrations, prepared statements

  std::optional<StoreError> Load(const std::string& name,
                                 std::optional<CharacterRecord>* out) override;
  std::optional<StoreError> Save(std::span<const CharacterRecord> records) override;
  std::string Describe() const override { return describe_; }

 private:
  std::optional<StoreError> Reconnect();
  std::optional<StoreError> Ready();
  std::optional<StoreError> Prepare();
  std::optional<StoreError> MigrateStep(const SchemaStep& step, int step_version);
  std::optional<StoreError> FillNameKeys(const std::string& what);
  std::optional<StoreError> Exec(const std::string& sql, std::string_view what,
                                 ResultPtr* out = nullptr);
  std::optional<StoreError> SendBatch(std::span<const CharacterRecord> records);
  std::optional<StoreError> DrainPipeline();
  std::optional<StoreError> ReadRow(const PGresult* res, const std::string& name,
                                    CharacterRecord* r) const;
  StoreError Error(const PGresult* res, std::string_view what) const;
  void RollbackIfOpen();

  const std::string conninfo_;
  const std::string describe_;
  ConnPtr conn_;
  bool prepared_ = false;  // prepared statements live per session: lost with it
};

StoreError PostgresStore::Error(const PGresult* res, std::string_view what) const {
  const bool connected = conn_ && PQstatus(conn_.get()) == CONNECTION_OK;
  const char* state = res != nullptr ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  Fault fault = state != nullptr ? FaultOfState(state) : Fault::kOther;
  if (!connected) fault = Fault::kConnection;
  std::string detail = Trimmed(res != nullptr ? PQresultErrorMessage(res) : "");
  if (detail.empty() && conn_) detail = Trimmed(PQerrorMessage(conn_.get()));
  std::string message = describe_ + ": " + std::string(what) + " failed: " + detail;
  if (state != nullptr) message += " (SQLSTATE " + std::string(state) + ")";
  return StoreError{.fault = fault, .message = std::move(message)};
}

std::optional<StoreError> PostgresStore::Exec(const std::string& sql, std::string_view what,
                                              ResultPtr* out) {
  ResultPtr res(PQexec(conn_.get(), sql.c_str()));
  const ExecStatusType status = PQresultStatus(res.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) return Error(res.get(), what);
  if (out != nullptr) *out = std::move(res);
  return std::nullopt;
}

void PostgresStore::RollbackIfOpen() {
  if (conn_ && PQstatus(conn_.get()) == CONNECTION_OK &&
      PQtransactionStatus(conn_.get()) != PQTRANS_IDLE) {
    ResultPtr(PQexec(conn_.get(), "ROLLBACK"));
  }
}

// A new session: a fresh PGconn (rather than PQreset on the old one, which may have broken in
// the middle of a pipeline), notices silenced, statements to be prepared again.
std::optional<StoreError> PostgresStore::Reconnect() {
  prepared_ = false;
  // Defaults that keep a dead or unreachable server over TCP from holding the worker for the
  // kernel's ~15 minutes; the connection string, expanded after them, overrides any of them.
  static constexpr std::array<const char*, 7> kKeys = {"connect_timeout",
                                                       "keepalives_idle",
                                                       "keepalives_interval",
                                                       "keepalives_count",
                                                       "tcp_user_timeout",
                                                       "dbname",
                                                       nullptr};
  const std::array<const char*, 7> values = {"10",   "10", "5", "3", "30000", conninfo_.c_str(),
                                             nullptr};
  conn_.reset(PQconnectdbParams(kKeys.data(), values.data(), /*expand_dbname=*/1));
  if (!conn_ || PQstatus(conn_.get()) != CONNECTION_OK) {
    return StoreError{.fault = Fault::kConnection,
                      .message = "cannot connect to " + describe_ + ": " +
                                 Trimmed(conn_ ? PQerrorMessage(conn_.get()) : "out of memory")};
  }
  // Notices ("relation already exists, skipping") are not errors: no stderr noise.
  PQsetNoticeProcessor(
      conn_.get(), [](void*, const char*) {}, nullptr);
  return std::nullopt;
}

// The kFillNameKeys step: every character's look-alike key, computed here (ICU), set unless
// another character already holds it (then NULL: both stay, the later one unprotected).
std::optional<StoreError> PostgresStore::FillNameKeys(const std::string& what) {
  ResultPtr all;
  if (auto e = Exec(SelectNamesSql(), what + ": read the names", &all)) return e;
  const std::string fill = FillNameKeySql(Dialect::kPostgres);
  std::unordered_set<std::string> seen;  // keys given: a later look-alike keeps NULL
  for (int row = 0; row < PQntuples(all.get()); ++row) {
    const std::string name = PQgetvalue(all.get(), row, 0);
    const std::string key = names::LookAlikeKey(name);
    if (!seen.insert(key).second) continue;
    const std::array<const char*, 2> values = {key.c_str(), name.c_str()};
    ResultPtr res(
        PQexecParams(conn_.get(), fill.c_str(), 2, nullptr, values.data(), nullptr, nullptr, 0));
    if (PQresultStatus(res.get()) != PGRES_COMMAND_OK) {
      return Error(res.get(), std::string(what).append(": key of '").append(name).append("'"));
    }
  }
  return std::nullopt;
}

std::optional<StoreError> PostgresStore::Connect() {
  if (auto e = Reconnect()) return e;
  int step_version = 0;
  for (const SchemaStep& step : SchemaSteps()) {
    if (auto e = MigrateStep(step, ++step_version)) {
      RollbackIfOpen();
      return e;
    }
  }
  return Ready();
}

// One step in its own transaction, under an advisory lock held until it ends: reads the
// version, applies the step if the database is older, records it.
std::optional<StoreError> PostgresStore::MigrateStep(const SchemaStep& step, int step_version) {
  if (auto e = Exec("BEGIN", "begin migration")) return e;
  const std::string lock =
      "SELECT pg_advisory_xact_lock(" + std::to_string(kMigrationLockKey) + ")";
  if (auto e = Exec(lock, "take the migration lock")) return e;
  if (auto e = Exec("CREATE TABLE IF NOT EXISTS schema_version(version INTEGER NOT NULL)",
                    "create schema_version")) {
    return e;
  }
  ResultPtr res;
  if (auto e = Exec("SELECT coalesce(max(version), 0) FROM schema_version", "read schema version",
                    &res)) {
    return e;
  }
  int version = 0;
  if (!ParseNumber(PQgetvalue(res.get(), 0, 0), &version)) version = 0;
  if (version > PostgresSchemaVersion()) {
    return StoreError{.fault = Fault::kOther,
                      .message = describe_ + " has schema version " + std::to_string(version) +
                                 ", newer than this server knows (" +
                                 std::to_string(PostgresSchemaVersion()) +
                                 "): run a newer server or use another database"};
  }
  if (version < step_version) {
    const std::string what = "migration step " + std::to_string(step_version);
    if (auto e = step.kind == SchemaStep::Kind::kFillNameKeys
                     ? FillNameKeys(what)
                     : Exec(StepSql(step, Dialect::kPostgres), what)) {
      return e;
    }
    if (auto e = Exec("DELETE FROM schema_version", "record schema version")) return e;
    const std::string record =
        "INSERT INTO schema_version VALUES(" + std::to_string(step_version) + ")";
    if (auto e = Exec(record, "record schema version")) return e;
  }
  return Exec("COMMIT", "commit migration");
}

std::optional<StoreError> PostgresStore::Prepare() {
  ResultPtr upsert(PQprepare(conn_.get(), kUpsertName,
                             UpsertCharacterSql(Dialect::kPostgres).c_str(), kUpsertParams,
                             nullptr));
  if (PQresultStatus(upsert.get()) != PGRES_COMMAND_OK) {
    return Error(upsert.get(), "prepare the upsert");
  }
  ResultPtr select(PQprepare(conn_.get(), kSelectName,
                             SelectCharacterSql(Dialect::kPostgres).c_str(), 2, nullptr));
  if (PQresultStatus(select.get()) != PGRES_COMMAND_OK) {
    return Error(select.get(), "prepare the select");
  }
  prepared_ = true;
  return std::nullopt;
}

// Before each operation: a broken (or dropped) connection is made again, and the statements
// prepared again.
std::optional<StoreError> PostgresStore::Ready() {
  if (!conn_ || PQstatus(conn_.get()) != CONNECTION_OK) {
    if (auto e = Reconnect()) {
      e->message = describe_ + ": connection lost; " + e->message;
      return e;
    }
    spdlog::warn("storage: reconnected to {}", describe_);
  }
  if (!prepared_) return Prepare();
  return std::nullopt;
}

// BEGIN, one upsert per record, COMMIT and a sync point, sent without waiting: one round trip.
// libpq reads while it writes, so a large batch cannot deadlock on full socket buffers.
std::optional<StoreError> PostgresStore::SendBatch(std::span<const CharacterRecord> records) {
  PGconn* c = conn_.get();
  bool ok = PQsendQueryParams(c, "BEGIN", 0, nullptr, nullptr, nullptr, nullptr, 0) == 1;
  UpsertParams params;
  for (size_t i = 0; ok && i < records.size(); ++i) {
    params.Fill(records[i]);
    ok = PQsendQueryPrepared(c, kUpsertName, kUpsertParams, params.values.data(), nullptr, nullptr,
                             0) == 1;
  }
  ok = ok && PQsendQueryParams(c, "COMMIT", 0, nullptr, nullptr, nullptr, nullptr, 0) == 1;
  ok = ok && PQpipelineSync(c) == 1;
  if (!ok) return Error(nullptr, "send the batch");
  return std::nullopt;
}

// Reads every result up to the sync point; the first error is the answer (the server skipped
// the rest of the batch, and the transaction did not commit).
std::optional<StoreError> PostgresStore::DrainPipeline() {
  std::optional<StoreError> first;
  for (;;) {
    ResultPtr res(PQgetResult(conn_.get()));
    if (!res) {
      if (PQstatus(conn_.get()) != CONNECTION_OK) break;
      continue;  // the end of one query's results
    }
    const ExecStatusType status = PQresultStatus(res.get());
    if (status == PGRES_PIPELINE_SYNC) break;
    if (status == PGRES_FATAL_ERROR && !first) first = Error(res.get(), "save");
  }
  if (!first && PQstatus(conn_.get()) != CONNECTION_OK) first = Error(nullptr, "save");
  return first;
}

std::optional<StoreError> PostgresStore::Save(std::span<const CharacterRecord> records) {
  if (auto e = Ready()) return e;
  if (PQenterPipelineMode(conn_.get()) != 1) return Error(nullptr, "enter pipeline mode");
  std::optional<StoreError> error = SendBatch(records);
  if (error) {
    // Part of the batch may be on its way, with no sync point after it: the session is in an
    // unknown state. Drop it (the transaction never commits); the next operation reconnects.
    conn_.reset();
    return error;
  }
  error = DrainPipeline();
  if (PQexitPipelineMode(conn_.get()) != 1) {
    conn_.reset();  // still in a pipeline (the connection broke): start a clean session
  } else if (error) {
    RollbackIfOpen();
  }
  return error;
}

std::optional<StoreError> PostgresStore::ReadRow(const PGresult* res, const std::string& name,
                                                 CharacterRecord* r) const {
  zone::PlayerSnapshot& p = r->state;
  r->name = PQgetisnull(res, 0, kCharacterColumnCount - 1) != 0
                ? name
                : PQgetvalue(res, 0, kCharacterColumnCount - 1);
  int64_t account = 0;
  double x = 0;
  double y = 0;
  double facing = 0;
  bool ok = ParseNumber(PQgetvalue(res, 0, 0), &account);
  ok = ParseNumber(PQgetvalue(res, 0, 1), &p.zone) && ok;
  ok = ParseNumber(PQgetvalue(res, 0, 2), &x) && ParseNumber(PQgetvalue(res, 0, 3), &y) && ok;
  ok = ParseNumber(PQgetvalue(res, 0, 4), &facing) && ok;
  ok = ParseNumber(PQgetvalue(res, 0, 5), &p.hp) && ok;
  p.alive = std::string_view(PQgetvalue(res, 0, 6)) == "t";
  ok = ParseNumber(PQgetvalue(res, 0, 7), &p.respawn_ms) && ok;
  ok = DecodeCooldowns(PQgetvalue(res, 0, 8), &p) && ok;
  ok = ParseNumber(PQgetvalue(res, 0, 9), &r->saved_at_ms) && ok;
  r->account = static_cast<uint64_t>(account);
  p.position = {static_cast<float>(x), static_cast<float>(y)};
  p.facing = static_cast<float>(facing);
  if (!ok) {
    return StoreError{.fault = Fault::kCorrupt,
                      .message = describe_ + ": character '" + name + "' has a malformed row"};
  }
  return std::nullopt;
}

std::optional<StoreError> PostgresStore::Load(const std::string& name,
                                              std::optional<CharacterRecord>* out) {
  if (auto e = Ready()) return e;
  const std::string key = names::LookAlikeKey(name);
  const std::array<const char*, 2> values = {key.c_str(), name.c_str()};
  ResultPtr res(PQexecPrepared(conn_.get(), kSelectName, 2, values.data(), nullptr, nullptr, 0));
  if (PQresultStatus(res.get()) != PGRES_TUPLES_OK) {
    return Error(res.get(), "load character '" + name + "'");
  }
  if (PQntuples(res.get()) == 0) {
    out->reset();
    return std::nullopt;
  }
  CharacterRecord record;
  if (auto e = ReadRow(res.get(), name, &record)) return e;
  *out = std::move(record);
  return std::nullopt;
}

}  // namespace

int PostgresSchemaVersion() { return SchemaVersion(); }

std::string DescribePostgres(const std::string& conninfo) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &error);
  if (options == nullptr) {
    PQfreemem(error);
    return "postgres (unparsable connection string)";
  }
  std::string out = "postgres";
  for (const std::string_view key : {"host", "hostaddr", "port", "dbname", "user"}) {
    for (const PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
      if (key == o->keyword && o->val != nullptr && *o->val != '\0') {
        out.append(" ").append(key).append("=").append(o->val);  // (no temporaries: GCC 12
                                                                 // -O3 warns falsely on them)
      }
    }
  }
  PQconninfoFree(options);
  return out;
}

std::unique_ptr<CharacterStore> OpenPostgresStore(const std::string& conninfo) {
  std::string describe = DescribePostgres(conninfo);
  auto store = std::make_unique<PostgresStore>(conninfo, describe);
  if (auto e = store->Connect()) {
    throw StartupError("cannot use the character database " + describe + ": " + e->message);
  }
  return store;
}

}  // namespace zs::storage
