#!/usr/bin/env bash
# Login rate with persistence on: starts a Release zone_server with characters in a fresh SQLite
# file, runs client_sim's `churn` scenario with short lives (every bot
# logs in, lives --life seconds, logs out, comes back 0.2-1 s later), and reports the logins per
# second the server admitted (zs_logins_total over the steady part), the logins refused, the last
# checkpoint, and the CPU each process used (server and client_sim share this machine's cores).
# Each bot keeps its name, so after its first life every login loads an existing character.
#
#   scripts/logins.sh [--bots 2000] [--duration 20] [--life 0.3] [--build-dir DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh
# shellcheck source=scripts/lib/server.sh
source scripts/lib/server.sh
# shellcheck source=scripts/lib/metrics.sh
source scripts/lib/metrics.sh

bots=2000
duration=20
life=0.3
build_dir=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bots) bots="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --life) life="$2"; shift 2 ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    *) echo "usage: scripts/logins.sh [--bots N] [--duration S] [--life S] [--build-dir DIR]" >&2; exit 2 ;;
  esac
done
if [[ -z "$build_dir" ]]; then
  scripts/build.sh
  build_dir=build/release
fi
work=$(mktemp -d)
server_pid=""
trap 'kill "$server_pid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

zs_start_server "$work/ports" "$work/server.log" "$build_dir/server/app/zone_server" \
  --config config/server.yaml --port 0 --admin-port 0 --ws-port 0 --storage-path "$work/characters.db" \
  --max-connections 20000 --max-connections-per-ip 20000
server_pid=$ZS_SERVER_PID
zs_wait_port_file "$work/ports" || true  # if it never came, the read fails
read -r port admin_port _ <"$work/ports"

# Metric $1's value from the server's /metrics; nothing if the server does not answer.
metric() { zs_metric "$admin_port" "$1" || true; }
# CPU clock ticks (utime + stime) process $1 has used so far; 0 when it is gone.
cpu_ticks() { zs_cpu_ticks "$1" 0; }

ramp=$(( bots / 2 ))
"$build_dir/client_sim/client_sim" --port "$port" --bots "$bots" --ramp "$ramp" \
  --duration "$(( duration + 6 ))" --scenario churn --churn-min "$life" --churn-max "$life" \
  --verify-every 50 --threads "$(nproc)" --max-failed-logins 1000000000 \
  --max-violations 1000000000 >"$work/sim.log" 2>&1 &
sim_pid=$!
sleep 5  # ramp-up, every character created once
l0=$(metric zs_logins_total) s0=$(cpu_ticks "$server_pid") c0=$(cpu_ticks "$sim_pid") t0=$EPOCHREALTIME
sleep "$duration"
l1=$(metric zs_logins_total) s1=$(cpu_ticks "$server_pid") c1=$(cpu_ticks "$sim_pid") t1=$EPOCHREALTIME
refused=$(metric 'zs_login_refusals_total{reason="storage_unavailable"}')
flush_ms=$(metric zs_storage_last_flush_seconds)
rows=$(metric zs_storage_rows_saved_total)
wait "$sim_pid" || true
hz=$(getconf CLK_TCK)
awk -v l0="$l0" -v l1="$l1" -v t0="$t0" -v t1="$t1" -v s0="$s0" -v s1="$s1" -v c0="$c0" \
  -v c1="$c1" -v hz="$hz" -v bots="$bots" -v life="$life" -v refused="${refused:-0}" \
  -v rows="$rows" -v flush="$flush_ms" 'BEGIN {
    wall = t1 - t0
    printf "%d bots, churn life %.2f s, SQLite: %.0f logins/s admitted over %.1f s (%d logins), " \
           "%d refused (storage_unavailable); %d character rows saved; last flush %.1f ms\n",
           bots, life, (l1 - l0) / wall, wall, l1 - l0, refused, rows, flush * 1000
    printf "CPU: server %.0f%%, client_sim %.0f%% (100%% = one core)\n",
           100 * (s1 - s0) / hz / wall, 100 * (c1 - c0) / hz / wall }'
tail -1 "$work/sim.log"
