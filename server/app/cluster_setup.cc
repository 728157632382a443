#include "app/cluster_setup.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>

#include "config/config_loader.h"

namespace zs::app {

namespace {

// The cell of split zone `zone` that this node owns (cells.nodes), or kWholeZone for a zone that
// is not split. Throws config::ConfigError when the node owns none of its cells.
uint32_t CellOf(const config::ServerConfig& config, const zone::ZoneConfig& zone) {
  if (!zone.cells.split()) return zone::kWholeZone;
  const std::vector<std::string>& nodes = zone.cells.nodes;
  const auto it = std::find(nodes.begin(), nodes.end(), config.cluster.node);
  if (it != nodes.end()) return static_cast<uint32_t>(it - nodes.begin());
  std::string owners;
  for (const std::string& n : nodes) owners += (owners.empty() ? "" : ", ") + n;
  throw config::ConfigError("cluster.zones: zone '" + zone.name +
                            "' is split into cells owned by " + owners + "; node '" +
                            config.cluster.node + "' owns none of them");
}

}  // namespace

std::vector<cluster::ZoneClaim> HostedZones(const config::ServerConfig& config,
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
      throw config::ConfigError(message);
    }
    out.push_back({.zone_id = it->id, .name = it->name, .cell = CellOf(config, *it)});
  }
  return out;
}

host::SplitZones SplitOf(const std::vector<cluster::ZoneClaim>& zones,
                         const zone::WorldConfig& world) {
  host::SplitZones split;
  const zone::ZoneConfig* first = nullptr;
  for (const cluster::ZoneClaim& z : zones) {
    if (z.cell == zone::kWholeZone) continue;
    const zone::ZoneConfig& config = *world.FindZone(z.zone_id);
    const zone::IdRange ids = zone::IdsOfCell(config.cells, z.cell);
    if (first != nullptr && (ids.offset != split.ids.offset || ids.stride != split.ids.stride)) {
      throw config::ConfigError(
          "cluster.zones: this node owns cell " + std::to_string(z.cell) + " of " + config.name +
          " (" + std::to_string(config.cells.count()) + " cells) and cell " +
          std::to_string(split.cells[0].cell) + " of " + first->name + " (" +
          std::to_string(first->cells.count()) +
          " cells): its entity ids cannot fit both; a node owns the same cell of zones split "
          "alike");
    }
    first = &config;
    split.ids = ids;
    split.cells.push_back({.zone_id = z.zone_id, .cell = z.cell});
  }
  return split;
}

std::vector<uint32_t> ZoneIds(const std::vector<cluster::ZoneClaim>& zones) {
  std::vector<uint32_t> ids;
  ids.reserve(zones.size());
  for (const cluster::ZoneClaim& z : zones) ids.push_back(z.zone_id);
  return ids;
}

void CheckClusterConfig(const config::ServerConfig& config, bool under_agones) {
  if (!config.cluster.enabled) {
    if (config.cluster.standby) {
      throw config::ConfigError(
          "--standby takes over the zones of a dead node of a cluster: it needs a cluster: block");
    }
    return;
  }
  if (config.cluster.node.empty()) {
    throw config::ConfigError(
        "cluster.node: name this node, unique in the world (or set ZS_CLUSTER_NODE)");
  }
  if (config.cluster.public_address == config::kPublicAddressFromAgones && !under_agones) {
    throw config::ConfigError(
        "cluster.public_address: agones asks the Agones SDK for this GameServer's address, but "
        "AGONES_SDK_HTTP_PORT is not set (not running under Agones): give host:port instead");
  }
  if (config.cluster.zones.empty() && !config.cluster.standby) {
    throw config::ConfigError("cluster: name the zones this node hosts (cluster.zones or --zones)");
  }
  if (config.storage.backend != config::StorageBackend::kPostgres) {
    throw config::ConfigError(
        "cluster: nodes hand characters to each other, so they must share their storage: set "
        "storage.backend to postgres (a SQLite file is one node's own)");
  }
}

