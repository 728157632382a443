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
  cmake --build "$dir"
}
