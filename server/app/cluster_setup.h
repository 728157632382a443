// zone_server as a node of a cluster (issue 9, docs/cluster.md): which zones it hosts, and the
// ClusterNode that joins it to the others. Start-up only; errors are exceptions with messages.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "app/server_config.h"
#include "cluster/cluster_node.h"
#include "zone/world_config.h"

namespace zs::app {

// The zones this server hosts: cluster.zones (or --zones) by name; empty = every zone. Throws
// zone::ConfigError for a name the world does not have.
std::vector<cluster::ZoneClaim> HostedZones(const ServerConfig& config,
                                            const zone::WorldConfig& world);
// Ids of `zones`.
std::vector<uint32_t> ZoneIds(const std::vector<cluster::ZoneClaim>& zones);
// Checks what a cluster needs: hosted zones named, and storage every node shares (PostgreSQL).
// Throws zone::ConfigError.
void CheckClusterConfig(const ServerConfig& config);
// Joins the cluster (null without a `cluster:` block); `port`: the game port this server
// listens on (a public_address ending in ":0" gets it). Throws what ClusterNode throws.
std::unique_ptr<cluster::ClusterNode> JoinCluster(const ServerConfig& config,
                                                  std::vector<cluster::ZoneClaim> zones,
                                                  uint16_t port, net::TicketBook* tickets,
                                                  storage::StorageWorker* storage);

}  // namespace zs::app