std::vector<cluster::ZoneClaim> AwaitStandbyZones(const config::ServerConfig& config,
                                                  const zone::WorldConfig& world,
                                                  std::vector<cluster::ZoneClaim> candidates,
                                                  const std::function<bool()>& keep_waiting) {
  if (candidates.empty()) {
    for (const zone::ZoneConfig& z : world.zones) {
      candidates.push_back({.zone_id = z.id, .name = z.name});
    }
  }
  const config::ClusterConfig& c = config.cluster;
  spdlog::info("standby: node {} waits for any of {} zone(s) to lose its owner", c.node,
               candidates.size());
  return cluster::WaitForOrphanedZones({.nats_url = c.nats_url,
                                        .node = c.node,
                                        .directory_ttl_seconds = c.directory_ttl_seconds,
                                        .poll_seconds = c.standby_poll_seconds},
                                       candidates, keep_waiting);
}

std::string PublicAddress(const config::ServerConfig& config, uint16_t port,
                          agones::AgonesSdk* agones) {
  std::string address = config.cluster.public_address;
  if (address == config::kPublicAddressFromAgones) {
    spdlog::info("cluster: asking Agones for this GameServer's address and '{}' port",
                 config.agones.port_name);
    address = agones->PublicAddress(
        config.agones.port_name,
        std::chrono::milliseconds(std::lround(config.agones.address_timeout_seconds * 1000)));
    spdlog::info("cluster: public address {} (the GameServer's status)", address);
  } else if (address.ends_with(":0")) {
    address.replace(address.size() - 1, 1, std::to_string(port));
  }
  return address;
}

namespace {

// A zone this node hosted is now another node's (this one was paused or cut off from NATS longer
// than the ttl, and a standby took it): the other node serves it from storage, so this one ends
// at once, without saving (its players' states are older than the new owner's, and a save would
// overwrite them), and its clients reconnect to the new owner. Crash-only, on purpose.
void ExitOnLostZone(uint32_t zone, const std::string& now_node) {
  spdlog::critical("cluster: exiting (3) without saving: zone {} is node '{}''s now", zone,
                   now_node);
  spdlog::apply_all([](const std::shared_ptr<spdlog::logger>& l) { l->flush(); });
  std::_Exit(3);
}

}  // namespace

std::string PublicWebSocketUrl(const config::ServerConfig& config,
                               const std::string& public_address, std::optional<uint16_t> ws_port) {
  if (!config.cluster.public_websocket_url.empty()) return config.cluster.public_websocket_url;
  if (!ws_port || config.cluster.public_address == config::kPublicAddressFromAgones) return {};
  const size_t colon = public_address.rfind(':');  // after an IPv6 host's ']'
  return "ws://" + public_address.substr(0, colon) + ":" + std::to_string(*ws_port) + "/";
}

std::unique_ptr<cluster::ClusterNode> JoinCluster(
    const config::ServerConfig& config, std::vector<cluster::ZoneClaim> zones,
    const BoundPorts& ports, host::TicketBook* tickets, storage::StorageWorker* storage,
    agones::AgonesSdk* agones, const zone::WorldConfig& world) {
  if (!config.cluster.enabled) return nullptr;
  const config::ClusterConfig& c = config.cluster;
  const std::string address = PublicAddress(config, ports.game, agones);
  return std::make_unique<cluster::ClusterNode>(
      cluster::NodeOptions{
          .nats_url = c.nats_url,
          .node = c.node,
          .public_address = address,
          .public_websocket_url = PublicWebSocketUrl(config, address, ports.websocket),
          .directory_ttl_seconds = c.directory_ttl_seconds,
          .handoff_timeout_ms = c.handoff_timeout_ms,
          .on_lost = ExitOnLostZone,
          .world = &world},
      std::move(zones), tickets, storage);
}

}  // namespace zs::app
