#!/usr/bin/env bash
# Capacity test: starts a Release zone_server with the default world, steps client_sim through
# 250, 500, 1000, 2000 and 5000 bots in the `crowd` and `wander` scenarios, and writes a table
# of the server's tick p99 (from /metrics), client_sim's RTT p99, bytes per bot per second,
# logins and protocol violations to docs/performance.md (and stdout).
#
#   scripts/loadtest.sh [--steps "250 500 1000"] [--duration 20] [--scenarios "crowd wander"]
#
# Server and bots share this machine's cores: the numbers say what one box does with both.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh

steps="250 500 1000 2000 5000"
duration=20
scenarios="crowd wander"
out=docs/performance.md
while [[ $# -gt 0 ]]; do
  case "$1" in
    --steps) steps="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --scenarios) scenarios="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "usage: scripts/loadtest.sh [--steps \"250 500\"] [--duration S] [--scenarios \"crowd wander\"] [--out FILE]" >&2; exit 2 ;;
  esac
done

scripts/build.sh

work=$(mktemp -d)
trap 'kill "$server_pid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true  # thousands of sockets on both sides
build/release/server/app/zone_server --config config/server.yaml --port 0 --admin-port 0 \
  --max-connections 20000 --max-connections-per-ip 20000 --port-file "$work/ports" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do [[ -s "$work/ports" ]] && break; sleep 0.1; done
read -r port admin_port <"$work/ports"

# GET /metrics with bash's /dev/tcp (no curl needed).
metrics() {
  exec 3<>"/dev/tcp/127.0.0.1/$admin_port"
  printf 'GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3
  cat <&3
  exec 3<&-
}
# Tick-duration histogram: "le count" pairs, cumulative.
buckets() { metrics | sed -n 's/^zs_tick_duration_seconds_bucket{le="\([^"]*\)"} \([0-9]*\)$/\1 \2/p'; }
# p99 in ms between two bucket snapshots (files), from the bucket bounds.
p99_ms() {
  paste "$1" "$2" | awk '{ le[NR] = $1; d[NR] = $4 - $2 } END {
    total = d[NR]; if (total == 0) { print "n/a"; exit }
    for (i = 1; i <= NR; i++) if (d[i] >= 0.99 * total) {
      if (le[i] == "+Inf") print ">1000"; else printf "<= %g\n", le[i] * 1000; exit } }'
}
json() { sed -n "s/.*\"$2\": \([0-9.e+-]*\).*/\1/p" "$1" | head -1; }
json_rtt_p99() { sed -n 's/.*"rtt_ms": {[^}]*"p99": \([0-9.e+-]*\).*/\1/p' "$1"; }

threads=$(nproc)
{
  echo "| scenario | bots | logged in | server tick p99 (ms) | RTT p99 (ms) | KB/s in per bot | KB/s out per bot | violations |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
} >"$work/table"
for scenario in $scenarios; do
  for bots in $steps; do
    ramp=$(( bots / 10 > 100 ? bots / 10 : 100 ))
    ramp_s=$(( (bots + ramp - 1) / ramp ))
    echo "== $scenario, $bots bots (ramp ${ramp}/s, then ${duration}s)" >&2
    build/release/client_sim/client_sim --port "$port" --bots "$bots" --ramp "$ramp" \
      --duration "$duration" --scenario "$scenario" --threads "$threads" \
      --max-violations 1000000000 --max-failed-logins 1000000000 \
      --report "$work/report.json" >"$work/sim.log" 2>&1 &
    sim_pid=$!
    sleep $(( ramp_s + 2 ))
    buckets >"$work/b0"
    wait "$sim_pid" || true
    buckets >"$work/b1"
    tail -3 "$work/sim.log" >&2
    p99=$(p99_ms "$work/b0" "$work/b1")
    printf '| %s | %d | %s | %s | %.1f | %.1f | %.2f | %s |\n' "$scenario" "$bots" \
      "$(json "$work/report.json" logins_ok)" "$p99" "$(json_rtt_p99 "$work/report.json")" \
      "$(awk -v b="$(json "$work/report.json" bytes_in_per_bot_s)" 'BEGIN{print b/1024}')" \
      "$(awk -v b="$(json "$work/report.json" bytes_out_per_bot_s)" 'BEGIN{print b/1024}')" \
      "$(json "$work/report.json" violations_total)" >>"$work/table"
    sleep 3  # let the server forget the bots
  done
done

mkdir -p "$(dirname "$out")"
{
  echo "# Capacity"
  echo
  echo "Produced by \`scripts/loadtest.sh\` on $(date -u +%Y-%m-%d): $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p' | head -1)), zone_server (Release, default world, 20 Hz) and client_sim on the same machine, sharing the cores. Each step ramps up, then runs ${duration} s; tick p99 is read from the server's /metrics histogram over the steady part (bucket upper bounds)."
  echo
  cat "$work/table"
} >"$out.new"
if [[ -f "$out" ]] && grep -q "^## Analysis" "$out"; then
  sed -n '/^## Analysis/,$p' "$out" >>"$out.new"  # keep the hand-written analysis
fi
mv "$out.new" "$out"
cat "$work/table"
echo "written to $out" >&2
