#include "cluster/border_link.h"

#include <utility>

#include "cluster/cluster_protocol.h"
#include "host/clock.h"

namespace zs::cluster {

BorderLink::BorderLink(NatsBus& bus, const zone::WorldConfig& world, Options options,
                       host::BorderCounters& counters, host::CellChatCounters& chat_counters)
    : bus_(bus),
      world_(world),
      options_(std::move(options)),
      counters_(counters),
      chat_counters_(chat_counters) {}

void BorderLink::Listen(uint32_t zone, uint32_t cell, Sink sink, RelayLink* relay, ChatSink chat) {
  const size_t prefix = CellSubjectPrefix(zone, cell).size();
  bus_.Listen(CellSubjects(zone, cell),
              [this, prefix, relay, cell, sink = std::move(sink), chat = std::move(chat)](
                  std::string_view subject, std::string_view bytes) {
                const std::string_view kind = subject.size() > prefix ? subject.substr(prefix) : "";
                if (kind == kRelaySuffix && relay != nullptr) {
                  relay->Receive(bytes);
                  return;
                }
                if (kind == kChatSuffix && chat) {
                  ReceiveChat(bytes, cell, chat);
                  return;
                }
                counters_.bytes_received.Add(bytes.size());
                host::BorderBatch batch;
                if (kind != kGhostsSuffix) {
                  counters_.refusals[static_cast<size_t>(host::BorderRefusal::kUnparsable)].Add(1);
                } else if (const auto refused = DecodeGhostBatch(bytes, world_, &batch)) {
                  counters_.refusals[static_cast<size_t>(*refused)].Add(1);
                } else {
                  sink(std::move(batch));
                }
              });
}

void BorderLink::Send(const zone::GhostBatch& batch, std::span<const host::MigrantClient> clients) {
  const std::lock_guard lock(mu_);
  EncodeGhostBatch(batch, clients, options_.node, options_.epoch, &scratch_, &bytes_,
                   host::WallClockUs());
  const BusStatus s = bus_.Publish(GhostSubject(batch.zone, batch.to_cell), bytes_);
  if (s != BusStatus::kOk) return;  // NATS down: the neighbours' timeouts say so
  counters_.batches_sent.Add(1);
  counters_.bytes_sent.Add(bytes_.size());
}

void BorderLink::ReceiveChat(std::string_view bytes, uint32_t cell, const ChatSink& sink) {
  zone::ZoneChat chat;
  uint32_t to_cell = 0;
  if (const auto refused = DecodeZoneChat(bytes, world_, &chat, &to_cell)) {
    chat_counters_.refusals[static_cast<size_t>(*refused)].Add(1);
    return;
  }
  if (to_cell != cell) {  // on another cell's subject
    chat_counters_.refusals[static_cast<size_t>(host::BorderRefusal::kNotSplit)].Add(1);
    return;
  }
  chat_counters_.lines_in.Add(chat.lines.size());
  sink(std::move(chat));
}

void BorderLink::SendChat(const zone::ZoneChat& chat) {
  const zone::ZoneConfig* z = world_.FindZone(chat.zone);
  if (z == nullptr || chat.lines.empty()) return;
  std::string bytes;
  for (uint32_t c = 0; c < z->cells.count(); ++c) {
    if (c == chat.from_cell) continue;
    EncodeZoneChat(chat, c, options_.node, options_.epoch, &bytes);
    if (bus_.Publish(ChatSubject(chat.zone, c), bytes) == BusStatus::kOk) {
      chat_counters_.lines_out.Add(chat.lines.size());
    }
  }
}

}  // namespace zs::cluster
