#include "admin/viewer_hub.h"

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>

#include "admin/viewer_session.h"
#include "host/frame_fanout.h"

namespace zs::admin {

namespace {

// The ids of the zones of `world` that are (`in` true) or are not in `hosted` (empty: all of
// them), in the world's order.
std::vector<uint32_t> ZoneIds(const zone::WorldConfig& world, std::span<const uint32_t> hosted,
                              bool in) {
  std::vector<uint32_t> ids;
  for (const zone::ZoneConfig& z : world.zones) {
    const bool here =
        hosted.empty() || std::find(hosted.begin(), hosted.end(), z.id) != hosted.end();
    if (here == in) ids.push_back(z.id);
  }
  return ids;
}

}  // namespace

ViewerHub::ViewerHub(boost::asio::io_context& io, const zone::WorldConfig& world,
                     host::Metrics* metrics, Options options, std::span<const uint32_t> hosted,
                     std::span<const zone::HostedCell> cells)
    : io_(io),
      zone_ids_(ZoneIds(world, hosted, true)),
      elsewhere_(ZoneIds(world, hosted, false)),
      interval_ticks_(FrameIntervalTicks(options.frame_interval_seconds, world.tick_rate)),
      hello_(Hello(world, zone_ids_, cells, interval_ticks_)),
      metrics_(metrics),
      options_(options) {
  if (zone_ids_.empty()) {  // a viewer's zone index must point at a zone
    throw std::invalid_argument("ViewerHub: none of the hosted zones is a zone of the world");
  }
}

ViewerHub::~ViewerHub() = default;

uint64_t ViewerHub::FrameIntervalTicks(double frame_interval_seconds, uint32_t tick_rate) {
  // Rounded up, less a hair so that 0.1 s at 30 ticks/s (3.0000000000000004 in doubles) is 3.
  const double ticks = std::ceil(frame_interval_seconds * tick_rate - 1e-9);
  return ticks < 1 ? 1 : static_cast<uint64_t>(ticks);
}

std::string ViewerHub::Hello(const zone::WorldConfig& world, const std::vector<uint32_t>& zone_ids,
                             std::span<const zone::HostedCell> cells, uint64_t interval_ticks) {
  nlohmann::ordered_json zones = nlohmann::ordered_json::array();
  for (const zone::ZoneConfig& z : world.zones) {
    if (std::find(zone_ids.begin(), zone_ids.end(), z.id) == zone_ids.end()) continue;
    nlohmann::ordered_json zone = {
        {"id", z.id},
        {"name", z.name},
        {"bounds", {z.bounds.min.x, z.bounds.min.y, z.bounds.max.x, z.bounds.max.y}}};
    if (z.cells.split()) {
      zone["cells"] = {
          {"columns", z.cells.columns}, {"rows", z.cells.rows}, {"nodes", z.cells.nodes}};
      for (const zone::HostedCell& c : cells) {
        if (c.zone_id == z.id) zone["cells"]["own"] = c.cell;
      }
    }
    zones.push_back(std::move(zone));
  }
  const nlohmann::ordered_json hello = {
      {"type", "hello"},
      {"tick_rate", world.tick_rate},
      {"frame_hz", static_cast<double>(world.tick_rate) / static_cast<double>(interval_ticks)},
      {"zones", std::move(zones)}};
  // Names come from config files: replaced, never thrown on, if not UTF-8.
  return hello.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

bool ViewerHub::TryAdmit(boost::beast::tcp_stream& stream,
                         boost::beast::http::request<boost::beast::http::string_body>& request) {
  uint64_t id = 0;
  {
    std::lock_guard lock(mu_);
    if (viewers_.size() >= options_.max_viewers) {
      metrics_->viewers().refused.Add(1);
      return false;
    }
    id = next_id_++;
    viewers_[id] = Viewer{};  // holds the place (no session yet: skipped by Broadcast)
  }
  auto session = std::make_shared<ViewerSession>(
      std::move(stream), options_.stall_seconds, metrics_,
      ViewerSession::Hooks{
          .on_command = [this, id](const ViewerCommand& c) { return OnCommand(id, c); },
          .on_closed = [this, id] { OnClosed(id); }});
  {
    std::lock_guard lock(mu_);
    viewers_[id].session = session;
    count_.store(viewers_.size(), std::memory_order_relaxed);
  }
  metrics_->viewers().open.Add(1);
  session->Start(std::move(request), hello_);
  return true;
}

const char* ViewerHub::OnCommand(uint64_t id, const ViewerCommand& c) {
  std::lock_guard lock(mu_);
  const auto it = viewers_.find(id);
  if (it == viewers_.end()) return nullptr;
  Viewer& v = it->second;
  switch (c.kind) {
    case ViewerCommand::Kind::kZone: {
      const auto z = std::find(zone_ids_.begin(), zone_ids_.end(), c.value);
      if (z == zone_ids_.end()) {
        const bool elsewhere =
            std::find(elsewhere_.begin(), elsewhere_.end(), c.value) != elsewhere_.end();
        return elsewhere ? kZoneNotHostedHere : kUnknownZone;
      }
      v.zone = static_cast<size_t>(z - zone_ids_.begin());
      v.selected = 0;
      break;
    }
    case ViewerCommand::Kind::kSelect:
      v.selected = c.value;
      break;
    case ViewerCommand::Kind::kPause:
      v.paused = true;
      break;
    case ViewerCommand::Kind::kResume:
      v.paused = false;
      break;
  }
  return nullptr;
}

void ViewerHub::OnClosed(uint64_t id) {
  std::lock_guard lock(mu_);
  if (viewers_.erase(id) == 0) return;
  count_.store(viewers_.size(), std::memory_order_relaxed);
  metrics_->viewers().open.Sub(1);
}

void ViewerHub::CloseAll() {
  std::vector<std::shared_ptr<ViewerSession>> sessions;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, v] : viewers_) {
      if (auto s = v.session.lock()) sessions.push_back(std::move(s));
    }
  }
  for (const auto& s : sessions) s->Close();
}

