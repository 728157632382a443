#!/usr/bin/env bash
# A crowd straddling a cell border (issue 22, docs/seamless.md): the field of
# config/worlds/border/ hosted whole by one zone_server, then split in two cells on two nodes
# (NATS and PostgreSQL started here: scripts/lib/cluster.sh), each time with two client_sims of
# half the bots each, one per node, running `crowd` (every bot walks to the zone's centre: the
# border) or `border` (--scenario border: every bot walks back and forth across it, so players
# migrate and their clients are relayed). One table row per layout and bot count: tick p99 of
# each server, the CPU each process used over the same window (/proc/PID/stat; 100% = one core),
# the ghosts held at the end, the border's bytes per second and bytes per ghost sent,
# migrations per second (both nodes' `out`) and their latency (p50 / p99 of each node's
# zs_migration_latency_seconds: from the sender's publishing to the tick that makes a migrant
# real), relay messages per second, how long a skill took to
# be answered (p50 / p99, client_sim's answer_ms: through the relay when the player is away
# from its client's node), and client_sim's protocol violations.
#
#   scripts/border.sh [--bots "400 1000"] [--duration 20] [--verify-every 10]
#                     [--scenario crowd|border] [--build-dir DIR]
#
# --build-dir: binaries already built there (zone_server, client_sim); without it,
# scripts/build.sh builds build/release.
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

bots_list="400 1000"
duration=20
verify_every=10
build_dir=""
scenario=crowd
usage="usage: scripts/border.sh [--bots \"400 1000\"] [--duration S] [--verify-every K] [--scenario crowd|border] [--build-dir DIR]"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bots) bots_list="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --verify-every) verify_every="$2"; shift 2 ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    --scenario) scenario="$2"; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
if [[ -z "$build_dir" ]]; then
  scripts/build.sh
  build_dir=build/release
fi
server_bin="$build_dir/server/app/zone_server"
sim_bin="$build_dir/client_sim/client_sim"
for bin in "$server_bin" "$sim_bin"; do
  [[ -x "$bin" ]] || { echo "border: $bin not found" >&2; exit 1; }
done

work=$(mktemp -d)
node_pids=() sim_pids=()
stop_nodes() {
  local pid
  for pid in "${sim_pids[@]}" "${node_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${sim_pids[@]}" "${node_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  node_pids=() sim_pids=()
}
cleanup() {
  stop_nodes
  zs_cluster_stop "$work"
  wait 2>/dev/null || true
  [[ -n "${ZS_KEEP:-}" ]] || rm -rf "$work"
}
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
zs_cluster_start "$work" off || { echo "border: cannot start NATS and PostgreSQL" >&2; exit 1; }

world=$(pwd)/config/worlds/border/world.yaml
ports=() admins=()
# start_node NAME STORAGE [CLUSTER]: a zone_server called NAME (its files in $work/NAME.*).
start_node() {
  cat >"$work/$1.yaml" <<YAML
listen: {address: 127.0.0.1, port: 0}
admin: {address: 127.0.0.1, port: 0}
world: $world
io_threads: 2
log_level: info
stats_interval_seconds: 10
limits: {max_connections: 20000, max_connections_per_ip: 20000}
storage: $2
${3:-}
YAML
  zs_start_server "$work/$1.ports" "$work/$1.log" "$server_bin" --config "$work/$1.yaml"
  node_pids+=("$ZS_SERVER_PID")
  zs_wait_port_file "$work/$1.ports" ||
    { echo "border: node $1 did not start" >&2; cat "$work/$1.log" >&2; exit 1; }
  sleep 0.1  # the file fully written
  local port admin
  read -r port admin _ <"$work/$1.ports"
  ports+=("$port") admins+=("$admin")
}
cpu() { zs_cpu_ticks "$1" 0; }
metric() { local v; v=$(zs_metric "$1" "$2"); echo "${v:-0}"; }
hz=$(getconf CLK_TCK)
settle=5

