// Standby: a zone_server started with --standby (cluster.standby: true) holds nothing and waits
// until a zone it may take has no owner in the zone directory: its owner died and the entry
// expired (docs/cluster.md: within directory_ttl_seconds), or it was released. It then starts
// as that zone's server the way any node does: its claim is atomic (kvStore_Create), so two
// standbys racing for one zone cannot both win, and an old owner restarted while the standby
// holds the zone is refused at its own claim (it never serves). The zone's monsters respawn
// from the world's config; its characters come back from the shared storage at their last
// checkpoint as their players log in again or walk in through a portal.
//
// Threads: WaitForOrphanedZones blocks its caller (start-up, before anything is served).
// Errors: a directory error while polling is logged and polled again (kError is not kNone: a
// NATS outage never looks like a dead owner); throws only what NatsBus and ZoneDirectory throw
// at construction (no NATS, no bucket).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cluster/zone_directory.h"

namespace zs::cluster {

struct StandbyOptions {
  std::string nats_url;
  std::string node;  // this standby's name (its NATS connection name; its claim comes later)
  int directory_ttl_seconds = 5;
  double poll_seconds = 0.25;  // how often each candidate's owner is looked up
};

// Blocks until at least one of `candidates` that it has seen hosted has no owner; returns every
// such candidate at that moment (the zones of one dead node usually expire together). A zone
// never seen hosted since the standby started is left alone: at a cold start its own node may
// still be starting. Returns {} if `keep_waiting` says false (checked each poll). REQUIRES:
// candidates not empty.
std::vector<ZoneClaim> WaitForOrphanedZones(const StandbyOptions& options,
                                            const std::vector<ZoneClaim>& candidates,
                                            const std::function<bool()>& keep_waiting);

}  // namespace zs::cluster
