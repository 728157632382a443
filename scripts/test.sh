#!/usr/bin/env bash
# Quick start, command 2: install dependencies if missing, build, run every test with ctest.
#
#   scripts/test.sh              # warnings as errors, optimised build (RelWithDebInfo)
#   scripts/test.sh --sanitize   # the same tests under AddressSanitizer + UBSan
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh

build_dir=build/test
cmake_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DZS_WERROR=ON)
case "${1:-}" in
  "") ;;
  --sanitize)
    build_dir=build/sanitize
    cmake_args+=(-DZS_SANITIZE=ON)
    ;;
  *)
    echo "usage: scripts/test.sh [--sanitize]" >&2
    exit 2
    ;;
esac

ensure_deps

configure_and_build "$build_dir" "${cmake_args[@]}"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)"
