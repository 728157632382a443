#include "cluster/border_link.h"

#include <utility>

#include "cluster/cluster_protocol.h"

namespace zs::cluster {

BorderLink::BorderLink(NatsBus& bus, const zone::WorldConfig& world, Options options,
                       host::BorderCounters& counters)
    : bus_(bus), world_(world), options_(std::move(options)), counters_(counters) {}

void BorderLink::Listen(uint32_t zone, uint32_t cell, Sink sink) {
  bus_.Serve(GhostSubject(zone, cell), [this, sink = std::move(sink)](std::string_view bytes) {
    counters_.bytes_received.Add(bytes.size());
    zone::GhostBatch batch;
    if (const auto refused = DecodeGhostBatch(bytes, world_, &batch)) {
      counters_.refusals[static_cast<size_t>(*refused)].Add(1);
    } else {
      sink(std::move(batch));
    }
    return std::string();  // published, not requested: nobody waits for an answer
  });
}

void BorderLink::Send(const zone::GhostBatch& batch) {
  const std::lock_guard lock(mu_);
  EncodeGhostBatch(batch, options_.node, options_.epoch, &scratch_, &bytes_);
  const BusStatus s = bus_.Publish(GhostSubject(batch.zone, batch.to_cell), bytes_);
  if (s != BusStatus::kOk) return;  // NATS down: the neighbours' timeouts say so
  counters_.batches_sent.Add(1);
  counters_.bytes_sent.Add(bytes_.size());
}

}  // namespace zs::cluster
