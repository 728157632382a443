#!/usr/bin/env bash
# What a connected zone viewer costs a live server: one zone of 4,000 monsters (the large
# world's plains at half density) and 1,000 client_sim bots spread over it (5,000 entities),
# measured for 30 s without a viewer, then 30 s with headless Chromium showing /viewer live.
# Prints the mean tick both times and the tick thread's own viewer work
# (zs_viewer_snapshot_seconds_total) as a share of the tick time.
#
#   scripts/viewer-cost.sh [--build-dir DIR] [--seconds S]
#
# Server, bots and browser share this machine's cores: the mean tick with the viewer also pays
# for the browser drawing 5,000 entities 10 times a second next to it (an operator's browser is
# usually elsewhere). The viewer work share is the tick thread's cost alone.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/server.sh
source scripts/lib/server.sh
# shellcheck source=scripts/lib/metrics.sh
source scripts/lib/metrics.sh
build_dir=build/release
seconds=30
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build_dir="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    *) echo "usage: scripts/viewer-cost.sh [--build-dir DIR] [--seconds S]" >&2; exit 2 ;;
  esac
done
[[ -x "$build_dir/server/app/zone_server" ]] || scripts/build.sh
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# The large world with half its monsters, its paths made absolute.
root=$(pwd)
sed -e "s#../../skills.yaml#$root/config/skills.yaml#; s#../../monsters.yaml#$root/config/monsters.yaml#" \
  config/worlds/large/world.yaml >"$work/world.yaml"
sed -e 's/count: 500/count: 250/' config/worlds/large/plains.yaml >"$work/plains.yaml"

zs_start_server "$work/ports" "$work/server.log" "$build_dir/server/app/zone_server" \
  --config config/server.yaml --world "$work/world.yaml" --port 0 --admin-port 0 --ws-port 0 \
  --max-connections-per-ip 5000
pids+=("$ZS_SERVER_PID")
zs_wait_port_file "$work/ports" || true  # if it never came, the read fails
read -r port admin_port _ <"$work/ports"
"$build_dir/client_sim/client_sim" --port "$port" --bots 1000 --ramp 500 \
  --duration $(( 2 * seconds + 60 )) --scenario spread --verify-every 10 >"$work/sim.log" 2>&1 &
pids+=($!)

# The server's /metrics page; nothing if the server does not answer.
metrics() { zs_metrics "$admin_port" || true; }
# "tick seconds, ticks, viewer seconds, viewer frames" so far.
sample() {
  metrics | awk '$1 == "zs_tick_duration_seconds_sum" { s = $2 } $1 == "zs_tick_duration_seconds_count" { c = $2 }
    $1 == "zs_viewer_snapshot_seconds_total" { v = $2 } $1 == "zs_viewer_frames_total" { f = $2 }
    END { print s, c, v, f }'
}
report() {  # $1 label, $2 and $3 samples
  awk -v label="$1" -v a="$2" -v b="$3" 'BEGIN { split(a, x, " "); split(b, y, " ")
    ticks = y[2] - x[2]; tick = y[1] - x[1]; view = y[3] - x[3]
    printf "%s: %d ticks, mean tick %.3f ms, viewer work %.4f ms per tick = %.2f%% of the tick time, %d frames sent\n",
      label, ticks, 1000 * tick / ticks, 1000 * view / ticks, 100 * view / tick, y[4] - x[4] }'
}

sleep 45  # ramp-up, and the bots spread out
echo "zone entities: $(metrics | sed -n 's/^zs_zone_entities{zone="plains"} //p')"
a0=$(sample); sleep "$seconds"; a1=$(sample)
chromium --headless=new --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
  --window-size=1280,800 --remote-debugging-port=0 "http://127.0.0.1:$admin_port/viewer?zone=1" \
  >/dev/null 2>&1 &
pids+=($!)
sleep 5
b0=$(sample); sleep "$seconds"; b1=$(sample)
report "without a viewer" "$a0" "$a1"
report "with a viewer   " "$b0" "$b1"
