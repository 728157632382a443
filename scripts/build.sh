#!/usr/bin/env bash
# Installs dependencies if missing and builds the Release tree (build/release): the one build
# recipe, used by run.sh, bench.sh, loadtest.sh and docker/Dockerfile.
#
#   scripts/build.sh                    # everything: the server, client_sim, tests, benchmarks
#   scripts/build.sh --only zone_server # just these targets (repeatable; run.sh: the server)
#   scripts/build.sh -DZS_BUILD_TESTS=OFF -DZS_BUILD_BENCH=OFF   # extra CMake arguments
#                                       # (the Dockerfile: only zone_server and client_sim)
# CMake keeps cached options in build/release: pass -DZS_BUILD_TESTS=ON to turn them back on.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh
ZS_BUILD_TARGETS=""
while [[ "${1:-}" == --only ]]; do
  [[ -n "${2:-}" ]] || { echo "usage: scripts/build.sh [--only TARGET]... [CMAKE ARGS...]" >&2; exit 2; }
  ZS_BUILD_TARGETS+=" $2"
  shift 2
done
ensure_deps
configure_and_build build/release -DCMAKE_BUILD_TYPE=Release "$@"
