#!/usr/bin/env bash
# Quick start, command 2: install dependencies if missing, build, run every test with ctest.
#
#   scripts/test.sh              # warnings as errors, optimised build (RelWithDebInfo)
#   scripts/test.sh --sanitize   # the same tests (benchmark smoke runs aside) under
#                                # AddressSanitizer + UBSan
#   scripts/test.sh --tsan       # the threaded tests (ctest label `threads`: net, client_sim,
#                                # integration, worker pool) under ThreadSanitizer
#   scripts/test.sh [--sanitize | --tsan] --build-only   # build the tree, run nothing (CI
#                                # builds the next tree while the tests of one run)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh

build_dir=build/test
# Line tables only (-g1): stack traces, sanitizer reports and gdb backtraces keep their files and
# lines, without the full debug info that made a third of the compile time (and more of the
# links) of trees that are only tested. The sanitizer trees compile at -O1: half the compile time
# of -O2 under ASan+UBSan, 0.6x under TSan (server/net/server.cc, measured 2026-12-02).
# The tests as unity files (CMakeLists.txt, ZS_UNITY_TESTS): a third of their compile time.
cmake_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DZS_WERROR=ON -DZS_UNITY_TESTS=ON
            "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG")
sanitizer_flags="-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
ctest_args=()
build_targets=()  # empty: all
mode="${1:-}"
[[ "$mode" == --build-only ]] && mode=""
build_only=0
[[ " $* " == *" --build-only "* ]] && build_only=1
case "$mode" in
  "") ;;
  --sanitize)
    build_dir=build/sanitize
    # The benchmarks' smoke runs stay in the plain build: under the sanitizers they measure
    # nothing and their Boost.Geometry baseline is the slowest file to compile.
    cmake_args+=(-DZS_SANITIZE=ON -DZS_BUILD_BENCH=OFF "$sanitizer_flags")
    ;;
  --tsan)
    build_dir=build/tsan
    cmake_args+=(-DZS_TSAN=ON -DZS_BUILD_BENCH=OFF "$sanitizer_flags")
    build_targets=(net_test host_test admin_test client_sim_test integration_test
                   parallel_determinism_test storage_test viewer_test websocket_test cluster_nats_test
                   agones_test client_lib_test)
    ctest_args+=(-L threads)
    ;;
  *)
    echo "usage: scripts/test.sh [--sanitize | --tsan] [--build-only]" >&2
    exit 2
    ;;
esac

# The npm packages' tests (the TypeScript SDK, the browser game), against the zone_server just
# built ($1), one package at a time after ctest: they start real servers, a real Chromium, and
# time what they draw. In the plain tree only (they test the clients, not the server's build).
run_npm_tests() {
  local folder t0
  for folder in clients/typescript web/play; do
    [[ -f "$folder/package-lock.json" ]] || continue
    t0=$SECONDS
    echo "== test.sh: npm test in $folder"
    ZS_SERVER_BIN="$1" npm test --prefix "$folder"
    echo "== test.sh: npm test in $folder passed ($((SECONDS - t0)) s)"
  done
}

t0=$SECONDS
ensure_deps
echo "== test.sh: dependencies ready ($((SECONDS - t0)) s)"

t0=$SECONDS
if ((${#build_targets[@]} == 0)); then
  configure_and_build "$build_dir" "${cmake_args[@]}"
else
  cmake -S . -B "$build_dir" -G Ninja "${cmake_args[@]}"
  cmake --build "$build_dir" --target "${build_targets[@]}"
fi
echo "== test.sh: $build_dir built ($((SECONDS - t0)) s)"
((build_only)) && exit 0
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if [[ "$mode" != --tsan ]]; then
  ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" "${ctest_args[@]}"
  [[ -z "$mode" ]] && run_npm_tests "$PWD/$build_dir/server/app/zone_server"
  exit 0
fi

# ThreadSanitizer. The server and client_sim run as child processes of the integration tests,
# which do not read their exit status, so every process writes its reports to a file under
# $reports; any file there fails the run. As many tests at a time as there are cores, as in the
# other trees: the tests wait on conditions with deadlines made for a loaded machine, and TSan's
# slowdown (5-15x) is no different from a busy one.
reports="$PWD/$build_dir/tsan-reports"
rm -rf "$reports"
mkdir -p "$reports"
export TSAN_OPTIONS="log_path=$reports/report second_deadlock_stack=1 history_size=4"
# GCC 12's TSan cannot place its shadow memory when the kernel randomises mmap with more than
# 28 bits ("FATAL: ThreadSanitizer: unexpected memory mapping"; vm.mmap_rnd_bits=32 on recent
# kernels): run the tests, and every process they start, without address randomisation.
no_aslr=()
if setarch "$(uname -m)" -R true 2>/dev/null; then
  no_aslr=(setarch "$(uname -m)" -R)
fi
status=0
"${no_aslr[@]}" ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" "${ctest_args[@]}" ||
  status=$?
if compgen -G "$reports/report*" >/dev/null; then
  echo "ThreadSanitizer reports:" >&2
  cat "$reports"/report* >&2
  status=1
fi
exit "$status"
