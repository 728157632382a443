#!/usr/bin/env bash
# Installs dependencies if missing and builds the Release tree (build/release): the one build
# recipe, used by run.sh, bench.sh, loadtest.sh and docker/Dockerfile.
#
#   scripts/build.sh                    # everything: the server, client_sim, tests, benchmarks
#   scripts/build.sh -DZS_BUILD_TESTS=OFF -DZS_BUILD_BENCH=OFF   # extra CMake arguments
#                                       # (the Dockerfile: only zone_server and client_sim)
# CMake keeps cached options in build/release: pass -DZS_BUILD_TESTS=ON to turn them back on.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh
ensure_deps
configure_and_build build/release -DCMAKE_BUILD_TYPE=Release "$@"
