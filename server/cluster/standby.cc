#include "cluster/standby.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <set>
#include <thread>

namespace zs::cluster {

namespace {

// "2 (yard) by yard-a at 127.0.0.1:7001" for the log.
std::string Describe(const ZoneClaim& zone, const LookupResult& r) {
  std::string s = std::to_string(zone.zone_id) + " (" + zone.name + ")";
  if (r.status == LookupStatus::kFound) s += " by " + r.owner.node + " at " + r.owner.address;
  return s;
}

}  // namespace

std::vector<ZoneClaim> WaitForOrphanedZones(const StandbyOptions& options,
                                            const std::vector<ZoneClaim>& candidates,
                                            const std::function<bool()>& keep_waiting) {
  NatsBus bus({.url = options.nats_url, .name = options.node + "-standby"});
  ZoneDirectory directory(bus, {.ttl_seconds = options.directory_ttl_seconds});
  const auto poll = std::chrono::duration<double>(options.poll_seconds);
  std::string last_state;
  std::set<uint32_t> seen_owned;  // zones this standby has seen hosted since it started
  while (keep_waiting()) {
    std::vector<ZoneClaim> orphaned;
    std::string state;
    for (const ZoneClaim& zone : candidates) {
      const LookupResult r = directory.Lookup(zone.zone_id, zone.cell);
      if (r.status == LookupStatus::kFound) seen_owned.insert(zone.zone_id);
      if (r.status == LookupStatus::kNone && seen_owned.contains(zone.zone_id)) {
        orphaned.push_back(zone);
      } else if (r.status == LookupStatus::kNone) {
        state += "; zone " + Describe(zone, r) + ": not hosted yet (left to its own node)";
      }
      if (r.status == LookupStatus::kError) {
        state += "; zone " + Describe(zone, r) + ": directory error: " + r.error;
      } else if (r.status == LookupStatus::kFound) {
        state += "; zone " + Describe(zone, r);
      }
    }
    if (!orphaned.empty()) {
      for (const ZoneClaim& zone : orphaned) {
        spdlog::warn("standby: zone {} ({}) has no owner (its server stopped or died): taking it",
                     zone.zone_id, zone.name);
      }
      return orphaned;
    }
    if (state != last_state) {  // logged when it changes, not every poll
      spdlog::info("standby: watching: {}", state.substr(2));
      last_state = state;
    }
    std::this_thread::sleep_for(poll);
  }
  return {};
}

}  // namespace zs::cluster
