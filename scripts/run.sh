#!/usr/bin/env bash
# Quick start, command 1: install dependencies if missing, build Release, run the main job.
#
# Until the zone server lands (issue 4) the main job is the spatial benchmark: our quadtree
# against brute force, a tuned uniform grid, Boost's R-tree and the tutorial quadtree, with the
# comparison tables printed at the end. By default it runs the 1k and 10k workloads and the
# classic 300-box demo (about a minute); pass --full for every workload (see bench/README.md),
# or any Google Benchmark flag (e.g. --benchmark_filter=...).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! scripts/install-deps.sh --check 2>/dev/null; then
  scripts/install-deps.sh
fi

cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build/release

args=()
if [[ "${1:-}" == "--full" ]]; then
  shift
else
  args+=("--benchmark_filter=n:(1000|10000)/|classic")
fi
exec build/release/bench/spatial_bench "${args[@]}" "$@"