void ViewerHub::CopyWatches(std::vector<Watch>* watch) {
  watch->resize(zone_ids_.size());
  for (Watch& w : *watch) {
    w.wanted = false;
    w.selected.clear();
  }
  std::lock_guard lock(mu_);
  for (const auto& [id, v] : viewers_) {
    if (v.paused) continue;
    (*watch)[v.zone].wanted = true;
    if (v.selected != 0) (*watch)[v.zone].selected.push_back(v.selected);
  }
}

// One zone runner's side of the hub: the swings and bytes of its zones since the last
// snapshot, and the snapshots themselves, taken on that runner's thread.
class ViewerHub::Tap : public host::TickObserver {
 public:
  explicit Tap(ViewerHub* hub) : hub_(hub) {}
  void AfterTick(const zone::World& world, const host::FrameFanout& fanout,
                 const host::TickTiming& timing) override;

 private:
  void Map(const zone::World& world);
  void Accumulate(const zone::World& world, const host::FrameFanout& fanout);
  std::shared_ptr<ViewerSnapshot> Capture(const zone::World& world, size_t z, uint64_t ticks);

  static constexpr size_t kNotServed = SIZE_MAX;  // a zone the hub does not offer

  ViewerHub* hub_;
  std::vector<size_t> hub_zone_;     // the hub's zone index of each of the world's zones
  std::vector<Watch> watch_;         // by the hub's zone index
  std::vector<ZoneBuffer> buffers_;  // by the world's zone index
  uint64_t last_capture_tick_ = 0;
  host::TickTiming timing_ = {};  // this tap's runner's, as of the last AfterTick
};

std::unique_ptr<host::TickObserver> ViewerHub::NewTap() { return std::make_unique<Tap>(this); }

void ViewerHub::Tap::Map(const zone::World& world) {
  if (hub_zone_.size() == world.zone_count()) return;
  hub_zone_.clear();
  for (size_t z = 0; z < world.zone_count(); ++z) {
    const auto id =
        std::find(hub_->zone_ids_.begin(), hub_->zone_ids_.end(), world.zone(z).config().id);
    hub_zone_.push_back(id == hub_->zone_ids_.end()
                            ? kNotServed
                            : static_cast<size_t>(id - hub_->zone_ids_.begin()));
  }
  buffers_.resize(world.zone_count());
}

void ViewerHub::Tap::Accumulate(const zone::World& world, const host::FrameFanout& fanout) {
  for (size_t z = 0; z < world.zone_count(); ++z) {
    if (hub_zone_[z] == kNotServed) continue;
    const Watch& w = watch_[hub_zone_[z]];
    if (!w.wanted) continue;
    ZoneBuffer& b = buffers_[z];
    CollectSwings(world, z, kMaxSwingsPerFrame, &b.swings, &b.hits);
    const std::vector<zone::PlayerView>& views = world.output(z).views;
    for (const uint32_t id : w.selected) {
      for (size_t v = 0; v < views.size(); ++v) {
        if (ToRaw(views[v].player) == id) b.bytes[id] += fanout.FrameBytes(z, v);
      }
    }
  }
}

