// ViewerHub: the zone viewer's server side. It admits viewer WebSockets (at most
// `max_viewers`), takes snapshots of the zones they watch on the tick thread, and has them
// encoded and sent on the admin I/O threads.
//
// Cost to the tick: nothing but one atomic load while no viewer is connected. With viewers, each
// tick copies the swings of the watched zones (a few dozen small records) and, every
// `frame_interval_seconds` (10 Hz by default), a snapshot of each watched zone (viewer_frame.h:
// entities, quadtree nodes, selected players' interest sets) into a new ViewerSnapshot, handed
// to the I/O side as a shared_ptr<const>: the tick never encodes, never waits for a socket, and
// never holds the hub's lock for more than copying a few small fields. Each snapshot is encoded
// once and the same bytes go to every viewer of that zone (latest frame wins per viewer:
// viewer_session.h). zs_viewer_snapshot_seconds_total counts the tick thread's time here.
//
// Zones: the hub serves the zones this process hosts (its runners'), not the whole world: on a
// cluster node the hello lists only those, and a `zone <id>` for a zone of the world hosted
// elsewhere is refused (1008, kZoneNotHostedHere), as is an id the world does not have (1008,
// kUnknownZone). Each frame carries its own zone's last tick time, as that zone's runner measured
// it (TickTiming), not whichever runner ticked last.
//
// Frame rate: a snapshot every FrameIntervalTicks ticks, rounded up, so frames never come more
// often than `frame_interval_seconds` (at 12 ticks/s: every 2 ticks, 6 Hz, not every tick); the
// hello's frame_hz is the resulting rate.
//
// Threads: TryAdmit and the sessions' hooks on I/O threads. Each zone runner has a tap of its
// own (NewTap), called on that runner's thread after its ticks, keeping that runner's buffers;
// the viewer list is guarded by mu_. The hub must outlive the io_context's run and the runners.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "admin/viewer_command.h"
#include "admin/viewer_frame.h"
#include "host/metrics.h"
#include "host/tick_observer.h"
#include "zone/world_config.h"

namespace zs::admin {

class ViewerSession;

class ViewerHub {
 public:
  struct Options {
    size_t max_viewers = 4;               // admin.max_viewers
    double stall_seconds = 5;             // admin.viewer_stall_seconds: a write not taken
    double frame_interval_seconds = 0.1;  // at most 10 frames a second
  };
  // Swings kept per zone between two snapshots (a burst beyond it is not drawn).
  static constexpr size_t kMaxSwingsPerFrame = 4096;

  // Close reasons of a refused `zone <id>` (sent to the page as the WebSocket close reason).
  static constexpr const char* kUnknownZone = "unknown zone id";
  static constexpr const char* kZoneNotHostedHere = "zone not hosted by this server";

  // `hosted`: the ids of the zones this process ticks (its runners'; empty: every zone of
  // `world`). Only those are offered to viewers. Throws std::invalid_argument when none of them
  // is a zone of `world`. `cells`: the cell this process simulates of each split zone it hosts
  // (none: it hosts them whole), told to the viewers so they draw the cells' borders.
  ViewerHub(boost::asio::io_context& io, const zone::WorldConfig& world, host::Metrics* metrics,
            Options options, std::span<const uint32_t> hosted = {},
            std::span<const zone::HostedCell> cells = {});
  ~ViewerHub();
  ViewerHub(const ViewerHub&) = delete;
  ViewerHub& operator=(const ViewerHub&) = delete;

  // Takes over `stream` and completes the WebSocket upgrade `request` (I/O thread). False, with
  // both left as they were, when max_viewers are connected (the caller answers 503).
  bool TryAdmit(boost::beast::tcp_stream& stream,
                boost::beast::http::request<boost::beast::http::string_body>& request);
  // Closes every viewer (shutdown).
  void CloseAll();
  [[nodiscard]] size_t max_viewers() const { return options_.max_viewers; }

  // What a zone runner calls after each tick (one tap per runner: a tap is not thread-safe).
  [[nodiscard]] std::unique_ptr<host::TickObserver> NewTap();

  // Ticks between two snapshots: `frame_interval_seconds` at `tick_rate`, rounded up (at least
  // 1), so that the frame rate never exceeds 1 / frame_interval_seconds.
  [[nodiscard]] static uint64_t FrameIntervalTicks(double frame_interval_seconds,
                                                   uint32_t tick_rate);

 private:
  struct Viewer {
    std::weak_ptr<ViewerSession> session;
    size_t zone = 0;        // index into the world's zones
    uint32_t selected = 0;  // raw entity id; 0: none
    bool paused = false;
  };
  class Tap;
  struct Watch {  // what the viewers want of one zone this tick (tick thread's copy)
    bool wanted = false;
    std::vector<uint32_t> selected;
  };
  struct ZoneBuffer {  // tick thread only: swings and bytes since the last snapshot
    std::vector<ViewerSwing> swings;
    std::vector<ViewerHit> hits;
    std::map<uint32_t, uint64_t> bytes;  // by selected player
  };

  const char* OnCommand(uint64_t id, const ViewerCommand& c);
  void OnClosed(uint64_t id);
  // The hello message (JSON): the zones of `world` in `zone_ids` (id, name, bounds and, for a
  // split zone, its cells: columns, rows, each cell's node, and the one simulated here when
  // `cells` names one), the tick rate and the frame rate.
  static std::string Hello(const zone::WorldConfig& world, const std::vector<uint32_t>& zone_ids,
                           std::span<const zone::HostedCell> cells, uint64_t interval_ticks);
  // Fills `watch` (by the hub's zone index) from the viewers' choices.
  void CopyWatches(std::vector<Watch>* watch);
  void Broadcast(size_t zone, const std::shared_ptr<const ViewerSnapshot>& snapshot);

  boost::asio::io_context& io_;
  const std::vector<uint32_t> zone_ids_;   // by zone index: the hosted zones, in world order
  const std::vector<uint32_t> elsewhere_;  // zones of the world hosted by other servers
  const uint64_t interval_ticks_ = 1;      // ticks between two snapshots
  const std::string hello_;                // the first message to every viewer
  host::Metrics* metrics_;
  const Options options_;
  std::atomic<size_t> count_{0};
  std::mutex mu_;
  std::map<uint64_t, Viewer> viewers_;  // guarded by mu_
  uint64_t next_id_ = 1;                // guarded by mu_

  // Snapshots come back here when the I/O side drops them (a shared_ptr deleter, on whichever
  // thread lets go last) and are reused, so that a snapshot does not allocate and first-touch
  // ~150 KB on the tick thread every 100 ms. Shared with the deleters: it outlives the hub.
  struct SnapshotPool {
    std::mutex mu;
    std::vector<std::unique_ptr<ViewerSnapshot>> free;  // guarded by mu
  };
  static constexpr size_t kMaxPooledSnapshots = 8;
  std::shared_ptr<ViewerSnapshot> NewSnapshot();
  std::shared_ptr<SnapshotPool> pool_ = std::make_shared<SnapshotPool>();
};

}  // namespace zs::admin
