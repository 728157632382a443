#!/usr/bin/env bash
# Installs every build and test dependency of the zone server on Debian 12 (bookworm).
#
# This is the only place that lists packages: the README commands and the Dockerfile call it.
# Idempotent and non-interactive. Needs root (or sudo).
#
#   scripts/install-deps.sh           # apt-get update, then install whatever is missing
#   scripts/install-deps.sh --check   # exit 0 when everything is installed, 1 otherwise; no changes
#
# ZS_NO_CONTAINER_TOOLS=1 leaves out the container tools (the block so labelled below): the
# Dockerfile's build stage sets it, since nothing inside the image builds or runs images.
# ZS_NO_BROWSER_TOOLS=1 likewise leaves out Chromium and gnuplot (tests and load-test charts),
# and ZS_NO_TEST_TOOLS=1 what only the tests, benchmarks, lint and fuzz targets need.
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential
  cmake
  ninja-build
  ccache
  pkg-config
  # libraries
  libboost-dev          # Boost.Geometry (benchmark baseline); later Asio and Beast
  libyaml-cpp-dev       # world, zone, monster and skill config files
  libprotobuf-dev       # the wire protocol (proto/)
  protobuf-compiler
  libspdlog-dev         # logging (server, client_sim)
  libcli11-dev          # command-line flags
  # issue 10 (characters that last): persistence through the C APIs, and login tokens
  libsqlite3-dev        # storage: the default character database (a file, WAL mode)
  libpq-dev             # storage: the PostgreSQL backend (libpq)
  libssl-dev            # HMAC login tokens (OpenSSL's libcrypto)
  libicu-dev            # player names by the Unicode rules: NFC, UTS #39 profile, skeletons
  e2fsprogs             # chattr: storage fault tests make the database immutable mid-run
  # issue 12 (hardening): formats written by the libraries made for them
  prometheus-cpp-dev    # /metrics text exposition (net links only its core library)
  nlohmann-json3-dev    # client_sim's JSON report; the Agones GET /gameserver answer
  # issue 9 (zones on many processes): the cluster joins zone servers through NATS
  libnats-dev           # cluster: the NATS C client (request/reply, JetStream key-value)
  # the Python reference client (examples/python) and its integration test
  python3
)
# What only the tests, benchmarks, lint and fuzz targets need. Left out where
# ZS_NO_TEST_TOOLS=1: the Dockerfile's build stage builds only zone_server and client_sim.
TEST_TOOLS=(
  clang-format
  clang-tidy            # scripts/lint.sh --tidy
  clang                 # fuzz targets (scripts/fuzz.sh): libFuzzer needs clang ...
  libclang-rt-14-dev    # ... and its runtime (libFuzzer, ASan, UBSan for clang)
  postgresql            # the PostgreSQL server: storage tests start their own (initdb, pg_ctl)
  nats-server           # the NATS server (with JetStream: -js); cluster tests start their own
  jq                    # scripts/loadtest.sh and soak.sh read client_sim's report
  python3-protobuf      # the Python reference client's test
  python3-yaml          # scripts/check-k8s.sh reads the Kubernetes manifests
  libgtest-dev
  libgmock-dev
  libbenchmark-dev
  stress-ng             # a busy machine beside the integration tests (they must still pass)
)
[[ "${ZS_NO_TEST_TOOLS:-0}" == 1 ]] || PACKAGES+=("${TEST_TOOLS[@]}")
# zone viewer (issue 11): the browser test opens /viewer in headless Chromium (driven through
# its DevTools protocol), and scripts/loadtest.sh draws its chart (SVG) with gnuplot (the build
# without X11). Left out where ZS_NO_BROWSER_TOOLS=1 (the Dockerfile's build stage runs neither).
BROWSER_TOOLS=(
  chromium
  gnuplot-nox
)
[[ "${ZS_NO_BROWSER_TOOLS:-0}" == 1 ]] || PACKAGES+=("${BROWSER_TOOLS[@]}")
# container image smoke test (scripts/docker-smoke.sh, scripts/docker-base.sh): podman builds and
# runs docker/Dockerfile without a Docker engine, with runc as its runtime (crun rejects hybrid
# cgroups); debootstrap makes the base images from the Debian mirror. podman brings conmon,
# containernetworking-plugins and iptables: rootful use needs nothing more. Left out where
# ZS_NO_CONTAINER_TOOLS=1 (the Dockerfile's build stage: nothing in the image runs images).
# podman-compose runs docker/compose.yaml's `cluster` profile (scripts/cluster-compose-smoke.sh);
# its services find each other by name (postgres, nats, zone-field), which podman's CNI
# networks answer only with the dnsname plugin.
CONTAINER_TOOLS=(
  podman
  runc
  debootstrap
  podman-compose
  golang-github-containernetworking-plugin-dnsname
)
[[ "${ZS_NO_CONTAINER_TOOLS:-0}" == 1 ]] || PACKAGES+=("${CONTAINER_TOOLS[@]}")

# npm packages (issue 39: the TypeScript SDK and the browser game), each folder's exact versions
# from its package-lock.json (`npm ci`), with the machine's Node.js (20 or newer: Debian 12's own
# nodejs is 18). Left out where ZS_NO_TEST_TOOLS=1 (the Dockerfile's build stage: the image
# serves no page and runs no SDK test).
NPM_FOLDERS=()
if [[ "${ZS_NO_TEST_TOOLS:-0}" != 1 ]]; then
  for folder in clients/typescript web/play; do
    [[ -f "$(dirname "$0")/../$folder/package-lock.json" ]] && NPM_FOLDERS+=("$(dirname "$0")/../$folder")
  done
fi

# The npm folders whose node_modules is missing or older than their lock file.
missing_npm() {
  local folder
  for folder in "${NPM_FOLDERS[@]}"; do
    if [[ ! -f "$folder/node_modules/.package-lock.json" ||
          "$folder/package-lock.json" -nt "$folder/node_modules/.package-lock.json" ]]; then
      echo "$folder"
    fi
  done
}

install_npm() {
  local folder
  if ((${#NPM_FOLDERS[@]} == 0)); then return 0; fi
  if ! node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' 2>/dev/null; then
    echo "install-deps.sh: Node.js 20 or newer with npm is needed for ${NPM_FOLDERS[*]}" \
         "(found: $(node --version 2>/dev/null || echo none); Debian 12's nodejs is 18)" >&2
    exit 1
  fi
  for folder in $(missing_npm); do
    echo "install-deps.sh: npm ci in $folder"
    npm ci --prefix "$folder" --no-audit --no-fund
  done
}

missing_packages() {
  local pkg
  for pkg in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
      echo "$pkg"
    fi
  done
}

if [[ "${1:-}" == "--check" ]]; then
  missing="$(missing_packages)"
  if [[ -n "$missing" ]]; then
    echo "missing packages:" $missing >&2
    exit 1
  fi
  missing="$(missing_npm)"
  if [[ -n "$missing" ]]; then
    echo "npm packages not installed in:" $missing >&2
    exit 1
  fi
  exit 0
fi

SUDO=""
if [[ "$(id -u)" -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "install-deps.sh: run as root (or install sudo)" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# dpkg without an fsync per file (--force-unsafe-io): a fresh machine unpacks ~2 GB here. The
# price is only a power cut during the install, which may leave a package's files half-written
# (apt-get install --reinstall mends it).
$SUDO apt-get install -y -q --no-install-recommends -o Dpkg::Options::=--force-unsafe-io \
  "${PACKAGES[@]}"
install_npm
