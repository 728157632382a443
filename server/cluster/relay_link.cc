#include "cluster/relay_link.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "cluster/cluster_protocol.h"
#include "host/clock.h"
#include "host/close_reason.h"

namespace zs::cluster {

namespace {

// The frames of one client at another node, sent to its home.
class HomeSink final : public host::SessionSink {
 public:
  HomeSink(RelayLink* link, std::weak_ptr<RelayLink::HomeRegistry> homes, host::RelayAddress home,
           uint32_t protocol_version)
      : link_(link), homes_(std::move(homes)), home_(home), protocol_version_(protocol_version) {}
  ~HomeSink() override {
    if (const auto homes = homes_.lock()) {  // else the link is gone (shutdown): nothing to do
      homes->Forget(home_.zone, host::SessionKey::Relayed(home_.home_cell, home_.session));
    }
  }
  HomeSink(const HomeSink&) = delete;
  HomeSink& operator=(const HomeSink&) = delete;

  void DeliverFrame(std::string_view frame, host::FrameKind kind) override {
    RelayMessage m{.to = home_, .what = RelayMessage::What::kFrame, .kind = kind};
    m.frame.assign(frame);
    link_->Publish(m);
  }
  void CloseWith(std::string last_frame, host::CloseReason reason) override {
    RelayMessage m{.to = home_,
                   .what = RelayMessage::What::kFrame,
                   .frame = std::move(last_frame),
                   .kind = host::FrameKind::kControl,
                   .close = host::CloseReasonName(reason)};
    link_->Publish(m);
  }
  [[nodiscard]] uint32_t ProtocolVersion() const override { return protocol_version_; }

