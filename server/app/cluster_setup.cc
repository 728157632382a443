#include "app/cluster_setup.h"

#include "zone/config_loader.h"

namespace zs::app {

std::vector<cluster::ZoneClaim> HostedZones(const ServerConfig& config,
                                            const zone::WorldConfig& world) {
  std::vector<cluster::ZoneClaim> out;
  out.reserve(config.cluster.zones.size());
  for (const std::string& name : config.cluster.zones) {
    const auto it = std::find_if(world.zones.begin(), world.zones.end(),
                                 [&](const zone::ZoneConfig& z) { return z.name == name; });
    if (it == world.zones.end()) {
      std::string known;
      for (const zone::ZoneConfig& z : world.zones) {
        if (!known.empty()) known += ", ";
        known += z.name;
      }
      std::string message = "cluster.zones: no zone named '";
      message.append(name).append("' in the world (zones: ").append(known).append(")");
      throw zone::ConfigError(message);
    }
    out.push_back({.zone_id = it->id, .name = it->name});
  }
  return out;
}

std::vector<uint32_t> ZoneIds(const std::vector<cluster::ZoneClaim>& zones) {
  std::vector<uint32_t> ids;
  ids.reserve(zones.size());
  for (const cluster::ZoneClaim& z : zones) ids.push_back(z.zone_id);
  return ids;
}

void CheckClusterConfig(const ServerConfig& config) {
  if (!config.cluster.enabled) return;
  if (config.cluster.zones.empty()) {
    throw zone::ConfigError("cluster: name the zones this node hosts (cluster.zones or --zones)");
  }
  if (config.storage.backend != StorageBackend::kPostgres) {
    throw zone::ConfigError(
        "cluster: nodes hand characters to each other, so they must share their storage: set "
        "storage.backend to postgres (a SQLite file is one node's own)");
  }
}

std::unique_ptr<cluster::ClusterNode> JoinCluster(const ServerConfig& config,
                                                  std::vector<cluster::ZoneClaim> zones,
                                                  uint16_t port, net::TicketBook* tickets,
                                                  storage::StorageWorker* storage) {
  if (!config.cluster.enabled) return nullptr;
  ClusterConfig c = config.cluster;
  if (c.public_address.ends_with(":0")) {
    c.public_address.replace(c.public_address.size() - 1, 1, std::to_string(port));
  }
  return std::make_unique<cluster::ClusterNode>(
      cluster::NodeOptions{.nats_url = c.nats_url,
                           .node = c.node,
                           .public_address = c.public_address,
                           .directory_ttl_seconds = c.directory_ttl_seconds,
                           .handoff_timeout_ms = c.handoff_timeout_ms},
      std::move(zones), tickets, storage);
}

}  // namespace zs::app
