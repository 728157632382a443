#!/usr/bin/env bash
# Capacity test: starts a Release zone_server, steps client_sim through 250, 500, 1000, 2000 and
# 5000 bots in the `crowd`, `wander` and `spread` scenarios, and writes a table of the server's
# tick p99 (from /metrics), client_sim's RTT p99, bytes per bot per second, logins, the CPU each
# process used and protocol violations to docs/performance.md (and stdout). Characters are kept in
# a SQLite file of the run's own (checkpoint every 10 s): the table also shows the tick p99 of the
# ticks during a checkpoint (the tick that snapshots the changed characters and hands them over,
# and any tick while the storage thread writes), and the last flush's time and size on the
# storage thread.
#
#   scripts/loadtest.sh [--steps "250 500 1000"] [--duration 20] [--scenarios "crowd spread"]
#                       [--verify-every 10] [--spread-settle 45] [--build-dir DIR] [--out FILE]
#                       [--server-args "--ticks-per-send 2"] [--transports "tcp ws"]
#   scripts/loadtest.sh --quick [--build-dir DIR]   # 100, 250, 500 bots of crowd and wander,
#                       8 s each (~1.5 minutes), written to build/loadtest/ unless --out is given
#   scripts/loadtest.sh --plot-only [--out FILE]    # redraw FILE's chart from its table
#
# Besides the table, it draws a chart (SVG, with gnuplot from scripts/install-deps.sh) of the
# server's tick p99, RTT p99 and KB/s received per bot against the number of bots, one line per
# scenario, written next to the table (docs/performance.svg) and linked from it.
#
# `crowd` and `wander` run in the default world (config/world.yaml: everyone in one 256 m town);
# `spread` runs in the large world (config/worlds/large/: 4 km x 4 km, 8,000 monsters), where the
# bots walk to random points all over the field: its measurement starts --spread-settle seconds
# after the ramp-up, once they have spread out. One bot in --verify-every parses and checks
# everything; the others read only what they need, so client_sim leaves the cores to the server.
# --build-dir uses binaries already built there instead of building build/release. client_sim's
# JSON report is read with jq (scripts/install-deps.sh installs it).
#
# --transports "tcp ws" runs each step over the game port and then over the WebSocket door
# (client_sim --transport ws), against the same server, one after the other: the rows of the
# door are labelled `<scenario>-ws` (side by side with TCP's; default: tcp only).
# Each step measures over its steady part: from the end of the ramp-up (and settling) to just
# before client_sim stops, the tick-duration histogram and the CPU time (user + system, from
# /proc/PID/stat) of the server and of client_sim. Server and bots share this machine's cores: the
# numbers say what one box does with both.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh
# shellcheck source=scripts/lib/server.sh
source scripts/lib/server.sh
# shellcheck source=scripts/lib/metrics.sh
source scripts/lib/metrics.sh

steps="250 500 1000 2000 5000"
duration=20
scenarios="crowd wander spread"
transports="tcp"
verify_every=10
spread_settle=45
build_dir=""
out=docs/performance.md
out_given=0
quick=0
server_args=()  # extra zone_server flags (--server-args), e.g. to compare settings of one build
plot_only=0
usage="usage: scripts/loadtest.sh [--steps \"250 500\"] [--duration S] [--scenarios \"crowd wander spread\"] [--transports \"tcp ws\"] [--verify-every K] [--spread-settle S] [--build-dir DIR] [--out FILE] [--server-args \"ARGS\"] | --quick | --plot-only"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --steps) steps="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --scenarios) scenarios="$2"; shift 2 ;;
    --transports) transports="$2"; shift 2 ;;
    --verify-every) verify_every="$2"; shift 2 ;;
    --spread-settle) spread_settle="$2"; shift 2 ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    --server-args) read -r -a server_args <<<"$2"; shift 2 ;;
    --out) out="$2"; out_given=1; shift 2 ;;
    --quick) quick=1; shift ;;
    --plot-only) plot_only=1; shift ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
if (( quick )); then
  steps="100 250 500" duration=8 scenarios="crowd wander"
  (( out_given )) || out=build/loadtest/performance.md
fi

