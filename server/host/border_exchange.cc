#include "host/border_exchange.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "host/clock.h"

namespace zs::host {

void BorderExchange::TakeGhosts(BorderBatch batch) {
  if (!ghosts_in_.Push(std::move(batch))) {
    counters_.border.refusals[static_cast<size_t>(BorderRefusal::kQueueFull)].Add(1);
  }
}

void BorderExchange::TakeZoneChat(zone::ZoneChat chat) {
  if (!chat_in_.Push(std::move(chat))) {
    counters_.chat.refusals[static_cast<size_t>(BorderRefusal::kQueueFull)].Add(1);
  }
}

void BorderExchange::TakeQueued(double now) {
  for (zone::ZoneChat& chat : chat_in_.Take()) {
    counters_.chat.verdicts[static_cast<size_t>(world_.TakeZoneChat(std::move(chat)))].Add(1);
  }
  for (BorderBatch& in : ghosts_in_.Take()) {
    zone::GhostBatch& batch = in.batch;
    const size_t migrants = batch.migrants.size();
    const std::optional<size_t> z = world_.ZoneIndexById(batch.zone);
    arriving_.clear();
    for (zone::Migrant& m : batch.migrants) {
      if (m.body.kind != zone::EntityKind::kPlayer) continue;
      MigrantClient client;  // none listed: the keeper lets it go (ClientRelay::Take)
      client.entity = m.body.id;
      if (const MigrantClient* listed = ClientOf(in.clients, m.body.id)) client = *listed;
      arriving_.push_back({.name = m.body.name,
                           .client = std::move(client),
                           .last_input_seq = m.player.last_input_seq});
    }
    const zone::GhostVerdict verdict = world_.TakeGhosts(std::move(batch));
    counters_.border.verdicts[static_cast<size_t>(verdict)].Add(1);
    if (verdict != zone::GhostVerdict::kTaken) continue;
    counters_.border.immigrants.Add(migrants);
    ObserveMigration(in.sent_at_us, migrants);
    if (!arriving_.empty() && relay_.attached()) relay_.Take(*z, arriving_, now);
  }
}

void BorderExchange::ObserveMigration(uint64_t sent_at_us, size_t migrants) {
  constexpr uint64_t kMinuteUs = 60'000'000;
  const uint64_t now = WallClockUs();
  if (migrants == 0 || sent_at_us == 0 || sent_at_us > now || now - sent_at_us > kMinuteUs) return;
  const double seconds = static_cast<double>(now - sent_at_us) / 1e6;
  for (size_t i = 0; i < migrants; ++i) counters_.border.migration_latency.Observe(seconds);
}

void BorderExchange::SendTick() {
  BorderCounters& counters = counters_.border;
  int64_t held = 0;
  int64_t real = 0;
  for (size_t z = 0; z < world_.zone_count(); ++z) {
    const zone::Zone& zone = world_.zone(z);
    held += static_cast<int64_t>(zone.store().ghost_count());
    real += static_cast<int64_t>(zone.store().player_count());
    const zone::ZoneTickOutput& out = world_.output(z);
    for (const uint32_t cell : out.silent_cells) {
      counters.silent_neighbours.Add(1);
      spdlog::warn("zone {} ({}), cell {}: cell {} sent nothing for {} ticks: its ghosts dropped",
                   zone.config().id, zone.config().name, zone.border().cell(), cell,
                   zone.config().cells.ghost_timeout_ticks);
    }
    if (port_ == nullptr) continue;
    for (const zone::GhostBatch& batch : out.border) {
      if (relay_.attached() && std::ranges::any_of(batch.migrants, [](const zone::Migrant& m) {
            return m.body.kind == zone::EntityKind::kPlayer;
          })) {
        relay_.SendAway(batch, &migrant_clients_);  // where the clients of its players are
        port_->Send(batch, migrant_clients_);
        relay_.AfterBatchSent(MonotonicSeconds());  // no input of theirs goes out before it
      } else {
        port_->Send(batch, {});
      }
      counters.ghosts_sent.Add(batch.ghosts.size());
      counters.emigrants.Add(batch.migrants.size());
    }
    if (!out.zone_chat.lines.empty()) port_->SendChat(out.zone_chat);
  }
  counters.ghosts_held.Add(held - ghosts_held_);
  ghosts_held_ = held;
  counters.players_real.Add(real - players_real_);
  players_real_ = real;
}

}  // namespace zs::host
