#!/usr/bin/env bash
# Waits until every host:port given accepts a TCP connection (bash's /dev/tcp: no tools needed
# in the image), then execs the command after `--`; gives up (exit 1) after $WAIT_FOR_SECONDS
# (120). The cluster's services start through it (docker/compose.yaml): Docker Compose already
# waits for depends_on's conditions, but podman-compose 1.0.3 starts each container as soon as
# the one before it was created, ready or not.
#
#   wait-for.sh postgres:5432 nats:4222 -- /usr/local/bin/zone_server --config ...
set -euo pipefail

targets=()
while [[ $# -gt 0 && "$1" != "--" ]]; do
  targets+=("$1")
  shift
done
[[ $# -gt 1 ]] || { echo "usage: wait-for.sh host:port... -- command [args]" >&2; exit 2; }
shift

deadline=$((SECONDS + ${WAIT_FOR_SECONDS:-120}))
for t in ${targets[@]+"${targets[@]}"}; do
  until (exec 3<>"/dev/tcp/${t%:*}/${t##*:}") 2>/dev/null; do
    if [[ $SECONDS -ge $deadline ]]; then
      echo "wait-for: $t did not answer within ${WAIT_FOR_SECONDS:-120} s" >&2
      exit 1
    fi
    sleep 0.5
  done
  echo "wait-for: $t is up"
done
exec "$@"
