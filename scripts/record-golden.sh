#!/usr/bin/env bash
# Re-records the golden frame streams (tests/golden/README.md) with the real server: run it in
# the commit that changes the protocol, and commit tests/golden/*.json with it.
#
#   scripts/record-golden.sh              # builds build/test's recorder and server, records all
#   scripts/record-golden.sh Basics       # one stream (gtest filter: Basics, Resync, Handoff)
#
# Starts its own servers (and for the hand-off a NATS server and a PostgreSQL server) on
# loopback; needs what scripts/test.sh needs.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh
ensure_deps
build_dir=build/test
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZS_WERROR=ON \
  -DZS_UNITY_TESTS=ON "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" >/dev/null
cmake --build "$build_dir" --target golden_record zone_server client_sim
filter="*${1:-}*"
ZS_GOLDEN_OUT="$PWD/tests/golden" "$build_dir/tests/golden_record" --gtest_filter="$filter"
echo "record-golden: wrote $(ls tests/golden/*.json | wc -l) streams in tests/golden"
