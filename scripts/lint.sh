#!/usr/bin/env bash
# Lint: formatting and clang-tidy.
#
#   scripts/lint.sh            # both
#   scripts/lint.sh --format   # clang-format --dry-run --Werror on every tracked .cc/.h (seconds)
#   scripts/lint.sh --tidy     # clang-tidy (.clang-tidy, tests/.clang-tidy) on the project's
#                              # sources, fuzz targets included (minutes; a file already found
#                              # clean with the same text, flags and checks is not run again)
#
# To fix formatting: git ls-files '*.cc' '*.h' | xargs clang-format -i
# clang-tidy reads the compile commands of two clang trees that are configured, not built
# (only the generated protobuf header is): build/lint, and build/lint-fuzz for tests/fuzz.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh

mode="${1:-all}"
case "$mode" in
  all | --format | --tidy) ;;
  *)
    echo "usage: scripts/lint.sh [--format | --tidy]" >&2
    exit 2
    ;;
esac
ensure_deps
status=0

if [[ "$mode" != --tidy ]]; then
  echo "== clang-format"
  if git ls-files -z '*.cc' '*.h' | xargs -0 clang-format --dry-run --Werror; then
    echo "   every file formatted"
  else
    echo "   not formatted (fix: git ls-files '*.cc' '*.h' | xargs clang-format -i)" >&2
    status=1
  fi
fi

if [[ "$mode" != --format ]]; then
  echo "== clang-tidy"
  tidy() {  # build dir, extra CMake arguments..., then -- and the file regex
    local dir="$1"
    shift
    local args=()
    while [[ "$1" != -- ]]; do
      args+=("$1")
      shift
    done
    CC=clang CXX=clang++ cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug "${args[@]}" \
      >/dev/null
    cmake --build "$dir" --target zone_proto >/dev/null  # the generated zone.pb.h
    # ... and cluster.pb.h, where the configuration has it (not the fuzz one).
    # (The list is read whole first: `grep -q` would stop reading at its match, and the
    # SIGPIPE that ninja then gets fails the command and skips the header.)
    local targets
    targets=$(cmake --build "$dir" --target help)
    if grep -q '^cluster_proto:' <<<"$targets"; then
      cmake --build "$dir" --target cluster_proto >/dev/null
    fi
    # run-clang-tidy's job, less the files already found clean at the same preprocessed text,
    # flags and checks (scripts/lib/tidy_cached.py; the cache is ~/.cache/zs-tidy).
    python3 scripts/lib/tidy_cached.py "$dir" "$2" "$(nproc)"
  }
  root="$PWD"
  tidy build/lint -- "^$root/(server|client_sim|clients/cpp|bench|tests/(?!fuzz/)).*\.cc$" || status=1
  tidy build/lint-fuzz -DZS_FUZZ=ON -- "^$root/tests/fuzz/.*\.cc$" || status=1
fi
exit "$status"
