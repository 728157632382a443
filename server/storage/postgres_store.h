// PostgreSQL backend of CharacterStore: one connection, the same schema as SQLite's in PG types.
//
// Why the C API (libpq-fe.h): it is small, packaged by Debian (libpq5), and it has what a batch
// save needs (prepared statements and pipeline mode, so a 5,000-row save is one round trip
// inside one transaction); a C++ wrapper would add a dependency for two statements.
//
// Connection: `conninfo` is libpq's ("host=/run/postgresql dbname=zone user=zone", or a URI).
// When the connection breaks (a server restart, a network cut) the next operation connects again
// first (a fresh PGconn, not PQreset: a session that broke mid-pipeline may keep its pipeline
// state), re-prepares the statements, and reports Fault::kConnection while the server cannot be
// reached. Describe() lists host, port, dbname and user, never the password.
//
// Schema: `schema_version(version)` and `characters(name TEXT PRIMARY KEY, account BIGINT, zone
// BIGINT, x, y, facing DOUBLE PRECISION, hp INTEGER, alive BOOLEAN, respawn_ms BIGINT, cooldowns
// TEXT, saved_at_ms BIGINT)` with an index on account. Migrations run at start, each step in its
// own transaction under pg_advisory_xact_lock, so servers starting together migrate once.
//
// Threads: like every CharacterStore, one thread at a time.
#pragma once

#include <memory>
#include <string>

#include "storage/character_store.h"

namespace zs::storage {

// Connects and migrates. Throws StartupError naming the server: cannot connect, a schema
// version newer than PostgresSchemaVersion(), a failed migration.
std::unique_ptr<CharacterStore> OpenPostgresStore(const std::string& conninfo);

// The schema version this server writes (the number of migration steps).
int PostgresSchemaVersion();

// "postgres host=... port=... dbname=... user=..." from a conninfo, without the password.
std::string DescribePostgres(const std::string& conninfo);

}  // namespace zs::storage
