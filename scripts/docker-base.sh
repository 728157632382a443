#!/usr/bin/env bash
# Makes the Dockerfile's base images, debian:bookworm and debian:bookworm-slim, for podman on a
# machine that reaches Debian's package mirror but no image registry: debootstrap from the
# mirror this machine's apt uses, then `podman import`. An image that `podman image exists`
# already finds is kept (the images are cached in podman's storage; CI reuses them).
#
#   scripts/docker-base.sh          # make whichever of the two is missing
#   scripts/docker-base.sh --force  # make both again
#
# debian:bookworm is debootstrap's default variant (required + important packages);
# debian:bookworm-slim is --variant=minbase (required packages and apt only), like Docker Hub's.
# Both get this machine's Debian apt sources (bookworm, -updates, -security), so what the
# Dockerfile installs matches what scripts/install-deps.sh installs here.
# Needs root, debootstrap and podman (scripts/install-deps.sh installs them).
set -euo pipefail

force=0
[[ "${1:-}" == "--force" ]] && force=1

# The Debian mirror this machine's apt uses for bookworm (deb822 .sources or one-line .list).
host_mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f "$f" ]] || continue
    awk '
      /^URIs:/    { uri = $2 }
      /^Suites:/  { for (i = 2; i <= NF; i++) if ($i == "bookworm") ok = 1 }
      /^[ \t]*$/  { if (ok && uri != "") { print uri; exit } uri = ""; ok = 0 }
      END         { if (ok && uri != "") print uri }' "$f" | head -1
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f "$f" ]] || continue
    awk '$1 == "deb" { for (i = 2; i < NF; i++) if ($(i + 1) == "bookworm" && $i ~ /^[a-z]+:/) { print $i; exit } }' "$f"
  done
}

# The host's apt source files that name Debian's own archives (bookworm, -updates, -security):
# other vendors' lists need keyrings the image does not have.
host_debian_sources() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
    [[ -f "$f" ]] || continue
    if grep -Eq '^[^#]*bookworm' "$f" && ! grep -Eq '^[^#]*(URIs:|deb )[^#]*https?://[^ ]*(google|nodesource|docker)' "$f"; then
      echo "$f"
    fi
  done
}

make_image() {  # name, debootstrap variant ("" for the default)
  local name="$1" variant="$2" mirror rootfs f
  if [[ $force -eq 0 ]] && podman image exists "$name"; then
    echo "docker-base: $name exists"
    return
  fi
  mirror="$(host_mirror | head -1)"
  mirror="${mirror:-http://deb.debian.org/debian}"
  rootfs="$(mktemp -d "${TMPDIR:-/var/tmp}/zs-rootfs.XXXXXX")"
  cleanup+=("$rootfs")
  echo "docker-base: debootstrap ${variant:-default} bookworm from $mirror for $name"
  local args=(--arch=amd64)
  [[ -n "$variant" ]] && args+=("--variant=$variant")
  debootstrap "${args[@]}" bookworm "$rootfs" "$mirror" >"$rootfs.log" 2>&1 || {
    tail -20 "$rootfs.log" >&2
    echo "docker-base: debootstrap failed (full log: $rootfs.log)" >&2
    return 1
  }
  rm -f "$rootfs.log"
  # The host's Debian sources replace debootstrap's one-line sources.list.
  local sources
  sources="$(host_debian_sources)"
  if [[ -n "$sources" ]]; then
    rm -f "$rootfs/etc/apt/sources.list"
    for f in $sources; do cp "$f" "$rootfs/etc/apt/sources.list.d/"; done
    [[ -f "$rootfs/etc/apt/sources.list.d/sources.list" ]] &&
      mv "$rootfs/etc/apt/sources.list.d/sources.list" "$rootfs/etc/apt/sources.list"
  fi
  # Docker Hub's images keep no package lists or caches; neither do these.
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb
  tar -C "$rootfs" --numeric-owner -c . |
    podman import -q --change 'CMD ["bash"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      - "$name" >/dev/null
  rm -rf "$rootfs"
  echo "docker-base: made $name ($(podman image inspect --format '{{.Size}}' "$name" | numfmt --to=iec))"
}

cleanup=()
trap 'rm -rf "${cleanup[@]}"' EXIT

if ! command -v debootstrap >/dev/null || ! command -v podman >/dev/null; then
  echo "docker-base: needs debootstrap and podman (scripts/install-deps.sh)" >&2
  exit 1
fi
[[ "$(id -u)" -eq 0 ]] || { echo "docker-base: run as root (debootstrap)" >&2; exit 1; }
make_image debian:bookworm ""
make_image debian:bookworm-slim minbase
