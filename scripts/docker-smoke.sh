#!/usr/bin/env bash
# Builds docker/Dockerfile with podman (no Docker engine needed) and checks what a
# `docker compose up` relies on, on the running image:
#   - no open door: without its token secret the image refuses to start, and with auth mode
#     none on 0.0.0.0 too;
#   - the server runs as a non-root user;
#   - the image kept its HEALTHCHECK (`--format docker`: the OCI format drops it), and it passes;
#   - /healthz answers "ok" through the published admin port, although the container was given
#     arguments (which replace CMD: the admin address must not depend on it);
#   - 20 client_sim bots from the same image, logging in with tokens minted from the mounted
#     secret, play 10 s with 0 protocol violations;
#   - the HEALTHCHECK follows ZS_ADMIN_PORT when it is changed;
#   - client_sim as PID 1 stops on SIGTERM with its summary;
#   - `podman stop` (SIGTERM) -> exit code 0, the server's shutdown log line and its final save;
#   - started again, the server loads the bots' characters it saved.
#
#   scripts/docker-smoke.sh             # last line: "docker-smoke: PASS", or FAIL and why
#   scripts/docker-smoke.sh --no-cache  # the same from a cold build (every layer made again)
#   scripts/docker-smoke.sh --build-only  # the base images and the image, no checks (CI builds
#                                         # it while other tests run; the full run then finds
#                                         # every layer made)
#
# Exit status: 0 on PASS; 0 with "docker-smoke: SKIPPED: <reason>" when podman cannot run
# containers on this machine (CI says so and goes on); 1 on any real failure.
#
# Podman here: base images debian:bookworm and debian:bookworm-slim made locally
# (scripts/docker-base.sh, kept in podman's storage); runc as the runtime (crun rejects hybrid
# cgroups) and the container ulimits capped at this machine's hard limits (podman's defaults are
# above them, and runc may not raise a limit), both through a CONTAINERS_CONF file in
# build/docker-smoke/ rather than /etc. Needs root (rootful podman, debootstrap).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh
# shellcheck source=scripts/lib/metrics.sh
source scripts/lib/metrics.sh

build_args=()
build_only=0
case "${1:-}" in
  "") ;;
  --no-cache) build_args+=(--no-cache) ;;
  --build-only) build_only=1 ;;
  *)
    echo "usage: scripts/docker-smoke.sh [--no-cache | --build-only]" >&2
    exit 2
    ;;
esac
image="${ZS_SMOKE_IMAGE:-zone-server:latest}"
work=build/docker-smoke
tag="zs-smoke-$$"
server="$tag-server"
started=$SECONDS

say() { echo "docker-smoke: $*"; }
skip() {
  say "SKIPPED: $*"
  exit 0
}
fail() {
  say "FAIL: $*"
  exit 1
}
elapsed() { echo "$((SECONDS - $1)) s"; }
# podman, less its "unable to get systemd connection" errors: with no systemd here it cannot
# schedule the periodic health checks (this script runs them with `podman healthcheck run`).
pm() {
  local rc=0
  podman "$@" 2>"$work/podman.err" || rc=$?
  grep -v 'systemd connection' "$work/podman.err" >&2 || true
  return $rc
}

# --- can podman run containers here? ----------------------------------------------------------
command -v podman >/dev/null || skip "podman is not installed (scripts/install-deps.sh installs it)"
[[ "$(id -u)" -eq 0 ]] || skip "not root: this script uses rootful podman (and debootstrap for the base images)"

mkdir -p "$work"
podman_conf "$work" scripts/docker-smoke.sh

containers=()
cleanup() {
  local c
  for c in "${containers[@]}"; do podman rm -f -v -t 0 "$c" >/dev/null 2>&1 || true; done
  rm -f "$work/podman.err"
}
trap cleanup EXIT
run_container() {  # name, then `podman run` arguments; records the name for cleanup
  containers+=("$1")
  pm run --name "$@"
}

