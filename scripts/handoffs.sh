#!/usr/bin/env bash
# Hand-offs per second between two zone_server processes (issue 9): starts everything itself on
# loopback in a temp dir (nats-server -js with its own store, a PostgreSQL cluster from initdb on a
# unix socket, one node hosting each zone of config/worlds/handoffs/, whose bots hop back as soon
# as they arrive), then for each bot count runs client_sim's `zones` scenario against the first
# node and prints one table row: hand-offs/s (zs_handoffs_accepted_total of both nodes over the
# steady window), failed hand-offs, client_sim's hand-off latency p50/p99 (last tick in the old
# zone -> first tick from the new node), and the CPU each process used over the same window (from
# /proc/PID/stat utime + stime; postgres: the postmaster and all its children), so it shows which
# side saturated. Everything shares this machine's cores: "CPU % all" is those five together, and
# "CPU % other processes" the rest of the machine's busy time over the window (/proc/stat), which
# says whether something else (a build) was competing for the cores.
#
#   scripts/handoffs.sh [--bots "100 200 400"] [--duration 20] [--verify-every 10]
#                       [--pg-fsync on|off] [--build-dir DIR]
#
# --bots: one run (and one row) per count, on the same servers. --duration: the measured window
# per row, after the ramp-up (one second) and 3 s of settling. --verify-every K: one bot in K
# parses and checks every message (client_sim), the others only tick numbers and positions.
# --pg-fsync: PostgreSQL's fsync (on: its default, each storage batch is one durable commit; off:
# what the tests use). --build-dir: binaries already built there (zone_server, client_sim);
# without it, scripts/build.sh builds build/release. As root, PostgreSQL runs as user postgres
# (initdb refuses root), as tests/support/postgres_server.h does.
#
# Each hand-off also saves the character at once on the receiving node (storage batches those
# saves). Hand-off latency is over the whole client_sim run of the row (ramp-up included).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh
# shellcheck source=scripts/lib/server.sh
source scripts/lib/server.sh
# shellcheck source=scripts/lib/metrics.sh
source scripts/lib/metrics.sh
# shellcheck source=scripts/lib/cluster.sh
source scripts/lib/cluster.sh

bots_list="100 200 400"
duration=20
verify_every=10
pg_fsync=on
build_dir=""
usage="usage: scripts/handoffs.sh [--bots \"100 200 400\"] [--duration S] [--verify-every K] [--pg-fsync on|off] [--build-dir DIR]"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bots) bots_list="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --verify-every) verify_every="$2"; shift 2 ;;
    --pg-fsync) pg_fsync="$2"; shift 2 ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
[[ "$pg_fsync" == on || "$pg_fsync" == off ]] || { echo "$usage" >&2; exit 2; }
if [[ -z "$build_dir" ]]; then
  scripts/build.sh
  build_dir=build/release
fi
server_bin="$build_dir/server/app/zone_server"
sim_bin="$build_dir/client_sim/client_sim"
for bin in "$server_bin" "$sim_bin"; do
  [[ -x "$bin" ]] || { echo "handoffs: $bin not found" >&2; exit 1; }
done