 private:
  RelayLink* link_;  // frames are sent only while the runners run, which the link outlives
  const std::weak_ptr<RelayLink::HomeRegistry> homes_;
  const host::RelayAddress home_;
  const uint32_t protocol_version_;
};

}  // namespace

RelayLink::RelayLink(NatsBus& bus, const zone::WorldConfig& world, std::string node,
                     host::RelayCounters& counters, Sink sink)
    : bus_(bus),
      world_(world),
      node_(std::move(node)),
      counters_(counters),
      sink_(std::move(sink)) {}

std::optional<uint32_t> RelayLink::CellHere(uint32_t zone) const {
  const zone::ZoneConfig* z = world_.FindZone(zone);
  if (z == nullptr) return std::nullopt;
  for (uint32_t c = 0; c < z->cells.nodes.size(); ++c) {
    if (z->cells.nodes[c] == node_) return c;
  }
  return std::nullopt;
}

void RelayLink::Publish(RelayMessage& m) {
  const std::optional<uint32_t> here = CellHere(m.to.zone);
  if (!here) return;  // a zone this node has no cell of: nothing is relayed for it
  m.from_cell = *here;
  const std::lock_guard lock(send_mu_);
  EncodeRelay(m, node_, &scratch_, &bytes_);
  if (bus_.Publish(RelaySubject(m.to.zone, m.to.to_cell), bytes_) == BusStatus::kOk) {
    counters_.out.Add(1);
  }
}

bool RelayLink::FromHome(uint64_t session, const host::ClientInput* input) {
  zone::CellRef owner;
  {
    const std::lock_guard lock(away_mu_);
    const auto it = away_.find(session);
    if (it == away_.end()) return false;
    owner = it->second.owner;
  }
  const std::optional<uint32_t> here = CellHere(owner.zone_id);
  if (!here) return false;
  SendOn({.zone = owner.zone_id, .to_cell = owner.cell, .home_cell = *here, .session = session},
         input);
  return true;
}

void RelayLink::SendOn(const host::RelayAddress& to, const host::ClientInput* input) {
  RelayMessage m{.to = to, .what = RelayMessage::What::kLeave};
  if (input != nullptr) {
    m.what = RelayMessage::What::kInput;
    m.input = *input;
  }
  Publish(m);
}

std::shared_ptr<host::SessionSink> RelayLink::SinkAtHome(const host::RelayAddress& to,
                                                         uint32_t protocol_version) {
  homes_->Add(to.zone, host::SessionKey::Relayed(to.home_cell, to.session));
  return std::make_shared<HomeSink>(this, homes_, to, protocol_version);
}

void RelayLink::HomeRegistry::Add(uint32_t zone, host::SessionKey key) {
  const std::lock_guard lock(mu_);
  ++entries_[{.zone = zone, .key = key}].sinks;
}

void RelayLink::HomeRegistry::Forget(uint32_t zone, host::SessionKey key) {
  const std::lock_guard lock(mu_);
  const auto it = entries_.find({.zone = zone, .key = key});
  if (it != entries_.end() && --it->second.sinks == 0) entries_.erase(it);
}

void RelayLink::HomeRegistry::Notice(uint32_t zone, host::SessionKey key) {
  const std::lock_guard lock(mu_);
  const auto it = entries_.find({.zone = zone, .key = key});
  if (it != entries_.end()) ++it->second.notices;
}

uint64_t RelayLink::HomeRegistry::Notices(uint32_t zone, host::SessionKey key) const {
  const std::lock_guard lock(mu_);
  const auto it = entries_.find({.zone = zone, .key = key});
  return it == entries_.end() ? 0 : it->second.notices;
}

uint64_t RelayLink::HomeNotices(uint32_t zone, host::SessionKey key) {
  return homes_->Notices(zone, key);
}

void RelayLink::Hold(std::span<const uint64_t> sessions) {
  // By owner cell: one notice (or a few, kMaxHeldSessions each) per owner.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint64_t>> by_owner;
  {
    const std::lock_guard lock(away_mu_);
    for (const uint64_t session : sessions) {
      const auto it = away_.find(session);
      if (it == away_.end() || session == 0 || session > host::kMaxRelayedSession) continue;
      by_owner[{it->second.owner.zone_id, it->second.owner.cell}].push_back(session);
    }
  }
  for (auto& [owner, held] : by_owner) {
    const std::optional<uint32_t> here = CellHere(owner.first);
    if (!here) continue;
    for (size_t at = 0; at < held.size(); at += kMaxHeldSessions) {
      const size_t end = std::min(held.size(), at + kMaxHeldSessions);
      RelayMessage m{.to = {.zone = owner.first, .to_cell = owner.second, .home_cell = *here},
                     .what = RelayMessage::What::kHeld};
      m.sessions.assign(held.begin() + static_cast<ptrdiff_t>(at),
                        held.begin() + static_cast<ptrdiff_t>(end));
      Publish(m);
    }
  }
}

void RelayLink::Noticed(const RelayMessage& m) {
  for (const uint64_t session : m.sessions) {
    homes_->Notice(m.to.zone, host::SessionKey::Relayed(m.from_cell, session));
  }
}

void RelayLink::Away(uint64_t session, std::weak_ptr<host::SessionSink> sink, zone::CellRef owner) {
  const std::lock_guard lock(away_mu_);
  away_[session] = {.sink = std::move(sink), .owner = owner};
}

void RelayLink::Back(uint64_t session) {
  const std::lock_guard lock(away_mu_);
  away_.erase(session);
}

double RelayLink::LastFrameRelayedAt(uint64_t session) {
  const std::lock_guard lock(away_mu_);
  const auto it = away_.find(session);
  return it == away_.end() ? 0 : it->second.last_frame_s;
}

void RelayLink::Receive(std::string_view bytes) {
  RelayMessage m;
  if (const auto refused = DecodeRelay(bytes, world_, &m)) {
    counters_.refusals[static_cast<size_t>(*refused)].Add(1);
    return;
  }
  const std::optional<uint32_t> here = CellHere(m.to.zone);
  if (here != m.to.to_cell) {
    counters_.refusals[static_cast<size_t>(host::BorderRefusal::kNotSplit)].Add(1);
    return;
  }
  counters_.in.Add(1);
  if (m.what == RelayMessage::What::kFrame) {
    Deliver(m);
    return;
  }
  if (m.what == RelayMessage::What::kHeld) {
    Noticed(m);
    return;
  }
  const host::SessionKey session = m.to.home_cell == *here
                                       ? host::SessionKey::Local(m.to.session)
                                       : host::SessionKey::Relayed(m.to.home_cell, m.to.session);
  if (m.what == RelayMessage::What::kInput) {
    sink_(m.to.zone, session, std::move(m.input));
  } else {
    sink_(m.to.zone, session, std::nullopt);
  }
}

void RelayLink::Deliver(const RelayMessage& m) {
  std::shared_ptr<host::SessionSink> sink;
  if (m.to.home_cell == m.to.to_cell) {
    const std::lock_guard lock(away_mu_);
    const auto it = away_.find(m.to.session);
    if (it != away_.end()) {
      AwayClient& a = it->second;
      if (m.kind != host::FrameKind::kControl) {
        if (m.tick <= a.last_tick) {
          counters_.stale.Add(1);
          return;
        }
        a.last_tick = m.tick;
      }
      sink = a.sink.lock();
      a.owner = {.zone_id = m.to.zone, .cell = m.from_cell};  // the owner now
      a.last_frame_s = host::MonotonicSeconds();
      if (!sink) away_.erase(it);  // its connection is gone
    }
  }
  if (!sink) {  // the client left: its player's owner lets it go
    counters_.orphaned.Add(1);
    SendOn({.zone = m.to.zone,
            .to_cell = m.from_cell,
            .home_cell = m.to.home_cell,
            .session = m.to.session},
           nullptr);
    return;
  }
  if (m.close.empty()) {
    sink->DeliverFrameNow(m.frame, m.kind);  // the owner's next frame may never come
    return;
  }
  const std::optional<host::CloseReason> reason = host::CloseReasonNamed(m.close);
  sink->CloseWith(m.frame, reason.value_or(host::CloseReason::kZoneHandoff));
}

}  // namespace zs::cluster
