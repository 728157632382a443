// World chat and input results: after every zone has simulated, each chat line is put into the
// output of the zone whose views hold its recipients, and results decided outside the world
// (rate limits, unknown whisper names) join the player's zone output. Zone::FinishTick sorts
// both by player, so the encoder finds a player's share with one binary search.
#include <algorithm>

#include "zone/world.h"

namespace zs::zone {

const std::string& World::NameOf(EntityId player) const {
  static const std::string kNone;
  const uint32_t index = EntityIndex(player);
  const auto away = away_.find(index);
  const bool departing = away != away_.end() && away->second.entity.id == player;
  return (departing || ZoneIndexOf(player)) && index < names_.size() ? names_[index] : kNone;
}

void World::DeliverTo(size_t z, uint32_t line, EntityId recipient) {
  outputs_[z].chat_deliveries.push_back(ChatDelivery{.recipient = recipient, .line = line});
}

void World::DeliverSay(size_t z, const ChatInput& c) {
  ZoneTickOutput& out = outputs_[z];
  const auto line = static_cast<uint32_t>(out.chat_lines.size());
  out.chat_lines.push_back(ChatLine{.from = c.entity, .channel = c.channel, .text = c.text});
  if (c.channel == ChatChannel::kSay) {
    const Entity* speaker = zones_[z].store().Find(c.entity);
    zones_[z].store().PlayersIn({speaker->position, zones_[z].config().chat_radius}, &near_);
    zones_[z].SayAcross(c.entity, c.text);  // and the players across a cell border
  } else {
    zones_[z].store().AllPlayers(&near_);
    if (zones_[z].config().cells.split() && out.zone_chat.lines.size() < kMaxZoneLines) {
      // and every other cell's (in a tick with more lines than a ZoneChat holds, the rest are
      // heard in this cell only)
      ZoneChat& chat = out.zone_chat;
      chat.zone = zones_[z].config().id;
      chat.from_cell = zones_[z].border().cell();
      chat.tick = tick_;
      chat.lines.push_back(
          {.speaker = c.entity, .name = NameOf(c.entity), .text = std::string(c.text)});
    }
  }
  for (const EntityId to : near_) DeliverTo(z, line, to);
}

void World::DeliverChat(std::span<const PlayerInput> inputs) {
  for (const PlayerInput& in : inputs) {
    const auto* chat = std::get_if<ChatInput>(&in);
    if (chat == nullptr) continue;
    const ChatInput& c = *chat;
    const std::optional<size_t> z = ZoneIndexOf(c.entity);
    if (!z) continue;  // left before its tick
    if (!c.text_ok) {
      TellResult(c.entity, InputKind::kChat, c.seq, Outcome::kBadText, &outputs_[*z].results);
      continue;
    }
    if (c.channel != ChatChannel::kWhisper) {
      DeliverSay(*z, c);
      TellResult(c.entity, InputKind::kChat, c.seq, Outcome::kAccepted, &outputs_[*z].results);
      continue;
    }
    DeliverWhisper(*z, c);
  }
}

void World::DeliverHeard(size_t z) {
  for (const BorderSay& say : zones_[z].border().heard()) {
    const Entity* speaker = zones_[z].store().Find(say.speaker);  // its ghost, applied this tick
    if (speaker == nullptr) continue;
    ZoneTickOutput& out = outputs_[z];
    const auto line = static_cast<uint32_t>(out.chat_lines.size());
    out.chat_lines.push_back(
        ChatLine{.from = say.speaker, .channel = ChatChannel::kSay, .text = say.text});
    zones_[z].store().PlayersIn({speaker->position, zones_[z].config().chat_radius}, &near_);
    for (const EntityId to : near_) DeliverTo(z, line, to);
  }
}

GhostVerdict World::TakeZoneChat(ZoneChat chat) {
  const std::optional<size_t> z = ZoneIndexById(chat.zone);
  if (!z || !zones_[*z].config().cells.split() || chat.from_cell == zones_[*z].border().cell() ||
      chat.from_cell >= zones_[*z].config().cells.count()) {
    return GhostVerdict::kNotANeighbour;
  }
  if (chat.lines.size() > kMaxZoneLines) return GhostVerdict::kTooMany;
  const std::pair<uint64_t, uint64_t> at{chat.epoch, chat.tick};
  const auto [it, first] = chat_from_.try_emplace({chat.zone, chat.from_cell}, at);
  if (!first && at <= it->second) return GhostVerdict::kStale;
  it->second = at;
  pending_chat_.push_back(std::move(chat));
  return GhostVerdict::kTaken;
}

void World::DeliverZoneChat() {
  for (const ZoneChat& chat : heard_chat_) {
    const std::optional<size_t> z = ZoneIndexById(chat.zone);
    if (!z) continue;
    ZoneTickOutput& out = outputs_[*z];
    zones_[*z].store().AllPlayers(&near_);
    for (const ZoneLine& l : chat.lines) {
      const auto line = static_cast<uint32_t>(out.chat_lines.size());
      out.chat_lines.push_back(ChatLine{
          .from = l.speaker, .channel = ChatChannel::kZone, .text = l.text, .from_name = l.name});
      for (const EntityId to : near_) DeliverTo(*z, line, to);
    }
  }
}

void World::DeliverWhisper(size_t z, const ChatInput& c) {
  const std::optional<size_t> rz = ZoneIndexOf(c.to);
  if (!rz && !c.relayed) {
    TellResult(c.entity, InputKind::kChat, c.seq, Outcome::kNoSuchPlayer, &outputs_[z].results);
    return;
  }
  ChatLine line{.from = c.entity, .channel = c.channel, .text = c.text, .to = c.to};
  if (rz) {
    outputs_[*rz].chat_lines.push_back(line);
    DeliverTo(*rz, static_cast<uint32_t>(outputs_[*rz].chat_lines.size() - 1), c.to);
  } else {  // the other world delivers it; the copy names the recipient
    line.to = kInvalidEntity;
    line.to_name = c.to_name;
  }
  if (c.to != c.entity) {  // the sender's copy
    outputs_[z].chat_lines.push_back(line);
    DeliverTo(z, static_cast<uint32_t>(outputs_[z].chat_lines.size() - 1), c.entity);
  }
  TellResult(c.entity, InputKind::kChat, c.seq, Outcome::kAccepted, &outputs_[z].results);
}

void World::DeliverRelayed(std::span<const RelayedWhisper> relayed) {
  for (const RelayedWhisper& r : relayed) {
    const std::optional<size_t> z = ZoneIndexOf(r.to);
    if (!z) continue;  // left meanwhile
    outputs_[*z].chat_lines.push_back(ChatLine{.from = r.from,
                                               .channel = ChatChannel::kWhisper,
                                               .text = r.text,
                                               .to = r.to,
                                               .from_name = r.from_name});
    DeliverTo(*z, static_cast<uint32_t>(outputs_[*z].chat_lines.size() - 1), r.to);
  }
}

void World::AddResults(std::span<const InputResult> results) {
  for (const InputResult& r : results) {
    if (const std::optional<size_t> z = ZoneIndexOf(r.player)) {
      TellResult(r.player, r.kind, r.seq, r.outcome, &outputs_[*z].results);
      if (r.kind != InputKind::kChat) (void)zones_[*z].Acknowledge(r.player, r.seq);
    }
  }
}

void World::ShareNames() {
  for (ZoneTickOutput& out : outputs_) out.names = &names_;
}

}  // namespace zs::zone
