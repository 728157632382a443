#!/usr/bin/env bash
# Entry point of docker/cluster/postgres.Dockerfile (runs as the user postgres).
#
# First start (no $PGDATA/PG_VERSION): initdb with the superuser $POSTGRES_USER and the password
# $POSTGRES_PASSWORD (required), password logins (scram-sha-256) from any address, local socket
# logins trusted (pg_isready, psql inside the container); then the database $POSTGRES_DB
# (default: the user's name), made in single-user mode so that no client can connect before it
# exists. Every start: exec postgres, listening on all addresses, as PID 1 (SIGTERM: a smart
# shutdown; SIGINT: fast).
set -euo pipefail

: "${PGDATA:?}"
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"

if [[ ! -s "$PGDATA/PG_VERSION" ]]; then
  [[ -n "${POSTGRES_PASSWORD:-}" ]] || {
    echo "postgres-entrypoint: set POSTGRES_PASSWORD" >&2
    exit 1
  }
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb -D "$PGDATA" --username="$user" --pwfile="$pwfile" --encoding=UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [[ "$db" != postgres ]]; then
    # Identifiers quoted: a name is a name, not SQL.
    printf 'CREATE DATABASE "%s" OWNER "%s"\n' "${db//\"/\"\"}" "${user//\"/\"\"}" |
      postgres --single -D "$PGDATA" postgres >/dev/null
  fi
  echo "postgres-entrypoint: initialised $PGDATA (user $user, database $db)"
fi
exec postgres -D "$PGDATA" -c listen_addresses='*'
