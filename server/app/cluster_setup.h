// zone_server as a node of a cluster (issue 9, docs/cluster.md): which zones it hosts, and the
// ClusterNode that joins it to the others. Start-up only; errors are exceptions with messages.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "agones/agones_sdk.h"
#include "cluster/cluster_node.h"
#include "cluster/standby.h"
#include "config/server_config.h"
#include "host/zone_runners.h"
#include "zone/world_config.h"

namespace zs::app {

// The zones this server hosts: cluster.zones (or --zones) by name; empty = every zone. Throws
// config::ConfigError for a name the world does not have.
std::vector<cluster::ZoneClaim> HostedZones(const config::ServerConfig& config,
                                            const zone::WorldConfig& world);
// The cells of split zones among `zones` (this node's: HostedZones) and the entity ids the
// process hands out. Throws config::ConfigError when one node owns cells whose id ranges differ.
host::SplitZones SplitOf(const std::vector<cluster::ZoneClaim>& zones,
                         const zone::WorldConfig& world);
// Ids of `zones`.
std::vector<uint32_t> ZoneIds(const std::vector<cluster::ZoneClaim>& zones);
// Checks what a cluster needs: hosted zones named, storage every node shares (PostgreSQL), and
// for public_address `agones` the Agones SDK (`under_agones`: AGONES_SDK_HTTP_PORT is set).
// Throws config::ConfigError.
void CheckClusterConfig(const config::ServerConfig& config, bool under_agones);
// A standby (cluster.standby): blocks until one of `candidates` (empty: every zone of `world`)
// has no owner in the directory and returns those zones, for start-up to host and claim like
// any node's (cluster/standby.h); {} when `keep_waiting` turned false (a signal). Throws what
// NatsBus and ZoneDirectory throw (no NATS).
std::vector<cluster::ZoneClaim> AwaitStandbyZones(const config::ServerConfig& config,
                                                  const zone::WorldConfig& world,
                                                  std::vector<cluster::ZoneClaim> candidates,
                                                  const std::function<bool()>& keep_waiting);

// The address this node announces in the zone directory and hands to arriving clients:
// public_address as configured, a ":0" port replaced by `port` (the game port this server
// listens on), or for `agones` the GameServer's address and game port from `agones` (REQUIRES:
// not null then), waiting at most agones.address_timeout_seconds. Throws std::runtime_error
// (AgonesSdk::PublicAddress) when Agones does not tell.
std::string PublicAddress(const config::ServerConfig& config, uint16_t port,
                          agones::AgonesSdk* agones);
// The WebSocket door's URL handed to clients arriving over WebSocket (protocol 10):
// cluster.public_websocket_url as configured, else ws://<host of `public_address`>:<ws_port>/
// when the door is open (`ws_port` set) and the address is not Agones's, else empty (none).
std::string PublicWebSocketUrl(const config::ServerConfig& config,
                               const std::string& public_address, std::optional<uint16_t> ws_port);
// The ports this server listens on, once it does.
struct BoundPorts {
  uint16_t game = 0;
  std::optional<uint16_t> websocket;  // its door is open
};
// Joins the cluster (null without a `cluster:` block), announcing PublicAddress(config,
// ports.game, agones) and PublicWebSocketUrl. Throws what PublicAddress and ClusterNode throw.
std::unique_ptr<cluster::ClusterNode> JoinCluster(
    const config::ServerConfig& config, std::vector<cluster::ZoneClaim> zones,
    const BoundPorts& ports, host::TicketBook* tickets, storage::StorageWorker* storage,
    agones::AgonesSdk* agones, const zone::WorldConfig& world);

}  // namespace zs::app