# Draws the table in markdown file $1 as an SVG chart $2: tick p99, RTT p99 and KB/s received
# per bot against bots, one line per scenario. Bucket bounds ("<= 7.5") are drawn as their
# value, ">1000" as 1000, "n/a" as a gap. Without gnuplot it says so and draws nothing.
plot_table() {
  if ! command -v gnuplot >/dev/null 2>&1; then
    echo "loadtest: gnuplot not found (scripts/install-deps.sh installs it): no chart" >&2
    return 0
  fi
  local data
  data=$(mktemp -d)
  # Columns are found by their headers, so tables of older layouts draw too.
  awk -F'|' -v dir="$data" '
    function num(s) { gsub(/[<=> ]/, "", s); return s ~ /^[0-9.]+$/ ? s : "NaN" }
    function col(want,   i, h) {
      for (i = 2; i < NF; i++) { h = $i; gsub(/^ +| +$/, "", h); if (h == want) return i }
      return 0
    }
    /^## / { exit }  # the measured table only, not the analysis below it
    $2 ~ /^ *scenario *$/ {
      tick = col("server tick p99 (ms)"); rtt = col("RTT p99 (ms)"); kbs = col("KB/s in per bot")
      if (!tick || !rtt || !kbs) { print "loadtest: table without the charted columns" > "/dev/stderr"; exit }
    }
    tick && $2 ~ /^ *[a-z-]+ *$/ && $3 ~ /^ *[0-9]+ *$/ {
      sc = $2; gsub(/ /, "", sc)
      print $3 + 0, num($tick), num($rtt), num($kbs) >> (dir "/" sc ".dat")
      if (!(sc in seen)) { seen[sc] = 1; order = order (order == "" ? "" : " ") sc }
      if (!(($3 + 0) in tic)) { tic[$3 + 0] = 1; tics = tics (tics == "" ? "" : ", ") ($3 + 0) }
    }
    END { print order > (dir "/scenarios"); print tics > (dir "/tics") }' "$1"
  local scenario_list
  scenario_list=$(cat "$data/scenarios")
  if [[ -z "$scenario_list" ]]; then
    echo "loadtest: no table rows in $1: no chart" >&2
    rm -rf "$data"
    return 0
  fi
  gnuplot <<GNUPLOT
set terminal svg size 900,960 dynamic noenhanced font "sans,12" background rgb "white"
set output "$2"
set multiplot layout 3,1 title "zone_server load test: $(basename "$1") ($(nproc) cores, server and bots on one machine)"
set logscale x 2
set xtics ($(cat "$data/tics"))
set grid
set key top left
set xlabel "bots"
set format y "%g"
set style data linespoints
scenarios = "$scenario_list"
file(s) = sprintf("%s/%s.dat", "$data", s)
set ylabel "server tick p99 (ms, histogram bucket bound)"
plot for [s in scenarios] file(s) using 1:2 title s pointtype 7
set logscale y 10
set ylabel "RTT p99 (ms)"
plot for [s in scenarios] file(s) using 1:3 title s pointtype 7
unset logscale y
set ylabel "KB/s received per bot"
plot for [s in scenarios] file(s) using 1:4 title s pointtype 7
unset multiplot
GNUPLOT
  rm -rf "$data"
  echo "chart written to $2" >&2
}
chart="${out%.md}.svg"
if (( plot_only )); then
  plot_table "$out" "$chart"
  exit 0
fi
if (( duration < 5 )); then
  echo "loadtest: --duration must be at least 5 (the steady window is duration - 4 s)" >&2
  exit 2
fi

if [[ -z "$build_dir" ]]; then
  scripts/build.sh
  build_dir=build/release
fi
server_bin="$build_dir/server/app/zone_server"
sim_bin="$build_dir/client_sim/client_sim"

work=$(mktemp -d)
server_pid=""
trap 'kill "$server_pid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true  # thousands of sockets on both sides

# The world each scenario runs in.
world_of() {
  case "$1" in
    spread) echo config/worlds/large/world.yaml ;;
    *) echo config/world.yaml ;;
  esac
}

# Bots log in as a game's players would: with login tokens (auth mode token), which client_sim
# mints from the server's secret, one account per bot.
scripts/make-secret.sh "$work/zs_auth" >/dev/null

# Starts zone_server with world $1; sets server_pid, port and admin_port.
start_server() {
  ZS_AUTH_MODE=token ZS_AUTH_SECRET_FILE="$work/zs_auth" \
    zs_start_server "$work/ports" "$work/server.log" "$server_bin" --config config/server.yaml \
    --world "$1" --port 0 --admin-port 0 --ws-port 0 --storage-path "$work/characters-$RANDOM.db" \
    --max-connections 20000 --max-connections-per-ip 20000 ${server_args[@]+"${server_args[@]}"}
  server_pid=$ZS_SERVER_PID
  zs_wait_port_file "$work/ports" || true  # if it never came, the read fails
  read -r port admin_port ws_port <"$work/ports"
}

