#!/usr/bin/env bash
# Runs docker/compose.yaml's `cluster` profile for real with podman-compose (no Docker engine,
# no image registry) and checks that players cross between its two nodes:
#   - builds the images the profile uses (zone-server, and NATS and PostgreSQL from Debian's
#     packages: docker/cluster/*.Dockerfile) through `podman-compose build`;
#   - starts the cluster's services in a project of its own, the way docker/compose.yaml
#     documents for podman-compose (which has no --profile): NATS, PostgreSQL, the town and
#     field nodes, and client_sim's 200 `zones` bots, which run 60 s and stop;
#   - client_sim's summary: logins, hand-offs followed, and 0 protocol violations;
#   - each node's /metrics (admin ports published on 127.0.0.1:9110 and :9111): hand-offs
#     accepted and arrived, both > 0 on both nodes;
#   - `down -v` (and the project's network) on the way out, whatever happened.
#
#   scripts/cluster-compose-smoke.sh   # last line: "cluster-compose-smoke: PASS ...", or FAIL
#
# Exit status: 0 on PASS; 0 with "cluster-compose-smoke: SKIPPED: <reason>" when podman cannot
# run containers here (as scripts/docker-smoke.sh); 1 on any real failure. Needs root (rootful
# podman, debootstrap for the base images), and the host ports 7787, 7788, 9110 and 9111 free.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh
# shellcheck source=scripts/lib/metrics.sh
source scripts/lib/metrics.sh

compose=(podman-compose -f docker/compose.yaml)
services=(nats postgres zone-town zone-field client-sim-zones)
project="zscluster$$"
work=build/cluster-compose-smoke
started=$SECONDS

say() { echo "cluster-compose-smoke: $*"; }
skip() {
  say "SKIPPED: $*"
  exit 0
}
fail() {
  say "FAIL: $*"
  exit 1
}
elapsed() { echo "$((SECONDS - $1)) s"; }

# --- can podman run containers here? ----------------------------------------------------------
command -v podman >/dev/null || skip "podman is not installed (scripts/install-deps.sh installs it)"
[[ "$(id -u)" -eq 0 ]] || skip "not root: this script uses rootful podman (and debootstrap for the base images)"
ensure_deps # podman-compose and the CNI dnsname plugin among them

mkdir -p "$work"
podman_conf "$work" scripts/cluster-compose-smoke.sh

t=$SECONDS
scripts/docker-base.sh || fail "cannot make the base images (scripts/docker-base.sh)"
if ! probe=$(podman run --rm debian:bookworm-slim true 2>&1); then
  skip "podman cannot run a container here: $(tail -1 <<<"$probe")"
fi
say "base images ready ($(elapsed "$t"))"

for port in 7787 7788 9110 9111; do
  if ss -Hltn "sport = :$port" | grep -q .; then
    fail "host port $port is taken (another cluster running?): the profile publishes it"
  fi
done

# --- build ---------------------------------------------------------------------------------------
# zone-town's build is the zone server's image (zone-server:latest); BUILDAH_FORMAT=docker keeps
# the images' HEALTHCHECKs (the OCI format drops them). Images a build replaces are removed, so
# that they do not pile up from run to run; layers still in use stay. The zone server's build
# stage is tagged zone-server-build:latest, as scripts/docker-smoke.sh does, for the same reason.
t=$SECONDS
images=(zone-server:latest zone-server-build:latest zone-nats:latest zone-postgres:latest)
id_of() { podman image inspect --format '{{.Id}}' "$1" 2>/dev/null || true; }
old_ids=()
for image in "${images[@]}"; do old_ids+=("$(id_of "$image")"); done
say "building ${images[*]} (log: $work/build.log)"
if ! BUILDAH_FORMAT=docker nice -n 10 "${compose[@]}" build zone-town nats postgres \
  >"$work/build.log" 2>&1; then
  tail -30 "$work/build.log"
  fail "podman-compose build failed (log: $work/build.log)"
fi
# The build stage's image: the last "--> ID" before the runtime stage starts (zone-town is built
# first, one stage at a time).
stage_id=$(awk '/^\[2\/2\] STEP / { exit } /^--> [0-9a-f]+$/ { id = $NF } END { print id }' \
  "$work/build.log")
[[ -n "$stage_id" ]] && podman tag "$stage_id" zone-server-build:latest
for i in "${!images[@]}"; do
  new=$(id_of "${images[$i]}")
  [[ -n "$new" ]] || fail "podman-compose build made no ${images[$i]} (log: $work/build.log)"
  if [[ -n "${old_ids[$i]}" && "${old_ids[$i]}" != "$new" ]]; then
    podman rmi "${old_ids[$i]}" >/dev/null 2>&1 || true
  fi
