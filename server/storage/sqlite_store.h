// SQLite backend of CharacterStore: one file, created on first run, in WAL mode.
//
// Why the C API (sqlite3.h): it is small, packaged by Debian (libsqlite3-0), and we need two
// prepared statements; a wrapper would add a dependency and hide the error codes we map to
// Faults.
//
// Durability: journal_mode=WAL with synchronous=NORMAL. A commit is durable against a crash or
// kill -9 of the process (the WAL is in the OS's page cache); only a power loss or kernel crash
// may lose the last commits, never corrupt the file. That is the failure that matters for a
// game server, and it keeps a checkpoint of thousands of characters free of fsyncs.
//
// The file is created only at start-up. Before every transaction the store stat()s the path:
//   - missing (deleted or moved away mid-run): Fault::kMissing, and no new empty file is created
//     (that would later hand out fresh characters over existing ones);
//   - another inode (restored from a backup, copied back): the store checkpoints what it wrote
//     into the file it had open (wherever that went) and empties the -wal, so that none of the
//     old file's pages are replayed onto the new one; then it opens the file it finds (migrating
//     it if older). A restored backup must be whole by itself (sqlite3's .backup, VACUUM INTO,
//     or a copy taken after a checkpoint): what was saved after it is gone, as with any backup.
// At start-up, a missing file with a -wal beside it is a StartupError (SQLite would replay that
// -wal onto the new empty file).
//
// Schema: `schema_version(version)` and `characters(name TEXT PRIMARY KEY, account, zone, x, y,
// facing, hp, alive, respawn_ms, cooldowns, saved_at_ms)` with an index on account. Migrations
// are an ordered list of SQL steps, each applied in its own transaction with the version it
// reaches; a file whose version is newer than the list stops start-up.
//
// Threads: like every CharacterStore, one thread at a time.
#pragma once

#include <filesystem>
#include <memory>

#include "storage/character_store.h"

namespace zs::storage {

// Opens (creating the parent directory and the file on first run) and migrates the database.
// Throws StartupError naming the file: a directory that cannot be created, a file that cannot
// be opened, is not a database or is corrupt (PRAGMA quick_check), or a schema version newer
// than SqliteSchemaVersion().
std::unique_ptr<CharacterStore> OpenSqliteStore(const std::filesystem::path& file);

// The schema version this server writes (the number of migration steps).
int SqliteSchemaVersion();

}  // namespace zs::storage
