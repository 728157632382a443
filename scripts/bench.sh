#!/usr/bin/env bash
# Benchmarks (Release build): bench/README.md has the results and what they mean.
#   scripts/bench.sh            # spatial: 1k and 10k workloads + the classic demo (~1 min)
#   scripts/bench.sh --full     # spatial: every workload (~6 min)
#   scripts/bench.sh --zone     # the whole zone tick at 6k, 12k and 25k entities
#   scripts/bench.sh --storage  # checkpoint of 5,000 characters, logins (SQLite, PostgreSQL)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh

scripts/build.sh

case "${1:-}" in
  --full) shift; exec build/release/bench/spatial_bench "$@" ;;
  --zone) shift; exec build/release/bench/zone_bench "$@" ;;
  --storage) shift; exec build/release/bench/storage_bench "$@" ;;
  *) exec build/release/bench/spatial_bench "--benchmark_filter=n:(1000|10000)/|classic" "$@" ;;
esac