void ViewerHub::Tap::AfterTick(const zone::World& world, const host::FrameFanout& fanout,
                               const host::TickTiming& timing) {
  timing_ = timing;
  if (hub_->count_.load(std::memory_order_relaxed) == 0) {
    last_capture_tick_ = 0;
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  Map(world);
  hub_->CopyWatches(&watch_);
  Accumulate(world, fanout);
  if (last_capture_tick_ == 0) last_capture_tick_ = world.tick() - hub_->interval_ticks_;
  const uint64_t ticks = world.tick() - last_capture_tick_;
  if (ticks >= hub_->interval_ticks_) {
    last_capture_tick_ = world.tick();
    for (size_t z = 0; z < world.zone_count(); ++z) {
      ZoneBuffer& b = buffers_[z];
      if (hub_zone_[z] != kNotServed && watch_[hub_zone_[z]].wanted) {
        std::shared_ptr<const ViewerSnapshot> snapshot = Capture(world, z, ticks);
        boost::asio::post(hub_->io_, [hub = hub_, zone = hub_zone_[z], snapshot] {
          hub->Broadcast(zone, snapshot);
        });
      }
      b.swings.clear();
      b.hits.clear();
      b.bytes.clear();
    }
  }
  const auto us =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
  hub_->metrics_->viewers().snapshot_us.Add(static_cast<uint64_t>(us.count()));
}

std::shared_ptr<ViewerSnapshot> ViewerHub::NewSnapshot() {
  std::unique_ptr<ViewerSnapshot> s;
  {
    std::lock_guard lock(pool_->mu);
    if (!pool_->free.empty()) {
      s = std::move(pool_->free.back());
      pool_->free.pop_back();
    }
  }
  if (!s) s = std::make_unique<ViewerSnapshot>();
  s->swings.clear();
  s->hits.clear();
  s->selections.clear();
  return {s.release(), [pool = pool_](ViewerSnapshot* done) {
            std::unique_ptr<ViewerSnapshot> owned(done);
            std::lock_guard lock(pool->mu);
            if (pool->free.size() < kMaxPooledSnapshots) pool->free.push_back(std::move(owned));
          }};
}

std::shared_ptr<ViewerSnapshot> ViewerHub::Tap::Capture(const zone::World& world, size_t z,
                                                        uint64_t ticks) {
  std::shared_ptr<ViewerSnapshot> s = hub_->NewSnapshot();
  CaptureZone(world, z, s.get());
  ZoneBuffer& b = buffers_[z];
  s->swings.swap(b.swings);
  s->hits.swap(b.hits);
  // This zone runner's own measure (TickTiming), not a process-wide one.
  s->tick_ms = static_cast<float>(timing_.last_tick_seconds * 1000);
  const host::Metrics& m = *hub_->metrics_;
  s->connections = static_cast<uint32_t>(m.connections().open.value());
  s->bytes_out = m.traffic().bytes_out.value();
  for (const uint32_t id : watch_[hub_zone_[z]].selected) {
    ViewerSelection& sel = s->selections.emplace_back();
    CaptureSelection(world, z, id, &sel);
    const auto it = b.bytes.find(id);
    const double bytes = it == b.bytes.end() ? 0.0 : static_cast<double>(it->second);
    sel.bytes_per_s =
        static_cast<float>(bytes * world.config().tick_rate / static_cast<double>(ticks));
  }
  return s;
}

void ViewerHub::Broadcast(size_t zone, const std::shared_ptr<const ViewerSnapshot>& snapshot) {
  std::vector<std::shared_ptr<ViewerSession>> to;
  {
    std::lock_guard lock(mu_);
    for (const auto& [id, v] : viewers_) {
      if (v.zone != zone || v.paused) continue;
      if (auto s = v.session.lock()) to.push_back(std::move(s));
    }
  }
  if (to.empty()) return;
  auto frame = std::make_shared<const std::string>(EncodeViewerFrame(*snapshot));
  for (const auto& s : to) s->Offer(frame);
}

}  // namespace zs::admin
