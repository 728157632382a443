// ZoneDirectory: which zone_server hosts which zone, kept in a NATS JetStream key-value bucket.
//
// What it is for: many zone_server processes host the zones of one world. Each claims its zones
// at start-up and keeps its claims alive; anyone may look up a zone's owner (to hand a player
// over, or to tell a client where to connect). The bucket is kZoneBucket ("zs_zones"), key =
// the zone id in decimal, value = a serialized zs.cluster.v1.ZoneOwner (proto/cluster.proto).
//
// Liveness: the bucket keeps one revision per key (history 1) for at most ttl_seconds (the
// stream's max age). The owner re-puts each entry every ttl/3; an owner that dies stops doing
// so, and its entries expire within ttl_seconds (plus the server's expiry check), after which
// another node may claim the zone. Release() at graceful shutdown deletes them at once.
//
// Storage: file by default. The bucket and its entries then survive a restart of nats-server,
// so for the seconds after one every zone still has its owner (with memory storage the bucket
// would be gone: every lookup fails and every claim is lost until the owners put them back).
// The cost is a disk write per heartbeat: zones / (ttl/3) small writes a second, nothing.
//
// Claims are atomic: a claim is kvStore_Create, which fails when the key exists, so two nodes
// racing for a zone cannot both win. A key held by the SAME node name (this node restarting
// after a crash, before its old entry expired) is taken over with a compare-and-set update.
// Heartbeats are compare-and-set too (kvStore_Update on the last revision): if another node
// took the zone meanwhile (after an outage longer than the ttl), the heartbeat does not
// overwrite it; it logs an error and calls `on_lost` (the owner of the process decides what
// to do: stop serving that zone, or exit).
//
// Ownership: borrows the NatsBus (must outlive the directory). Owns the heartbeat thread.
//
// Threads: every public method is thread-safe. Claim and Release are meant for start-up and
// shutdown; Lookup may be called from any thread at any time (it blocks up to the bus's
// jetstream_timeout_ms: never on the tick thread). `on_lost` runs on the heartbeat thread and
// must not call Claim or Release.
//
// Errors: the constructor throws DirectoryError (start-up: no bucket, no directory). Claim,
// Lookup and the heartbeat return or log errors as values, with the zone, node and NATS error.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cluster/cluster_protocol.h"
#include "cluster/nats_bus.h"
#include "zone/cells.h"

namespace zs::cluster {

// Who hosts a zone (the directory's value; zs.cluster.v1.ZoneOwner).
struct ZoneOwner {
  std::string node;        // the zone_server's node name, unique in the world
  std::string address;     // "host:port" clients connect to
  uint32_t zone_id = 0;    // in Claim's template: ignored (each claim sets its own)
  int64_t started_ms = 0;  // when the owning process started (wall clock, ms)
  friend bool operator==(const ZoneOwner&, const ZoneOwner&) = default;
};

// A zone to claim, or one cell of a split zone (docs/seamless.md: key CellKey); its name is only
// for messages ("zone 2 (field) cell 1"). A node claims at most one cell of a zone.
struct ZoneClaim {
  uint32_t zone_id = 0;
  std::string name;
  uint32_t cell = zone::kWholeZone;
};

enum class KvStorage : uint8_t { kFile, kMemory };

struct DirectoryOptions {
  int ttl_seconds = 5;  // an entry not refreshed for this long is gone
  KvStorage storage = KvStorage::kFile;
  std::string bucket = kZoneBucket;
};

// A start-up failure: the bucket cannot be created or bound.
class DirectoryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ClaimResult {
  bool ok = false;
  std::string error;  // !ok: e.g. "zone 2 (field) is already hosted by node 'field-a' at
                      // 10.0.0.5:7777"
};

enum class LookupStatus : uint8_t {
  kFound,  // `owner` hosts the zone
  kNone,   // nobody does (never claimed, released, or its owner died and the entry expired)
  kError,  // NATS could not answer (down, timeout): see `error`. Not the same as kNone.
};
struct LookupResult {
  LookupStatus status = LookupStatus::kError;
  ZoneOwner owner;    // kFound
  std::string error;  // kError
};

class ZoneDirectory {
 public:
  // Called when a claimed zone turned out to be held by someone else (`now`).
  using LostFn = std::function<void(uint32_t zone_id, const ZoneOwner& now)>;

