#include "cluster/cluster_node.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

namespace zs::cluster {

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

host::HandoffAnswer Unreachable(std::string why) {
  return {.outcome = host::HandoffAnswer::Outcome::kUnreachable,
          .ticket = {},
          .address = {},
          .websocket_url = {},
          .reason = std::move(why)};
}

}  // namespace

ClusterNode::ClusterNode(NodeOptions options, std::vector<ZoneClaim> zones,
                         host::TicketBook* tickets, storage::StorageWorker* storage)
    : options_(std::move(options)),
      zones_(std::move(zones)),
      tickets_(tickets),
      storage_(storage),
      started_ms_(WallMs()) {
  bus_ = std::make_unique<NatsBus>(BusOptions{.url = options_.nats_url, .name = options_.node});
  directory_ = std::make_unique<ZoneDirectory>(
      *bus_, DirectoryOptions{.ttl_seconds = options_.directory_ttl_seconds},
      [this](uint32_t zone, const ZoneOwner& now) {
        spdlog::critical("cluster: zone {} is now hosted by node '{}' at {}: this node lost it",
                         zone, now.node, now.address);
        if (options_.on_lost) options_.on_lost(zone, now.node);
      });
  const ClaimResult claim = directory_->Claim(zones_, ZoneOwner{.node = options_.node,
                                                                .address = options_.public_address,
                                                                .zone_id = 0,
                                                                .started_ms = started_ms_});
  if (!claim.ok) throw std::runtime_error(claim.error);
  for (const ZoneClaim& z : zones_) {  // a cell's owner takes the arrivals in its cell
    bus_->Serve(HandoffSubject(z.zone_id, z.cell),
                MakeHandoffHandler([this](const HandoffRequest& r) { return Decide(r); }));
  }
  for (size_t i = 0; i < std::max<size_t>(options_.handoff_threads, 1); ++i) {
    workers_.emplace_back([this] { Work(); });
  }
}

ClusterNode::~ClusterNode() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
  for (Job& job : jobs_) job.done(Unreachable("this server is shutting down"));
  directory_.reset();
  bus_.reset();
}

ClusterNode::BorderPorts ClusterNode::JoinBorder(const zone::WorldConfig& world,
                                                 host::CellCounters counters, BorderSinks sinks) {
  const auto is_cell = [](const ZoneClaim& z) { return z.cell != zone::kWholeZone; };
  if (std::none_of(zones_.begin(), zones_.end(), is_cell)) return {};
  border_ = std::make_unique<BorderLink>(
      *bus_, world,
      BorderLink::Options{.node = options_.node, .epoch = static_cast<uint64_t>(started_ms_)},
      counters.border, counters.chat);
  relay_ = std::make_unique<RelayLink>(*bus_, world, options_.node, counters.relay,
                                       std::move(sinks.relayed));
  for (const ZoneClaim& z : zones_) {
    if (is_cell(z)) border_->Listen(z.zone_id, z.cell, sinks.batches, relay_.get(), sinks.chat);
  }
  return {.border = border_.get(), .relay = relay_.get()};
}

void ClusterNode::Release() {
  if (directory_) directory_->Release();
}

void ClusterNode::Offer(host::HandoffOffer offer, std::function<void(host::HandoffAnswer)> done) {
  {
    std::lock_guard lock(mu_);
    if (!stopping_ && jobs_.size() < options_.max_queued_offers) {
      jobs_.push_back({.offer = std::move(offer), .done = std::move(done)});
      wake_.notify_one();
      return;
    }
  }
  done(Unreachable("too many hand-offs waiting"));
}

void ClusterNode::Work() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job.done(Handle(job.offer));
  }
}

// The source side: who hosts the zone, and will it take the character?
host::HandoffAnswer ClusterNode::Handle(const host::HandoffOffer& offer) {
  const uint32_t zone = offer.character.state.zone;
  const uint32_t cell = CellOfArrival(zone, offer.character.state.position);
  const LookupResult owner = directory_->Lookup(zone, cell);
  if (owner.status == LookupStatus::kNone) {
    return Unreachable("no server hosts zone " + std::to_string(zone) +
                       (cell == zone::kWholeZone ? "" : ", cell " + std::to_string(cell)));
  }
  if (owner.status == LookupStatus::kError) return Unreachable(owner.error);
  const HandoffResult r =
      RequestHandoff(*bus_,
                     {.version = 0,
                      .from_node = options_.node,
                      .target_zone = zone,
                      .character = offer.character,
                      .arrival = offer.character.state.position},
                     cell, std::chrono::milliseconds(options_.handoff_timeout_ms));
  if (r.status != BusStatus::kOk) {
    return Unreachable("node '" + owner.owner.node + "': " + BusStatusName(r.status) + " " +
                       r.error);
  }
  if (r.reply.outcome != HandoffOutcome::kAccepted) {
    return {.outcome = host::HandoffAnswer::Outcome::kRefused,
            .ticket = {},
            .address = {},
            .websocket_url = {},
            .reason = std::string(HandoffOutcomeName(r.reply.outcome)) + ": " + r.reply.reason};
  }
  return {.outcome = host::HandoffAnswer::Outcome::kAccepted,
          .ticket = r.reply.ticket,
          .address = r.reply.address,
          .websocket_url = r.reply.websocket_url,
          .reason = {}};
}

uint32_t ClusterNode::CellOfArrival(uint32_t zone, Vec2 at) const {
  const zone::ZoneConfig* z = options_.world != nullptr ? options_.world->FindZone(zone) : nullptr;
  if (z == nullptr || !z->cells.split() || !IsFinite(at)) return zone::kWholeZone;
  return zone::CellAt(z->bounds, z->cells,
                      {std::clamp(at.x, z->bounds.min.x, z->bounds.max.x),
                       std::clamp(at.y, z->bounds.min.y, z->bounds.max.y)});
}

// The owner side (libnats' delivery thread): take the character under a ticket, and save it
// at once, so that storage says where it is from now on (this node owns it).
HandoffReply ClusterNode::Decide(const HandoffRequest& request) {
  const bool hosted = std::any_of(zones_.begin(), zones_.end(), [&](const ZoneClaim& z) {
    return z.zone_id == request.target_zone;
  });
  if (!hosted) {
    return {.outcome = HandoffOutcome::kNotHosted,
            .ticket = {},
            .address = {},
            .websocket_url = {},
            .reason = "zone " + std::to_string(request.target_zone) + " is not hosted by node '" +
                      options_.node + "'"};
  }
  storage::CharacterRecord character = request.character;
  character.state.zone = request.target_zone;
  character.state.position = request.arrival;
  std::string ticket = tickets_->Issue(character, Now());
  if (ticket.empty()) {
    return {.outcome = HandoffOutcome::kFull,
            .ticket = {},
            .address = {},
            .websocket_url = {},
            .reason = "too many arrivals waiting"};
  }
  if (storage_ != nullptr) storage_->Save({std::move(character)});
  return {.outcome = HandoffOutcome::kAccepted,
          .ticket = std::move(ticket),
          .address = options_.public_address,
          .websocket_url = options_.public_websocket_url,
          .reason = {}};
}

}  // namespace zs::cluster
