#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang, ASan + UBSan) in build/fuzz and runs one, or
# all, for a fixed time on a copy of the checked-in seed corpus.
#
#   scripts/fuzz.sh TARGET SECONDS   # frame_fuzz, quadtree_fuzz, config_fuzz, ghost_fuzz, relay_fuzz or ws_fuzz
#   scripts/fuzz.sh --all SECONDS    # each target in turn, SECONDS each
#
# Prints executions per second and in total for each target. Exits non-zero on a finding (a
# crash, a broken property, a leak, a timeout or running out of memory); the input that caused
# it is kept as build/fuzz/findings/TARGET/crash-* (or leak-, timeout-, oom-) and reproduces
# with build/fuzz/tests/fuzz/TARGET FILE. The working corpus (seeds plus what the run found
# interesting) is build/fuzz/corpus/TARGET; it carries over between runs. A dictionary
# tests/fuzz/TARGET.dict (tokens libFuzzer splices into inputs) is used when there is one.
# Extra libFuzzer flags go in $FUZZ_FLAGS (e.g. FUZZ_FLAGS="-jobs=2 -workers=2").
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh

targets=(frame_fuzz quadtree_fuzz config_fuzz ghost_fuzz relay_fuzz ws_fuzz)
usage() {
  echo "usage: scripts/fuzz.sh {$(IFS='|'; echo "${targets[*]}")|--all} SECONDS" >&2
  exit 2
}
[[ $# -eq 2 && "$2" =~ ^[0-9]+$ ]] || usage
if [[ "$1" == --all ]]; then
  run=("${targets[@]}")
else
  [[ " ${targets[*]} " == *" $1 "* ]] || usage
  run=("$1")
fi
seconds="$2"

ensure_deps
build_dir=build/fuzz
CC=clang CXX=clang++ cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DZS_FUZZ=ON -DZS_WERROR=ON >/dev/null
cmake --build "$build_dir" --target "${run[@]}"

status=0
for target in "${run[@]}"; do
  corpus="$build_dir/corpus/$target"
  findings="$build_dir/findings/$target"
  log="$build_dir/$target.log"
  mkdir -p "$corpus" "$findings"
  cp -n tests/fuzz/corpus/"$target"/* "$corpus"/
  echo "== $target: ${seconds}s (log: $log)"
  dict=()
  [[ -f tests/fuzz/$target.dict ]] && dict=(-dict="tests/fuzz/$target.dict")
  rc=0
  # -timeout: an input that takes over 10 s is a hang; -rss_limit_mb: 2 GiB is a leak or a
  # blow-up. detect_leaks stays on (libFuzzer reports leaks as findings).
  "$build_dir/tests/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$findings/" "${dict[@]}" ${FUZZ_FLAGS:-} "$corpus" \
    </dev/null >"$log" 2>&1 || rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  if [[ -z "$runs" ]]; then  # no final stats (interrupted, or a finding): the last status line
    runs=$(grep -aoE '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)
    rate=$(grep -aoE 'exec/s: [0-9]+' "$log" | tail -1 | cut -d' ' -f2 || true)
  fi
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
  echo "   execs: ${runs:-?} total, ${rate:-?}/s; ${cov:-cov: ?}; corpus: $(ls "$corpus" | wc -l) inputs"
  if ((rc != 0)) && grep -q 'libFuzzer: run interrupted' "$log"; then
    echo "   INTERRUPTED (exit $rc): a signal stopped the run before its time" >&2
    status=1
  elif ((rc != 0)); then
    echo "   FINDING (exit $rc): $(ls "$findings")" >&2
    grep -m1 -A12 -E '^==[0-9]+==|runtime error|deadly signal|ERROR: libFuzzer' "$log" >&2 || true
    status=1
  fi
done
exit "$status"
