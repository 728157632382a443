#!/usr/bin/env bash
# Installs dependencies if missing and builds the Release tree (build/release): the one build
# recipe, used by run.sh, bench.sh, loadtest.sh and docker/Dockerfile.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh
ensure_deps
configure_and_build build/release -DCMAKE_BUILD_TYPE=Release
