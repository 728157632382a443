#!/usr/bin/env bash
# Soak test: a Release zone_server with 1,000 bots for a long run (10 minutes by default): 800
# wander and swing, 200 churn (connect, play a few seconds, disconnect, reconnect). Reports the
# server's RSS, open file descriptors and threads after the warm-up and at the end, the fds
# once every bot has gone (against the baseline before any connected), client_sim's protocol
# violations, and the server's kicks by reason. Not in CI (it takes the whole run); the results
# and the command are in docs/performance.md.
#
#   scripts/soak.sh [--minutes 10] [--warmup 60] [--bots 1000] [--build-dir DIR]
#
# Goals: RSS growth after the warm-up <= 5%, fds back to the baseline, 0 violations. The exit
# status is 0 when all three hold, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh
# shellcheck source=scripts/lib/server.sh
source scripts/lib/server.sh
# shellcheck source=scripts/lib/metrics.sh
source scripts/lib/metrics.sh

minutes=10
warmup=60
bots=1000
build_dir=""
usage="usage: scripts/soak.sh [--minutes M] [--warmup S] [--bots N] [--build-dir DIR]"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --minutes) minutes="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --bots) bots="$2"; shift 2 ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
if [[ -z "$build_dir" ]]; then
  scripts/build.sh
  build_dir=build/release
fi
server_bin="$build_dir/server/app/zone_server"
sim_bin="$build_dir/client_sim/client_sim"

work=$(mktemp -d)
server_pid=""
trap 'kill "$server_pid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

zs_start_server "$work/ports" "$work/server.log" "$server_bin" --config config/server.yaml \
  --port 0 --admin-port 0 --ws-port 0 --max-connections-per-ip 20000
server_pid=$ZS_SERVER_PID
zs_wait_port_file "$work/ports" || true  # if it never came, the read fails
read -r port admin_port _ <"$work/ports"

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$server_pid/status"; }
threads() { awk '/^Threads:/ {print $2}' "/proc/$server_pid/status"; }
fds() { find "/proc/$server_pid/fd" -mindepth 1 -maxdepth 1 | wc -l; }
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$1/stat"; }

sleep 1
fds_baseline=$(fds)
total_s=$(( minutes * 60 ))
churners=$(( bots / 5 ))
wanderers=$(( bots - churners ))
"$sim_bin" --port "$port" --bots "$wanderers" --ramp 200 --duration "$total_s" --scenario wander \
  --verify-every 10 --report "$work/wander.json" >"$work/wander.log" 2>&1 &
wander_pid=$!
"$sim_bin" --port "$port" --bots "$churners" --ramp 200 --duration "$total_s" --scenario churn \
  --verify-every 1 --report "$work/churn.json" >"$work/churn.log" 2>&1 &
churn_pid=$!

sleep "$warmup"
rss_start=$(rss_kib); fds_start=$(fds); threads_start=$(threads)
cpu_server_start=$(cpu_s "$server_pid")
echo "soak: warm-up done: RSS ${rss_start} KiB, ${fds_start} fds, ${threads_start} threads; running $(( total_s - warmup )) s more"
sleep $(( total_s - warmup - 5 ))
rss_end=$(rss_kib); fds_end=$(fds); threads_end=$(threads)
cpu_server=$(awk -v a="$cpu_server_start" -v b="$(cpu_s "$server_pid")" 'BEGIN{print b - a}')
wait "$wander_pid" "$churn_pid" || true
sleep 5  # every bot gone: the sessions close, their descriptors with them
fds_after=$(fds)
page=$(zs_metrics "$admin_port")

violations=$(( $(jq '.violations_total' "$work/wander.json") + $(jq '.violations_total' "$work/churn.json") ))
logins=$(( $(jq '.logins_ok' "$work/wander.json") + $(jq '.logins_ok' "$work/churn.json") ))
growth=$(awk -v a="$rss_start" -v b="$rss_end" 'BEGIN{printf "%.1f", (b - a) * 100 / a}')
kicks=$(sed -n 's/^zs_kicks_total{reason="\([^"]*\)"} \([0-9]*\)$/\1 \2/p' <<<"$page" | paste -sd, -)
steady_s=$(( total_s - warmup - 5 ))

echo
echo "Produced by \`scripts/soak.sh --minutes $minutes --bots $bots\` on $(date -u +%Y-%m-%d), $(nproc) cores, server and bots on the same machine ($wanderers wander, $churners churn)."
echo
echo "| | after warm-up (${warmup} s) | at the end | goal |"
echo "|---|---:|---:|---|"
echo "| RSS (KiB) | $rss_start | $rss_end (${growth}%) | growth <= 5% |"
echo "| open fds | $fds_start | $fds_end | back to $fds_baseline once the bots leave: **$fds_after** |"
echo "| threads | $threads_start | $threads_end | constant |"
echo
echo "Logins: $logins (churn reconnects included); protocol violations: **$violations**; server CPU over the steady ${steady_s} s: ${cpu_server} s; kicks by reason: ${kicks:-none}."

ok=1
awk -v g="$growth" 'BEGIN{exit !(g <= 5)}' || { echo "soak: FAIL: RSS grew ${growth}% (goal <= 5%)"; ok=0; }
(( fds_after <= fds_baseline )) || { echo "soak: FAIL: $fds_after fds open after the bots left, baseline $fds_baseline"; ok=0; }
if (( violations != 0 )); then
  echo "soak: FAIL: $violations protocol violations"
  for side in wander churn; do  # by kind
    echo "  $side: $(jq -c '.violations' "$work/$side.json")"
  done
  ok=0
fi
(( ok == 1 )) && echo "soak: PASS"
(( ok == 1 ))