  // Creates the bucket if missing (or binds to it); throws DirectoryError.
  ZoneDirectory(NatsBus& bus, DirectoryOptions options, LostFn on_lost = {});
  // Stops the heartbeat WITHOUT releasing: to the others this looks like a crash (entries
  // expire after the ttl). Call Release() first on a graceful shutdown.
  ~ZoneDirectory();
  ZoneDirectory(const ZoneDirectory&) = delete;
  ZoneDirectory& operator=(const ZoneDirectory&) = delete;

  // Claims every zone for `owner` (zone_id ignored), all or nothing: on the first zone held by
  // another node (or a NATS error) the zones claimed by this call are released and the result
  // says why. Starts the heartbeat. The server refuses to start on !ok.
  [[nodiscard]] ClaimResult Claim(const std::vector<ZoneClaim>& zones, const ZoneOwner& owner);

  // The zone's owner now, read from NATS: one JetStream get, no cache (docs/cluster.md: its
  // cost, and why no cache).
  // `cell`: the owner of that cell of a split zone.
  LookupResult Lookup(uint32_t zone_id, uint32_t cell = zone::kWholeZone) const;

  // Stops the heartbeat and deletes this node's entries (those still held by this node).
  void Release();

  std::vector<uint32_t> claimed() const;  // zone ids this directory holds now
  std::chrono::milliseconds heartbeat_interval() const { return interval_; }

 private:
  struct Held {
    std::string key;    // in the bucket: the zone id, or CellKey
    std::string label;  // for messages: "zone 2 (field) cell 1"
    std::string value;  // serialized ZoneOwner
    uint64_t revision = 0;
  };
  enum class Found : uint8_t { kNone, kOwner, kError };
  struct Read {
    Found found = Found::kError;
    ZoneOwner owner;
    uint64_t revision = 0;
    std::string error;
  };

  void OpenBucket();                           // throws DirectoryError
  Read ReadKey(const std::string& key) const;  // one kvStore_Get
  ClaimResult ClaimOne(const ZoneClaim& zone, const ZoneOwner& owner, Held* held);
  void StartHeartbeat();  // REQUIRES: mu_ held
  void StopHeartbeat();
  void HeartbeatLoop();
  // One refresh of every held entry; returns the zones lost to another node.
  std::vector<std::pair<uint32_t, ZoneOwner>> Beat();
  // The CAS update of `zone` failed: find out why and recover if it is still ours.
  enum class Recovery : uint8_t {
    kKept,         // still ours (refreshed, re-created, or to be retried at the next beat)
    kLost,         // another node holds it: *other
    kUnreachable,  // NATS did not answer: stop this round
  };
  Recovery Recover(Held* held, ZoneOwner* other);
  // false: NATS did not answer (the entry then expires by itself).
  bool DeleteIfOurs(const Held& held, const std::string& node);

  NatsBus& bus_;
  const DirectoryOptions options_;
  const LostFn on_lost_;
  const std::chrono::milliseconds interval_;
  kvStore* kv_ = nullptr;

  mutable std::mutex mu_;
  std::condition_variable wake_;  // the heartbeat sleeps on it; Stop wakes it
  std::map<uint32_t, Held> held_;
  std::string node_;  // the node that claimed (empty before the first Claim)
  bool stop_ = false;
  bool outage_logged_ = false;  // heartbeat: "NATS down" said once per outage
  std::thread heartbeat_;
};

}  // namespace zs::cluster
