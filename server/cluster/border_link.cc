#include "cluster/border_link.h"

#include "host/clock.h"

#include <utility>

#include "cluster/cluster_protocol.h"

namespace zs::cluster {

BorderLink::BorderLink(NatsBus& bus, const zone::WorldConfig& world, Options options,
                       host::BorderCounters& counters)
    : bus_(bus), world_(world), options_(std::move(options)), counters_(counters) {}

void BorderLink::Listen(uint32_t zone, uint32_t cell, Sink sink, RelayLink* relay) {
  const size_t prefix = CellSubjectPrefix(zone, cell).size();
  bus_.Listen(CellSubjects(zone, cell), [this, prefix, relay, sink = std::move(sink)](
                                            std::string_view subject, std::string_view bytes) {
    const std::string_view kind = subject.size() > prefix ? subject.substr(prefix) : "";
    if (kind == kRelaySuffix && relay != nullptr) {
      relay->Receive(bytes);
      return;
    }
    counters_.bytes_received.Add(bytes.size());
    zone::GhostBatch batch;
    if (kind != kGhostsSuffix) {
      counters_.refusals[static_cast<size_t>(host::BorderRefusal::kUnparsable)].Add(1);
    } else if (const auto refused = DecodeGhostBatch(bytes, world_, &batch)) {
      counters_.refusals[static_cast<size_t>(*refused)].Add(1);
    } else {
      sink(std::move(batch));
    }
  });
}

void BorderLink::Send(const zone::GhostBatch& batch) {
  const std::lock_guard lock(mu_);
  EncodeGhostBatch(batch, options_.node, options_.epoch, &scratch_, &bytes_, host::WallClockUs());
  const BusStatus s = bus_.Publish(GhostSubject(batch.zone, batch.to_cell), bytes_);
  if (s != BusStatus::kOk) return;  // NATS down: the neighbours' timeouts say so
  counters_.batches_sent.Add(1);
  counters_.bytes_sent.Add(bytes_.size());
}

}  // namespace zs::cluster