work=$(mktemp -d)
node_pids=() sim_pid=""
cleanup() {
  local pid
  for pid in "$sim_pid" "${node_pids[@]}"; do
    if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null || true; fi
  done
  for pid in "${node_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  zs_cluster_stop "$work"
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
zs_cluster_start "$work" "$pg_fsync" || { echo "handoffs: cannot start NATS and PostgreSQL" >&2; exit 1; }
nats_pid=$ZS_NATS_PID nats_url=$ZS_NATS_URL

# The two nodes: `ping` (zone 1, where the bots log in) and `pong` (zone 2).
world=$(pwd)/config/worlds/handoffs/world.yaml
ports=() admins=()
start_node() {  # $1: the zone (and the node is "$1-a")
  cat >"$work/$1.yaml" <<EOF
listen: {address: 127.0.0.1, port: 0}
admin: {address: 127.0.0.1, port: 0}
world: $world
io_threads: 2
log_level: info
stats_interval_seconds: 10
limits: {max_connections: 20000, max_connections_per_ip: 20000}
storage: {backend: postgres, postgres: "$ZS_PG_CONNINFO"}
cluster: {nats_url: "$nats_url", node: $1-a, public_address: "127.0.0.1:0", zones: [$1]}
EOF
  zs_start_server "$work/$1.ports" "$work/$1.log" "$server_bin" --config "$work/$1.yaml"
  node_pids+=("$ZS_SERVER_PID")
  zs_wait_port_file "$work/$1.ports" ||
    { echo "handoffs: node $1 did not start" >&2; cat "$work/$1.log" >&2; exit 1; }
  sleep 0.1  # the file fully written
  local port admin
  read -r port admin _ <"$work/$1.ports"
  ports+=("$port") admins+=("$admin")
}
start_node ping
start_node pong

# Tick-duration histogram of admin port $1: "le count" lines, cumulative.
buckets() { zs_histogram_buckets "$1" zs_tick_duration_seconds; }
# The sum of metric $1 over both nodes (scripts/lib/metrics.sh reads each node's /metrics).
both() {
  awk -v a="$(zs_metric "${admins[0]}" "$1")" -v b="$(zs_metric "${admins[1]}" "$1")" \
    'BEGIN { printf "%d\n", a + b }'
}
# CPU clock ticks (utime + stime) process $1 has used so far; 0 when it is gone.
cpu_ticks() { zs_cpu_ticks "$1" 0; }
# "ping pong nats postgres client_sim machine" CPU ticks, now.
all_ticks() {
  echo "$(cpu_ticks "${node_pids[0]}") $(cpu_ticks "${node_pids[1]}") $(cpu_ticks "$nats_pid")" \
    "$(zs_pg_ticks) $(cpu_ticks "$sim_pid") $(zs_machine_ticks)"
}

echo "== $(nproc) cores; load average at the start:$(uptime | sed 's/.*load average://');" \
  "nats $nats_url; postgres fsync=$pg_fsync; nodes ping-a :${ports[0]}, pong-a :${ports[1]}" >&2
table="| bots | hand-offs/s | failed | latency p50 (ms) | latency p99 (ms) | CPU % ping node | CPU % pong node | CPU % nats-server | CPU % postgres | CPU % client_sim | CPU % all | CPU % other processes | tick p99 ping / pong (ms) | violations |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
echo "$table"
hz=$(getconf CLK_TCK)
settle=3
for bots in $bots_list; do
  "$sim_bin" --port "${ports[0]}" --bots "$bots" --ramp "$bots" \
    --duration "$(( settle + duration + 2 ))" --scenario zones --threads "$(nproc)" \
    --verify-every "$verify_every" --max-violations 1000000000 --max-failed-logins 1000000000 \
    --report "$work/report.json" >"$work/sim.log" 2>&1 &
  sim_pid=$!
  sleep $(( 1 + settle ))
  a0=$(both zs_handoffs_accepted_total) f0=$(both zs_handoffs_failed_total)
  r0=$(both zs_storage_rows_saved_total) b0=$(both zs_storage_flushes_total)
  buckets "${admins[0]}" >"$work/ping.b0"
  buckets "${admins[1]}" >"$work/pong.b0"
  c0=$(all_ticks) t0=$EPOCHREALTIME
  sleep "$duration"
  a1=$(both zs_handoffs_accepted_total) f1=$(both zs_handoffs_failed_total)
  r1=$(both zs_storage_rows_saved_total) b1=$(both zs_storage_flushes_total)
  c1=$(all_ticks) t1=$EPOCHREALTIME
  buckets "${admins[0]}" >"$work/ping.b1"
  buckets "${admins[1]}" >"$work/pong.b1"
  tick_ping=$(zs_p99_ms "$work/ping.b0" "$work/ping.b1")
  tick_pong=$(zs_p99_ms "$work/pong.b0" "$work/pong.b1")
  wait "$sim_pid" || true
  sim_pid=""
  grep -A20 '^client_sim zones' "$work/sim.log" >&2 || tail -5 "$work/sim.log" >&2
  echo "  storage (both nodes, the window): $(( r1 - r0 )) characters saved in $(( b1 - b0 ))" \
    "batches (a hand-off saves the character at once on the node that takes it); load" \
    "average now:$(uptime | sed 's/.*load average://')" >&2
  read -r p50 p99 violations < <(jq -r '[.handoffs.latency_ms.p50, .handoffs.latency_ms.p99,
    .violations_total] | map(if type == "number" then . else "n/a" end) | @tsv' \
    "$work/report.json" 2>/dev/null || echo "n/a n/a n/a")
  awk -v bots="$bots" -v a0="$a0" -v a1="$a1" -v f0="$f0" -v f1="$f1" -v t0="$t0" -v t1="$t1" \
    -v c0="$c0" -v c1="$c1" -v hz="$hz" -v p50="$p50" -v p99="$p99" -v v="$violations" \
    -v tick="$tick_ping / $tick_pong" 'BEGIN {
      wall = t1 - t0
      split(c0, x, " "); split(c1, y, " ")
      row = sprintf("| %d | **%.0f** | %d | %s | %s |", bots, (a1 - a0) / wall, f1 - f0,
                    p50 == "n/a" ? p50 : sprintf("%.1f", p50),
                    p99 == "n/a" ? p99 : sprintf("%.1f", p99))
      all = 0
      for (i = 1; i <= 5; i++) {
        pct = 100 * (y[i] - x[i]) / hz / wall; all += pct
        row = row sprintf(" %.0f |", pct)
      }
      other = 100 * (y[6] - x[6]) / hz / wall - all  # other processes: a build, a test...
      print row sprintf(" %.0f | %.0f | %s | %s |", all, other < 0 ? 0 : other, tick, v) }'
  sleep 3  # the bots log out; their characters are saved
done
echo "(CPU %: over the ${duration} s window, 100% = one core; $(nproc) cores here. Command: scripts/handoffs.sh --bots \"$bots_list\" --duration $duration --verify-every $verify_every --pg-fsync $pg_fsync)" >&2
