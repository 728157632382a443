#!/usr/bin/env bash
# CI check for docker/ (there is no Docker engine on our machines):
#   1. every path the Dockerfile COPYs from the build context exists, and .dockerignore does
#      not leave it out of the context;
#   2. the runtime stage's package list provides every shared library that `ldd` shows for the
#      given binaries (mapped to packages with `dpkg -S`), apart from what debian:bookworm-slim
#      already has: the listed packages or what apt installs with them (their dependencies,
#      from `apt-cache depends --recurse`: libpq5 brings its Kerberos and LDAP libraries).
#
#   scripts/check-docker.sh <zone_server binary> <client_sim binary>
set -euo pipefail
cd "$(dirname "$0")/.."
dockerfile=docker/Dockerfile
[[ $# -ge 1 ]] || { echo "usage: $0 BINARY..." >&2; exit 2; }
fail=0

# 1. COPY sources (skip --from=... copies out of another stage). .dockerignore is checked for
#    its plain top-level entries (`tests/`, `.git`), which are all it has.
ignored=$(sed -e 's/#.*//' -e 's:/*[[:space:]]*$::' .dockerignore 2>/dev/null | grep -v '^$' || true)
while read -r src; do
  if [[ ! -e "$src" ]]; then
    echo "Dockerfile copies '$src', which does not exist" >&2
    fail=1
  fi
  top="${src%%/*}"
  if grep -qxF "$top" <<<"$ignored"; then
    echo "Dockerfile copies '$src', which .dockerignore leaves out of the build context" >&2
    fail=1
  fi
done < <(awk '$1 == "COPY" && $2 !~ /^--from/ { for (i = 2; i < NF; i++) print $i }' "$dockerfile")

for f in docker/compose.yaml docker/prometheus.yml; do
  [[ -f "$f" ]] || { echo "missing $f" >&2; fail=1; }
done

# 2. Runtime packages: the list between the markers in the runtime stage.
runtime=$(sed -n '/runtime-packages-begin/,/runtime-packages-end/p' "$dockerfile" |
  tr ' \\' '\n\n' | grep -E '^lib[a-z0-9.+-]+$' | sort -u)
[[ -n "$runtime" ]] || { echo "no runtime package list found in $dockerfile" >&2; exit 1; }
# Packages every debian:bookworm-slim image has (priority required).
base="libc6 libgcc-s1 libstdc++6 zlib1g libzstd1 liblzma5 libbz2-1.0 libcrypt1 libselinux1 libpcre2-8-0"
# What apt installs with the listed packages (hard dependencies only, as --no-install-recommends).
# shellcheck disable=SC2086
closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
  --no-replaces --no-enhances $runtime 2>/dev/null | grep -E '^[a-z0-9]' | sed 's/:.*//' | sort -u)

package_of() {  # the package that ships a library path (usrmerge: try with and without /usr)
  local p="$1" alt
  dpkg -S "$p" 2>/dev/null | head -1 | cut -d: -f1 && return
  alt="${p#/usr}"
  dpkg -S "$alt" 2>/dev/null | head -1 | cut -d: -f1 && return
  dpkg -S "/usr$p" 2>/dev/null | head -1 | cut -d: -f1
}

for bin in "$@"; do
  [[ -x "$bin" ]] || { echo "no such binary: $bin" >&2; fail=1; continue; }
  while read -r lib path; do
    [[ -n "$path" && "$path" != "not" ]] || { echo "$bin: $lib not found by ldd" >&2; fail=1; continue; }
    pkg=$(package_of "$path")
    [[ -n "$pkg" ]] || pkg=$(package_of "$(realpath "$path")")
    if [[ -z "$pkg" ]]; then
      echo "$bin: cannot map $path to a Debian package" >&2
      fail=1
    elif ! grep -qx "$pkg" <<<"$runtime" && ! grep -qx "$pkg" <<<"$closure" &&
      ! grep -qw "$pkg" <<<"$base"; then
      echo "$bin needs $lib from package $pkg, missing from the runtime stage" >&2
      fail=1
    fi
  done < <(ldd "$bin" | awk '/=>/ { print $1, $3 }')
done

if [[ $fail -ne 0 ]]; then
  echo "docker check: FAILED" >&2
  exit 1
fi
echo "docker check: ok (runtime packages: $(echo $runtime))"