stop_server() {
  [[ -n "$server_pid" ]] || return 0
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

# The server's /metrics page (scripts/lib/metrics.sh).
metrics() { zs_metrics "$admin_port"; }
# A tick-duration histogram ($1: zs_tick_during_flush_seconds, every zone's ticks during a
# checkpoint): "le count" pairs, cumulative.
buckets() { zs_histogram_buckets "$admin_port" "$1"; }
# The last checkpoint on the storage thread: "ms (rows)" ("n/a" if the server does not answer).
last_flush() {
  { metrics || true; } | awk '/^zs_storage_last_flush_seconds / { ms = $2 * 1000 }
    /^zs_storage_last_flush_rows / { rows = $2 }
    END { if (rows == "") print "n/a"; else printf "%.1f (%d)\n", ms, rows }'
}
# Every zone's tick-duration histogram (each zone ticks on its own thread): "zone le count".
zone_buckets() {
  metrics | sed -n 's/^zs_zone_tick_duration_seconds_bucket{zone="\([^"]*\)",le="\([^"]*\)"} \([0-9]*\)$/\1 \2 \3/p'
}
# The busiest zone's tick p99 in ms between two zone_buckets snapshots (files): the zone whose
# p99 is highest (an idle zone's fast ticks must not dilute a crowded one's).
busiest_p99_ms() {
  awk 'FNR == NR { before[$1 " " $2] = $3; next }
    { z = $1; n[z]++; le[z, n[z]] = $2; d[z, n[z]] = $3 - before[$1 " " $2] }
    END {
      worst = -1; out = "n/a"
      for (z in n) {
        total = d[z, n[z]]; if (total == 0) continue
        for (i = 1; i <= n[z]; i++) if (d[z, i] >= 0.99 * total) break
        v = le[z, i] == "+Inf" ? 1e9 : le[z, i] * 1000
        if (v > worst) { worst = v; out = le[z, i] == "+Inf" ? ">1000" : sprintf("<= %g", v) }
      }
      print out }' "$1" "$2"
}
# Each zone's ticks per second and tick p99 between two zone_buckets snapshots ($1, $2) over
# $3 seconds, on one line: a crowded zone's load stays its own (each zone has its own thread).
per_zone() {
  awk -v wall="$3" 'FNR == NR { before[$1 " " $2] = $3; next }
    { z = $1; n[z]++; le[z, n[z]] = $2; d[z, n[z]] = $3 - before[$1 " " $2] }
    END {
      line = "per zone:"
      for (z in n) {
        total = d[z, n[z]]; p = "n/a"
        for (i = 1; i <= n[z] && total > 0; i++) if (d[z, i] >= 0.99 * total) {
          p = le[z, i] == "+Inf" ? ">1000" : sprintf("<= %g", le[z, i] * 1000); break }
        line = line sprintf(" %s %.1f ticks/s, p99 %s ms;", z, total / wall, p)
      }
      print line }' "$1" "$2"
}
# The table's columns from client_sim's JSON report ($1), read with jq, tab-separated: logins
# ok, RTT p99 (ms), KB/s in and out per bot, violations. A field that is missing or null
# (client_sim writes NaN and infinities as null), or a report that is missing or unreadable,
# gives "n/a".
report_cols() {
  jq -r '[.logins_ok, .rtt_ms.p99, .bytes_in_per_bot_s, .bytes_out_per_bot_s, .violations_total]
    | .[2:4] |= map(if type == "number" then . / 1024 else . end)
    | map(if type == "number" then . else "n/a" end) | @tsv' "$1" 2>/dev/null ||
    printf 'n/a\tn/a\tn/a\tn/a\tn/a\n'
}
# $2 with $1 decimals when it is a number; $2 itself otherwise ("n/a").
num() {
  if [[ "$2" =~ ^[-+]?[0-9.]+([eE][-+]?[0-9]+)?$ ]]; then printf '%.*f' "$1" "$2"; else printf '%s' "$2"; fi
}

# Clock ticks per second, the unit of zs_cpu_ticks (which prints nothing once a process is gone).
clk_tck=$(getconf CLK_TCK)
# "seconds percent" of CPU between two tick counts over wall seconds $3; "n/a n/a" if unknown.
cpu_cols() {
  if [[ -z "$1" || -z "$2" ]]; then echo "n/a n/a"; return; fi
  awk -v a="$1" -v b="$2" -v hz="$clk_tck" -v wall="$3" \
    'BEGIN { s = (b - a) / hz; printf "%.1f %.0f\n", s, 100 * s / wall }'
}

threads=$(nproc)
{
  echo "| scenario | bots | logged in | server tick p99 (ms) | tick p99 during checkpoint (ms) | checkpoint ms (rows) | RTT p99 (ms) | KB/s in per bot | KB/s out per bot | server CPU s | server CPU % | client_sim CPU s | client_sim CPU % | violations |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} >"$work/table"
for scenario in $scenarios; do
  world=$(world_of "$scenario")
  stop_server
  start_server "$world"
  settle=0
  [[ "$scenario" == spread ]] && settle=$spread_settle
  for bots in $steps; do
    for transport in $transports; do
      ramp=$(( bots / 10 > 100 ? bots / 10 : 100 ))
      ramp_s=$(( (bots + ramp - 1) / ramp ))
      label=$scenario sim_port=$port
      [[ "$transport" == ws ]] && label="$scenario-ws" sim_port=$ws_port
      echo "== $label ($world), $bots bots (ramp ${ramp}/s, settle ${settle}s, then ${duration}s)" >&2
      "$sim_bin" --port "$sim_port" --transport "$transport" --bots "$bots" --ramp "$ramp" \
        --token-secret-file "$work/zs_auth" \
        --duration "$(( settle + duration ))" --scenario "$scenario" --threads "$threads" \
        --verify-every "$verify_every" --max-violations 1000000000 --max-failed-logins 1000000000 \
        --report "$work/report.json" >"$work/sim.log" 2>&1 &
      sim_pid=$!
      sleep $(( ramp_s + settle + 2 ))
      zone_buckets >"$work/b0"
      buckets zs_tick_during_flush_seconds >"$work/f0"
      server0=$(zs_cpu_ticks "$server_pid") sim0=$(zs_cpu_ticks "$sim_pid") t0=$EPOCHREALTIME
      sleep $(( duration - 4 ))  # client_sim stops at least a second after this
      zone_buckets >"$work/b1"
      buckets zs_tick_during_flush_seconds >"$work/f1"
      flush=$(last_flush)
      server1=$(zs_cpu_ticks "$server_pid") sim1=$(zs_cpu_ticks "$sim_pid") t1=$EPOCHREALTIME
      wait "$sim_pid" || true
      tail -3 "$work/sim.log" >&2
      wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
      read -r server_s server_pct < <(cpu_cols "$server0" "$server1" "$wall")
      read -r sim_s sim_pct < <(cpu_cols "$sim0" "$sim1" "$wall")
      p99=$(busiest_p99_ms "$work/b0" "$work/b1")
      per_zone "$work/b0" "$work/b1" "$wall" >&2
      p99_flush=$(zs_p99_ms "$work/f0" "$work/f1")
      IFS=$'\t' read -r logins rtt_p99 kb_in kb_out violations < <(report_cols "$work/report.json")
      printf '| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$label" \
        "$bots" "$logins" "$p99" "$p99_flush" "$flush" "$(num 1 "$rtt_p99")" "$(num 1 "$kb_in")" \
        "$(num 2 "$kb_out")" "$server_s" "$server_pct" "$sim_s" "$sim_pct" "$violations" \
        >>"$work/table"
      sleep 3  # let the server forget the bots
    done
  done
done
stop_server

mkdir -p "$(dirname "$out")"
{
  echo "# Capacity"
  echo
  echo "Produced by \`scripts/loadtest.sh\` on $(date -u +%Y-%m-%d): $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p' | head -1)), zone_server (Release, 20 Hz) and client_sim on the same machine, sharing the cores. \`crowd\` and \`wander\` run in the default world (everyone in one 256 m town); \`spread\` runs in the large world (\`config/worlds/large/\`: one 4 km x 4 km field, 8,000 monsters), with bots walking to random points all over it, measured from ${spread_settle} s after the ramp-up. Each step ramps up, then runs ${duration} s; one bot in ${verify_every} parses and checks every message, the others read only tick numbers and their own position (\`client_sim --verify-every ${verify_every}\`). Tick p99 is the busiest zone's, read from the server's per-zone /metrics histograms (\`zs_zone_tick_duration_seconds\`) over the steady part (bucket upper bounds); each zone ticks on its own thread."
  echo
  all_cores="all $(nproc) cores"
  [[ "$(nproc)" == 2 ]] && all_cores="both cores"
  echo "![Server tick p99, RTT p99 and KB/s received per bot against the number of bots]($(basename "$chart"))"
  echo
  echo "The CPU columns are the CPU time (user + system, from \`/proc/PID/stat\`) the server and client_sim each used over that same steady part, in seconds and as a share of its wall time: 100% = one core busy, $(( $(nproc) * 100 ))% = ${all_cores} of this machine."
  echo
  cat "$work/table"
} >"$out.new"
if [[ -f "$out" ]] && grep -q "^## Analysis" "$out"; then
  { echo; sed -n '/^## Analysis/,$p' "$out"; } >>"$out.new"  # keep the hand-written analysis
fi
mv "$out.new" "$out"
plot_table "$out" "$chart"
cat "$work/table"
echo "written to $out" >&2
