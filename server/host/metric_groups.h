// The metric groups: each is written by one part of the server (named above it) and handed to
// that part by reference (host/metrics.h). A figure with a family of its own is declared here
// once, with its Prometheus name and help (host/metric.h); the values of labelled families
// (by reason, direction, phase) are declared without one and rendered by Metrics.
//
// Help texts: no `\` and no newline (prometheus-cpp 1.0 writes them as they are).
#pragma once

#include <array>
#include <cstddef>

#include "host/border_port.h"
#include "host/metric.h"
#include "zone/zone_types.h"

namespace zs::host {

// net::Server: client connections open, accepted since start, refused by the caps.
struct ConnectionCounters : MetricGroup {
  Gauge open{this, {.name = "zs_connections", .help = "Open client connections."}};
  Counter accepted{this, {.name = "zs_connections_total", .help = "Client connections accepted."}};
  Counter refused{this,
                  {.name = "zs_connections_refused_total",
                   .help = "Connections refused by the connection caps."}};
};

// net::Session: bytes and frames each way; inputs dropped by the per-connection rate limits
// (counted per message on the I/O threads: shown as zs_rejected_inputs_total's
// reason="rate_limited").
struct TrafficCounters : MetricGroup {
  Counter bytes_in{this, {.name = "zs_bytes_in_total", .help = "Bytes received from clients."}};
  Counter bytes_out{this, {.name = "zs_bytes_out_total", .help = "Bytes sent to clients."}};
  Counter messages_in{this,
                      {.name = "zs_messages_in_total", .help = "Frames received from clients."}};
  Counter messages_out{this, {.name = "zs_messages_out_total", .help = "Frames sent to clients."}};
  // A send carries one frame, or held ticks and the next frame.
  Counter sends_out{this,
                    {.name = "zs_sends_out_total",
                     .help = "Socket sends to clients straight from the delivering thread "
                             "(several held ticks leave in one; limits.ticks_per_send)."}};
  Counter rate_limited_inputs;
};

// net::RunIoLoop: the socket threads' passes (a wake-up, or a handler ready at once), and of
// those the ones busy enough to gather a batch (io_batch_microseconds) before handling what was
// ready. Not counted when the batch is 0.
struct IoLoopCounters : MetricGroup {
  Counter wakeups{this,
                  {.name = "zs_io_wakeups_total",
                   .help = "Passes of the socket threads' loops: wake-ups, or handlers ready at "
                           "once (not counted when io_batch_microseconds is 0)."}};
  Counter batches{this,
                  {.name = "zs_io_batches_total",
                   .help = "Passes of the socket threads' loops busy enough to gather a batch "
                           "first (io_batch_microseconds)."}};
};

// net::SendQueue: memory held by all send queues (frames and their bookkeeping), tick frames
// dropped by a full queue, and of those the backlogs begun because all queues together passed
// the global cap.
struct SendQueueCounters : MetricGroup {
  Gauge bytes{this,
              {.name = "zs_send_queue_bytes", .help = "Memory held by all client send queues."}};
  Counter overflows{this,
                    {.name = "zs_send_queue_overflows_total",
                     .help = "Frames dropped because a send queue was full."}};
  Counter global_overflows{this,
                           {.name = "zs_send_queue_global_overflows_total",
                            .help = "Backlogs begun because all send queues together passed "
                                    "total_send_queue_bytes."}};
};

// ZoneRunner: ticks, those longer than the interval, and where tick time goes (inputs +
// simulation + views; encoding; handing out frames), in microseconds (zs_tick_phase_seconds_total
// by phase).
struct TickCounters : MetricGroup {
  Counter count;
  Counter overruns{
      this,
      {.name = "zs_tick_overruns_total", .help = "Ticks that took longer than the tick interval."}};
  Counter world_us;
  Counter encode_us;
  Counter deliver_us;
};

// ZoneRunner's overload governor: the last level set (0 = full budgets), the scale it stands
// for in thousandths (1000 = full), and the changes. Each zone also reports its own
// (Metrics::ObserveZone); zs_interest_level and zs_interest_scale show the busiest zone's.
struct InterestCounters : MetricGroup {
  Gauge level;
  Gauge scale_milli;
  Counter level_changes{
      this, {.name = "zs_interest_level_changes_total", .help = "Overload level changes."}};
};

// CharacterKeeper: clients with a player in the world; logins admitted (loaded, new or taken
// over), of those taken over from another connection; checkpoints handed to storage.
struct PlayerCounters : MetricGroup {
  Gauge online{this,
               {.name = "zs_players",
                .help = "Clients connected here with a player in the world (one away in another "
                        "cell included)."}};
  Counter logins{
      this, {.name = "zs_logins_total", .help = "Logins admitted (loaded, new or taken over)."}};
  Counter takeovers{this,
                    {.name = "zs_login_takeovers_total",
                     .help = "Logins that took a character over from another connection."}};
  Counter checkpoints{this,
                      {.name = "zs_checkpoints_total",
                       .help = "Checkpoints that handed changed characters to storage."}};
};

// CharacterKeeper: hand-offs to other servers (offered, accepted, failed: the player stayed)
// and characters that arrived here with a ticket.
struct HandoffCounters : MetricGroup {
  Counter offered{this,
                  {.name = "zs_handoffs_offered_total",
                   .help = "Players offered to the server of another zone."}};
  Counter accepted{
      this, {.name = "zs_handoffs_accepted_total", .help = "Hand-offs the other server accepted."}};
  Counter failed{this,
                 {.name = "zs_handoffs_failed_total",
                  .help = "Hand-offs refused or unanswered (the player stayed)."}};
  Counter arrived{
      this,
      {.name = "zs_handoffs_arrived_total", .help = "Characters that arrived here with a ticket."}};
};

// admin::AdminHttp: connections open, and those closed to make room at the connection cap.
struct AdminCounters : MetricGroup {
  Gauge connections{this,
                    {.name = "zs_admin_connections",
                     .help = "Open admin HTTP connections.",
                     .at_least_zero = true}};
  Counter evictions{this,
                    {.name = "zs_admin_evictions_total",
                     .help = "Admin connections closed unanswered to make room at "
                             "admin.max_connections."}};
};

// admin::ViewerHub: WebSocket viewers connected, frames sent and skipped (a slow viewer skips
// frames rather than queueing them), viewers refused at admin.max_viewers, and the tick
// thread's time spent taking snapshots for them (what a viewer costs the tick).
struct ViewerCounters : MetricGroup {
  Gauge open{
      this,
      {.name = "zs_viewers", .help = "Zone viewer WebSocket connections.", .at_least_zero = true}};
  Counter frames{this, {.name = "zs_viewer_frames_total", .help = "Frames sent to zone viewers."}};
  Counter skipped{
      this,
      {.name = "zs_viewer_frames_skipped_total",
       .help = "Viewer frames replaced by a newer one before a slow viewer took them."}};
  Counter refused{this,
                  {.name = "zs_viewers_refused_total",
                   .help = "Viewer connections refused at admin.max_viewers."}};
  Counter snapshot_us{this,
                      {.name = "zs_viewer_snapshot_seconds_total",
                       .help = "Tick thread time spent taking zone viewer snapshots.",
                       .scale = 1e-6}};
};

// A split zone's border (docs/seamless.md): ghosts held and sent by the runners, batches taken
// and refused (by the zone: zone::GhostVerdict; before it: BorderRefusal), and the bytes the
// cluster link moved.
struct BorderCounters : MetricGroup {
  Gauge ghosts_held{
      this,
      {.name = "zs_ghosts", .help = "Ghosts held: neighbouring cells' entities near the border."}};
  Gauge players_real{this,
                     {.name = "zs_players_real",
                      .help = "Players simulated on this node (a player that crossed a cell "
                              "border counts at its owner only, its client at its home)."}};
  Counter ghosts_sent{this,
                      {.name = "zs_ghosts_sent_total",
                       .help = "Entities listed in the border batches sent to neighbouring "
                               "cells."}};
  Counter batches_sent{this,
                       {.name = "zs_border_batches_sent_total",
                        .help = "Border batches published to neighbouring cells."}};
  Counter bytes_sent{
      this, {.name = "zs_border_bytes_sent_total", .help = "Bytes of border batches published."}};
  Counter bytes_received{
      this,
      {.name = "zs_border_bytes_received_total", .help = "Bytes of border batches received."}};
  Counter silent_neighbours{this,
                            {.name = "zs_border_silent_total",
                             .help = "Times a silent neighbour's ghosts were dropped."}};
  Counter emigrants;   // monsters and players handed to a neighbouring cell
  Counter immigrants;  // ... taken from one (in the batches taken)
  std::array<Counter, static_cast<size_t>(zone::GhostVerdict::kCount)> verdicts;
  std::array<Counter, static_cast<size_t>(BorderRefusal::kCount)> refusals;
  // From a batch's sending to the tick that makes its migrants real here, per migrant (the
  // nodes' wall clocks; a batch whose stamp is ahead of ours or a minute old is not counted).
  TickHistogram migration_latency;
};

// The relay of migrated players' clients (docs/seamless.md "Relay"): written by the cluster's
// RelayLink and the runners' ClientRelay.
struct RelayCounters : MetricGroup {
  Counter out;  // messages sent: inputs and leavings to owners, frames to homes
  Counter in;   // messages taken
  Counter orphaned{this,
                   {.name = "zs_relay_orphaned_total",
                    .help = "Relayed frames for a client no longer here (its player's owner is "
                            "told it left)."}};
  Counter stale;  // tick frames not newer than the last its client got: dropped
  Counter homes_silent{this,
                       {.name = "zs_relay_homes_silent_total",
                        .help = "Players whose home told nothing of their client for 2 s: saved "
                                "here and let go."}};
  std::array<Counter, static_cast<size_t>(BorderRefusal::kCount)> refusals;
};

// A split zone's `zone` chat between its cells: lines sent (once per receiving cell) and taken,
// what the runner's world made of each message, and refusals before it.
struct CellChatCounters : MetricGroup {
  Counter lines_out;
  Counter lines_in;
  std::array<Counter, static_cast<size_t>(zone::GhostVerdict::kCount)> verdicts;
  std::array<Counter, static_cast<size_t>(BorderRefusal::kCount)> refusals;
};

}  // namespace zs::host
