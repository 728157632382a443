# Shared by the scripts: install dependencies if missing, then configure and build.
# Source it from the repository root.

ensure_deps() {
  if ! scripts/install-deps.sh --check 2>/dev/null; then
    scripts/install-deps.sh
  fi
}

# build_dir, then extra CMake arguments.
configure_and_build() {
  local dir="$1"
  shift
  cmake -S . -B "$dir" -G Ninja "$@"
  local targets=()
  for t in ${ZS_BUILD_TARGETS:-}; do targets+=(--target "$t"); done  # none: everything
  cmake --build "$dir" "${targets[@]}"
}

# podman's settings for the container scripts, written to $1/containers.conf and exported as
# CONTAINERS_CONF (a file of our own rather than /etc): runc (crun rejects this machine's hybrid
# cgroups) and ulimits within the machine's hard limits. podman lowers its own RLIMIT_NPROC to
# 32768 at start, and runc cannot raise it back. $2: the script writing it (named in the file).
podman_conf() {
  local nofile nproc
  nofile=$(ulimit -Hn)
  [[ "$nofile" == unlimited || "$nofile" -gt 1048576 ]] && nofile=1048576
  nproc=$(ulimit -Hu)
  [[ "$nproc" == unlimited || "$nproc" -gt 32768 ]] && nproc=32768
  cat >"$1/containers.conf" <<CONF
# Written by $2.
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
runtime = "runc"
CONF
  export CONTAINERS_CONF="$PWD/$1/containers.conf"
}