t=$SECONDS
scripts/docker-base.sh || fail "cannot make the base images (scripts/docker-base.sh)"
say "base images ready ($(elapsed "$t"))"
if ! probe=$(podman run --rm debian:bookworm-slim true 2>&1); then
  skip "podman cannot run a container here: $(tail -1 <<<"$probe")"
fi

# --- build -------------------------------------------------------------------------------------
t=$SECONDS
say "building $image (log: $work/build.log)"
# The build stage gets a tag of its own ($image-build), so that the one a new build replaces can
# be removed like the old image: neither piles up in podman's storage from run to run. Layers
# the new images still use (the package layer, the base images) stay. (One build, one stage at a
# time, so that the build stage's last layer is the last "--> ID" before stage 2 starts.)
build_stage="${image%%:*}-build:latest"
id_of() { podman image inspect --format '{{.Id}}' "$1" 2>/dev/null || true; }
old_image=$(id_of "$image")
old_stage=$(id_of "$build_stage")
if [[ ${#build_args[@]} -gt 0 ]]; then
  # Cold: the old images go first, with the layers only they use (the package layer among
  # them), so that no older copy of a layer is left for later builds to pick up instead.
  podman rmi "$image" >/dev/null 2>&1 || true
  podman rmi "$build_stage" >/dev/null 2>&1 || true
  old_image="" old_stage=""
fi
# Each log line stamped with the time, to see where the minutes go.
if ! nice -n 10 podman build --format docker --jobs 1 -f docker/Dockerfile -t "$image" \
  ${build_args[@]+"${build_args[@]}"} . 2>&1 |
  while IFS= read -r line; do printf '%(%T)T %s\n' -1 "$line"; done >"$work/build.log"; then
  tail -30 "$work/build.log"
  fail "podman build failed (log: $work/build.log)"
fi
stage_id=$(awk '/ \[2\/2\] STEP / { exit } / --> [0-9a-f]+$/ { id = $NF } END { print id }' \
  "$work/build.log")
[[ -n "$stage_id" ]] && podman tag "$stage_id" "$build_stage"
for pair in "$old_image:$image" "$old_stage:$build_stage"; do
  old="${pair%%:*}"
  if [[ -n "$old" && "$old" != "$(id_of "${pair#*:}")" ]]; then
    podman rmi "$old" >/dev/null 2>&1 || true
  fi
done
say "built $image in $(elapsed "$t") ($(podman image inspect --format '{{.Size}}' "$image" | numfmt --to=iec))"
if ((build_only)); then
  say "BUILT (no checks run: --build-only)"
  exit 0
fi

health=$(podman image inspect --format '{{json .Config.Healthcheck}}' "$image")
[[ "$health" == *healthz* && "$health" == *ZS_ADMIN_PORT* ]] ||
  fail "the image has no HEALTHCHECK on /healthz at \$ZS_ADMIN_PORT (got: $health)"

# --- the image is no open door ------------------------------------------------------------------
# Token mode (the image's ZS_AUTH_*): without its secret it refuses to start, naming the file;
# told auth mode none while listening beyond loopback, it refuses too.
scripts/make-secret.sh "$work/zs_auth" >/dev/null
secret=(-v "$PWD/$work/zs_auth:/run/secrets/zs_auth:ro")
mint=(--token-secret-file /run/secrets/zs_auth)
out=$(podman run --rm --no-healthcheck "$image" 2>&1) && fail "the image started without its secret"
[[ "$out" == *"/run/secrets/zs_auth: cannot be read"* ]] ||
  fail "without its secret the image did not say which file is missing: $out"
out=$(podman run --rm --no-healthcheck -e ZS_AUTH_MODE=none "$image" 2>&1) &&
  fail "the image started with auth mode none on 0.0.0.0"
[[ "$out" == *"auth.mode is none while the game port listens on 0.0.0.0"* ]] ||
  fail "auth mode none on 0.0.0.0 was not refused with the open-door reason: $out"
say "no open door: no secret -> refused, auth mode none on 0.0.0.0 -> refused"

# --- the server, with arguments (which replace CMD) --------------------------------------------
t=$SECONDS
run_container "$server" -d -p 127.0.0.1::7777 -p 127.0.0.1::9100 "${secret[@]}" "$image" \
  --max-connections-per-ip 100 >/dev/null
game_port=$(podman port "$server" 7777/tcp | sed 's/.*://')
admin_port=$(podman port "$server" 9100/tcp | sed 's/.*://')
[[ -n "$game_port" && -n "$admin_port" ]] || fail "no published ports: $(podman port "$server")"
healthy=0
for _ in $(seq 1 60); do
  if podman healthcheck run "$server" >/dev/null 2>&1; then
    healthy=1
    break
  fi
  [[ "$(podman inspect --format '{{.State.Running}}' "$server")" == true ]] || break
  sleep 0.5
done
[[ $healthy -eq 1 ]] || { podman logs "$server" 2>&1 | tail -20; fail "the HEALTHCHECK never passed"; }
say "server up and healthy in $(elapsed "$t") (game 127.0.0.1:$game_port, admin 127.0.0.1:$admin_port)"

uid=$(podman exec "$server" id -u)
pid1_uid=$(podman exec "$server" awk '/^Uid:/ { print $2 }' /proc/1/status)
[[ "$uid" != 0 && "$pid1_uid" != 0 ]] || fail "the server runs as root (id -u: $uid, PID 1 uid: $pid1_uid)"
say "non-root: uid $uid (PID 1 too)"

healthz() {  # GET /healthz on 127.0.0.1:$1 through bash's /dev/tcp; prints the body
  local body
  body=$(zs_http_get "$1" /healthz 5 | tr -d '\r' | sed '1,/^$/d') || return 1
  echo "$body"
}
body=$(healthz "$admin_port" || true)
[[ "$body" == ok* ]] || fail "/healthz through the published port 127.0.0.1:$admin_port said '$body'"
say "/healthz through the published port: ok"

# --- 20 bots from the same image ----------------------------------------------------------------
t=$SECONDS
if ! run_container "$tag-bots" --rm --network host --no-healthcheck \
  "${secret[@]}" --entrypoint /usr/local/bin/client_sim "$image" "${mint[@]}" \
  --host 127.0.0.1 --port "$game_port" --bots 20 --ramp 20 --duration 10 --scenario raid \
  --max-violations 0 --max-failed-logins 0 >"$work/client_sim.log" 2>&1; then
  cat "$work/client_sim.log"
  fail "client_sim: 20 bots against the server container failed"
fi
summary=$(grep '^client_sim raid:' "$work/client_sim.log" || true)
[[ "$summary" == *"logins ok 20 failed 0"* && "$summary" == *"violations 0" ]] ||
  { cat "$work/client_sim.log"; fail "client_sim's summary is not 20 logins and 0 violations"; }
say "client_sim: 20 bots, 0 violations ($(elapsed "$t"))"

# --- the HEALTHCHECK follows ZS_ADMIN_PORT ------------------------------------------------------
t=$SECONDS
run_container "$tag-port" -d -e ZS_ADMIN_PORT=9190 "${secret[@]}" "$image" --port 7001 >/dev/null
healthy=0
for _ in $(seq 1 60); do
  if podman healthcheck run "$tag-port" >/dev/null 2>&1; then
    healthy=1
    break
  fi
  sleep 0.5
done
[[ $healthy -eq 1 ]] || { podman logs "$tag-port" 2>&1 | tail; fail "with ZS_ADMIN_PORT=9190 the HEALTHCHECK never passed"; }
podman logs "$tag-port" 2>&1 | grep -q 'admin http://0.0.0.0:9190/' ||
  fail "with ZS_ADMIN_PORT=9190 the server did not listen on 0.0.0.0:9190"
pm rm -f -t 0 "$tag-port" >/dev/null
say "ZS_ADMIN_PORT=9190: the server listens there and the HEALTHCHECK follows ($(elapsed "$t"))"

# --- client_sim as PID 1 stops on SIGTERM --------------------------------------------------------
t=$SECONDS
run_container "$tag-stop" -d --network host --no-healthcheck --entrypoint /usr/local/bin/client_sim \
  "${secret[@]}" "$image" "${mint[@]}" --host 127.0.0.1 --port "$game_port" --bots 5 \
  --duration 600 >/dev/null
sleep 3
t_stop=$SECONDS
pm stop -t 10 "$tag-stop" >/dev/null
stop_s=$((SECONDS - t_stop))
code=$(podman inspect --format '{{.State.ExitCode}}' "$tag-stop")
[[ "$code" == 0 && $stop_s -lt 8 ]] ||
  { podman logs "$tag-stop" 2>&1 | tail; fail "client_sim on SIGTERM: exit $code after $stop_s s (want 0, promptly)"; }
podman logs "$tag-stop" 2>&1 | grep -q 'stopped early by SIGTERM' ||
  { podman logs "$tag-stop" 2>&1 | tail; fail "client_sim printed no summary on SIGTERM"; }
pm rm -f -t 0 "$tag-stop" >/dev/null
say "client_sim as PID 1: SIGTERM -> summary, exit 0 in $stop_s s"

# --- graceful stop -------------------------------------------------------------------------------
t=$SECONDS
pm stop -t 15 "$server" >/dev/null
code=$(podman inspect --format '{{.State.ExitCode}}' "$server")
logs=$(podman logs "$server" 2>&1)
[[ "$code" == 0 ]] || { tail -20 <<<"$logs"; fail "podman stop: the server exited with $code, not 0"; }
if ! grep -q 'shutting down' <<<"$logs" || ! grep -q 'zone_server stopped' <<<"$logs"; then
  tail -20 <<<"$logs"
  fail "no shutdown log lines ('shutting down', 'zone_server stopped')"
fi
grep -q 'characters saved' <<<"$logs" || { tail -20 <<<"$logs"; fail "no 'characters saved' line on stop"; }
say "podman stop: exit 0 in $(elapsed "$t"), log: $(grep -o 'signal [0-9]*: shutting down' <<<"$logs")"

# --- characters survive a restart of the container (SQLite in /var/lib/zone_server) -------------
t=$SECONDS
pm start "$server" >/dev/null
game_port=$(podman port "$server" 7777/tcp | sed 's/.*://')
for _ in $(seq 1 60); do
  podman healthcheck run "$server" >/dev/null 2>&1 && break
  sleep 0.5
done
if ! run_container "$tag-again" --rm --network host --no-healthcheck \
  "${secret[@]}" --entrypoint /usr/local/bin/client_sim "$image" "${mint[@]}" \
  --host 127.0.0.1 --port "$game_port" --bots 5 --ramp 5 --duration 2 --scenario raid \
  --max-violations 0 --max-failed-logins 0 >"$work/client_sim_again.log" 2>&1; then
  cat "$work/client_sim_again.log"
  fail "client_sim: 5 bots against the restarted server container failed"
fi
loaded=$(podman logs "$server" 2>&1 | grep -c "joined as 'bot[0-4]' (entity [0-9]*, loaded)" || true)
[[ "$loaded" -ge 5 ]] ||
  { podman logs "$server" 2>&1 | tail -20; fail "after a restart the bots' characters were not loaded ($loaded of 5)"; }
pm stop -t 15 "$server" >/dev/null
say "restarted: the 5 bots' characters were loaded from /var/lib/zone_server ($(elapsed "$t"))"

say "PASS ($(elapsed "$started") in all)"
