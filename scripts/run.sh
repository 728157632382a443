#!/usr/bin/env bash
# Quick start, command 1: install dependencies if missing, build the Release zone_server and
# client_sim (only those: the tests and benchmarks are the second command's), run the zone server
# with the default world (config/server.yaml -> config/world.yaml). Game clients connect to
# port 7777; http://127.0.0.1:9100/metrics and /healthz are the admin endpoints.
# Extra arguments go to zone_server (see --help). Ctrl-C shuts it down gracefully.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh

scripts/build.sh --only zone_server --only client_sim
# One file descriptor per client: lift the soft limit (often 1024) to the hard limit.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
exec build/release/server/app/zone_server --config config/server.yaml "$@"