done
say "images built in $(elapsed "$t")"

# --- up --------------------------------------------------------------------------------------
cleanup() {
  local rc=$?
  if [[ $rc -ne 0 ]]; then
    local s
    for s in "${services[@]}"; do
      echo "--- ${project}_${s}_1 (last lines)"
      podman logs "${project}_${s}_1" 2>&1 | tail -15 || true
    done
  fi
  "${compose[@]}" -p "$project" down -v -t 5 >"$work/down.log" 2>&1 || true
  # podman-compose 1.0.3's down leaves the project's network behind.
  podman network rm -f "${project}_cluster" >/dev/null 2>&1 || true
}
trap cleanup EXIT

# The nodes run in token mode (docker/cluster/*.yaml); client_sim mints with the same secret.
scripts/make-secret.sh docker/secrets/zs_auth >/dev/null
t=$SECONDS
say "starting ${services[*]} as project $project (log: $work/up.log)"
"${compose[@]}" -p "$project" up -d "${services[@]}" >"$work/up.log" 2>&1 ||
  { tail -30 "$work/up.log"; fail "podman-compose up failed (log: $work/up.log)"; }
running() { [[ "$(podman inspect --format '{{.State.Running}}' "${project}_$1_1" 2>/dev/null)" == true ]]; }
for s in "${services[@]}"; do
  podman container exists "${project}_${s}_1" || { tail -30 "$work/up.log"; fail "no container for $s"; }
done
say "containers created in $(elapsed "$t")"

# --- the bots walk between the nodes for 60 s, then stop ------------------------------------------
t=$SECONDS
bots="${project}_client-sim-zones_1"
deadline=$((SECONDS + 300))
while running client-sim-zones; do
  [[ $SECONDS -lt $deadline ]] || fail "client_sim still running after 300 s"
  for s in nats postgres zone-town zone-field; do running "$s" || fail "$s stopped while the bots played"; done
  sleep 2
done
code=$(podman inspect --format '{{.State.ExitCode}}' "$bots")
podman logs "$bots" >"$work/client_sim.log" 2>&1
summary=$(grep '^client_sim zones:' "$work/client_sim.log" || true)
handoffs=$(grep 'hand-offs to other servers:' "$work/client_sim.log" || true)
[[ -n "$summary" ]] || { tail -20 "$work/client_sim.log"; fail "client_sim printed no summary (exit $code)"; }
violations=$(sed -n 's/.*| violations \([0-9]*\).*/\1/p' <<<"$summary")
logins=$(sed -n 's/.*logins ok \([0-9]*\).*/\1/p' <<<"$summary")
followed=$(sed -n 's/.*: \([0-9]*\) followed.*/\1/p' <<<"$handoffs")
[[ "$violations" == 0 ]] || { cat "$work/client_sim.log"; fail "client_sim: $violations protocol violations"; }
[[ "${logins:-0}" -gt 0 && "${followed:-0}" -gt 0 ]] ||
  { cat "$work/client_sim.log"; fail "client_sim: logins ok ${logins:-0}, hand-offs followed ${followed:-0}"; }
say "client_sim: exit $code, logins ok $logins, hand-offs followed $followed, 0 violations ($(elapsed "$t"))"
say "  ${handoffs#  }"

# --- the nodes' own counts ------------------------------------------------------------------------
metric() {  # admin port, metric name: its value (a counter without labels) from GET /metrics
  local body
  body=$(zs_http_get "$1" /metrics 5 | tr -d '\r') || return 1
  awk -v m="$2" '$1 == m { printf "%d\n", $2; found = 1 } END { if (!found) print 0 }' <<<"$body"
}
counts=""
for node in town:9110 field:9111; do
  name="${node%%:*}" port="${node##*:}"
  accepted=$(metric "$port" zs_handoffs_accepted_total) || fail "no /metrics from $name at 127.0.0.1:$port"
  arrived=$(metric "$port" zs_handoffs_arrived_total)
  [[ "$accepted" -gt 0 && "$arrived" -gt 0 ]] ||
    fail "$name (127.0.0.1:$port): zs_handoffs_accepted_total $accepted, zs_handoffs_arrived_total $arrived"
  counts+=" $name: accepted $accepted, arrived $arrived;"
done
say "/metrics:${counts%;}"

say "PASS: hand-offs${counts%;}; client_sim $followed followed, 0 violations ($(elapsed "$started") in all)"