echo "| bots | layout | tick p99 (ms) | CPU % servers | CPU % nats + postgres | CPU % client_sims | ghosts held | border KB/s | bytes per ghost | migrations/s | migration latency p50 / p99 (ms) | relay msgs/s | answer p50 / p99 (ms) | violations | players left (clients / real) |"
echo "|---:|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|---|---:|---|"
for bots in $bots_list; do
  half=$(( bots / 2 ))
  for layout in whole cells; do
    ports=() admins=()
    if [[ $layout == whole ]]; then
      start_node whole "{backend: sqlite, path: $work/whole-$bots.db}"
      targets=("${ports[0]}" "${ports[0]}")
    else
      for node in west east; do
        start_node "$node-$bots" "{backend: postgres, postgres: \"$ZS_PG_CONNINFO\"}" \
          "cluster: {nats_url: \"$ZS_NATS_URL\", node: $node, public_address: \"127.0.0.1:0\", zones: [field]}"
      done
      targets=("${ports[0]}" "${ports[1]}")
    fi
    for i in 0 1; do
      "$sim_bin" --port "${targets[$i]}" --bots "$half" --first-bot $(( i * half )) \
        --ramp "$half" --duration $(( settle + duration + 2 )) --scenario "$scenario" \
        --verify-every "$verify_every" --max-violations 1000000000 \
        --max-failed-logins 1000000000 --report "$work/report-$i.json" >"$work/sim-$i.log" 2>&1 &
      sim_pids+=($!)
    done
    sleep $(( 1 + settle ))
    for a in "${!admins[@]}"; do
      zs_histogram_buckets "${admins[$a]}" zs_tick_duration_seconds >"$work/b0-$a"
      zs_histogram_buckets "${admins[$a]}" zs_migration_latency_seconds >"$work/m0-$a"
    done
    s0=0 o0=$(( $(cpu "$ZS_NATS_PID") + $(zs_pg_ticks) ))
    for pid in "${node_pids[@]}"; do s0="$s0 $(cpu "$pid")"; done
    c0=$(( $(cpu "${sim_pids[0]}") + $(cpu "${sim_pids[1]}") ))
    bytes0=0 ghosts0=0 moved0=0 relayed0=0
    for a in "${admins[@]}"; do
      bytes0=$(( bytes0 + $(metric "$a" zs_border_bytes_sent_total) ))
      ghosts0=$(( ghosts0 + $(metric "$a" zs_ghosts_sent_total) ))
      moved0=$(( moved0 + $(metric "$a" 'zs_migrations_total{direction="out"}') ))
      relayed0=$(( relayed0 + $(metric "$a" 'zs_relay_messages_total{direction="out"}') ))
    done
    t0=$EPOCHREALTIME
    sleep "$duration"
    t1=$EPOCHREALTIME
    s1=0 o1=$(( $(cpu "$ZS_NATS_PID") + $(zs_pg_ticks) ))
    for pid in "${node_pids[@]}"; do s1="$s1 $(cpu "$pid")"; done
    c1=$(( $(cpu "${sim_pids[0]}") + $(cpu "${sim_pids[1]}") ))
    bytes1=0 ghosts1=0 held=0 ticks="" moved1=0 relayed1=0 latency=
    for a in "${!admins[@]}"; do
      bytes1=$(( bytes1 + $(metric "${admins[$a]}" zs_border_bytes_sent_total) ))
      ghosts1=$(( ghosts1 + $(metric "${admins[$a]}" zs_ghosts_sent_total) ))
      moved1=$(( moved1 + $(metric "${admins[$a]}" 'zs_migrations_total{direction="out"}') ))
      relayed1=$(( relayed1 + $(metric "${admins[$a]}" 'zs_relay_messages_total{direction="out"}') ))
      held=$(( held + $(metric "${admins[$a]}" zs_ghosts) ))
      zs_histogram_buckets "${admins[$a]}" zs_tick_duration_seconds >"$work/b1-$a"
      ticks="$ticks${ticks:+ / }$(zs_p99_ms "$work/b0-$a" "$work/b1-$a")"
      zs_histogram_buckets "${admins[$a]}" zs_migration_latency_seconds >"$work/m1-$a"
      if [[ "$layout" != whole ]]; then
        latency="$latency${latency:+, }$(zs_quantile_ms "$work/m0-$a" "$work/m1-$a" 0.5) / $(zs_quantile_ms "$work/m0-$a" "$work/m1-$a" 0.99)"
      fi
    done
    for pid in "${sim_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    sim_pids=()
    # Every bot has closed: each node's player gauges back to 0 within 10 s (a home's leaving
    # reaching the owner; a silent home's 2 s), else the row says what was left.
    left="" leftover=1
    for (( wait_s = 0; wait_s < 100 && leftover; wait_s++ )); do
      leftover=0 left=""
      for a in "${admins[@]}"; do
        clients=$(metric "$a" zs_players) real=$(metric "$a" zs_players_real)
        [[ "$clients" == 0 && "$real" == 0 ]] || leftover=1
        left="$left${left:+, }$clients / $real"
      done
      (( leftover )) && sleep 0.1
    done
    (( leftover )) && gauges_left=1
    violations=0 answers=""
    for i in 0 1; do
      v=$(jq -r '.violations_total // 0' "$work/report-$i.json" 2>/dev/null || echo 0)
      violations=$(( violations + v ))
      a=$(jq -r '[.answer_ms.p50, .answer_ms.p99] | map(if . == null then "-" else (. * 10 | round / 10 | tostring) end) | join(" / ")' "$work/report-$i.json" 2>/dev/null || echo -)
      answers="$answers${answers:+, }$a"
    done
    awk -v bots="$bots" -v layout="$layout" -v ticks="$ticks" -v s0="$s0" -v s1="$s1" \
      -v o0="$o0" -v o1="$o1" -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v hz="$hz" \
      -v held="$held" -v b="$(( bytes1 - bytes0 ))" -v g="$(( ghosts1 - ghosts0 ))" \
      -v v="$violations" -v m="$(( moved1 - moved0 ))" -v r="$(( relayed1 - relayed0 ))" \
      -v answers="$answers" -v latency="${latency:--}" -v left="$left" 'BEGIN {
        wall = t1 - t0
        n = split(s0, x, " "); split(s1, y, " ")
        servers = ""
        for (i = 2; i <= n; i++) servers = servers (i > 2 ? " / " : "") sprintf("%.0f", 100 * (y[i] - x[i]) / hz / wall)
        whole = layout == "whole"
        name = whole ? "one process" : "2 cells (west / east)"
        infra = whole ? "-" : sprintf("%.0f", 100 * (o1 - o0) / hz / wall)
        kbs = whole ? "-" : sprintf("%.1f", b / wall / 1024)
        per = g > 0 ? sprintf("%.1f", b / g) : "-"
        mps = whole ? "-" : sprintf("%.1f", m / wall)
        rps = whole ? "-" : sprintf("%.0f", r / wall)
        printf "| %d | %s | %s | %s | %s | %.0f | %d | %s | %s | %s | %s | %s | %s | %d | %s |\n", bots, name,
          ticks, servers, infra, 100 * (c1 - c0) / hz / wall, held, kbs, per, mps, latency, rps, answers, v, left }'
    stop_nodes
  done
done
if (( ${gauges_left:-0} )); then
  echo "border: a node's player gauges did not return to 0 after the bots left (last column)" >&2
  exit 1
fi
echo "(CPU %: over the ${duration} s window, 100% = one core; $(nproc) cores here; load average now:$(uptime | sed 's/.*load average://'). Command: scripts/border.sh --bots \"$bots_list\" --duration $duration --verify-every $verify_every --scenario $scenario; answer p50 / p99: each client_sim's, the west's then the east's)" >&2
