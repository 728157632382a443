# shellcheck shell=bash
# Shared by the scripts that run zone_server nodes of a cluster of their own (scripts/handoffs.sh,
# border.sh): a PostgreSQL cluster from initdb on a unix socket and a nats-server with JetStream
# on a free loopback port, both in a work directory, started and stopped. Source it from the
# repository root, after `set -euo pipefail` (jq must be installed: scripts/install-deps.sh).
#
#   # shellcheck source=scripts/lib/cluster.sh
#   source scripts/lib/cluster.sh
#
# zs_cluster_start sets ZS_PG_BIN, ZS_PG_PID, ZS_PG_CONNINFO, ZS_NATS_PID and ZS_NATS_URL.
# As root, PostgreSQL runs as user postgres (initdb refuses root), as
# tests/support/postgres_server.h does.

zs_pg_as() {  # runs a PostgreSQL command as user postgres under root, else as is
  if (( EUID == 0 )); then runuser -u postgres -- "$@"; else "$@"; fi
}

# zs_cluster_start WORK FSYNC
# Starts PostgreSQL (database `zone`, listening only on a socket in WORK/pg, fsync FSYNC: on or
# off) and nats-server -js (store in WORK/nats). Returns 1, after printing the failing server's
# log on stderr, when one does not start or is not installed.
zs_cluster_start() {
  local work="$1" fsync="$2" nats_bin _
  ZS_PG_BIN=$(find /usr/lib/postgresql -maxdepth 3 -name pg_ctl -path '*/bin/*' 2>/dev/null |
    sort -V | tail -1 | xargs -r dirname)
  nats_bin=$(command -v nats-server || echo /usr/sbin/nats-server)
  for _ in "$nats_bin" "$ZS_PG_BIN/initdb"; do
    [[ -x "$_" ]] || { echo "$_ not found (scripts/install-deps.sh)" >&2; return 1; }
  done
  chmod 755 "$work"
  mkdir -p "$work/pg" "$work/nats"
  if (( EUID == 0 )); then chown postgres: "$work/pg"; fi
  zs_pg_as "$ZS_PG_BIN/initdb" -D "$work/pg/data" -A trust -U postgres -E UTF8 --no-sync \
    >"$work/pg/initdb.log" 2>&1 || { cat "$work/pg/initdb.log" >&2; return 1; }
  zs_pg_as "$ZS_PG_BIN/pg_ctl" -D "$work/pg/data" -l "$work/pg/server.log" \
    -o "-k $work/pg -c listen_addresses='' -c fsync=$fsync" -w start >/dev/null ||
    { cat "$work/pg/server.log" >&2; return 1; }
  zs_pg_as "$ZS_PG_BIN/createdb" -h "$work/pg" -U postgres zone
  ZS_PG_PID=$(head -1 "$work/pg/data/postmaster.pid")
  # shellcheck disable=SC2034  # read by the caller
  ZS_PG_CONNINFO="host=$work/pg dbname=zone user=postgres"
  # NATS on a free loopback port (-p -1), which it writes to a ports file.
  "$nats_bin" -js -a 127.0.0.1 -p -1 -sd "$work/nats/store" --ports_file_dir "$work/nats" \
    -l "$work/nats/server.log" &
  ZS_NATS_PID=$!
  ZS_NATS_URL=""
  for _ in $(seq 100); do
    ZS_NATS_URL=$(jq -r '.nats[0] // empty' "$work/nats/nats-server_${ZS_NATS_PID}.ports" \
      2>/dev/null || true)
    [[ -n "$ZS_NATS_URL" ]] && return 0
    sleep 0.1
  done
  echo "nats-server did not start" >&2
  cat "$work/nats/server.log" >&2
  return 1
}

# zs_cluster_stop WORK
# Stops what zs_cluster_start started (what of it is running). Returns 0.
zs_cluster_stop() {
  local work="$1"
  if [[ -n "${ZS_NATS_PID:-}" ]]; then kill "$ZS_NATS_PID" 2>/dev/null || true; fi
  if [[ -f "$work/pg/data/postmaster.pid" ]]; then
    zs_pg_as "$ZS_PG_BIN/pg_ctl" -D "$work/pg/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
}

# zs_pg_ticks
# Prints the CPU clock ticks PostgreSQL used so far: the postmaster and its children (backends,
# writers). REQUIRES: scripts/lib/server.sh (zs_cpu_ticks).
zs_pg_ticks() {
  local total pid
  total=$(zs_cpu_ticks "$ZS_PG_PID" 0)
  for pid in $(pgrep -P "$ZS_PG_PID"); do total=$(( total + $(zs_cpu_ticks "$pid" 0) )); done
  echo "$total"
}

# zs_machine_ticks
# Prints the clock ticks the whole machine was busy so far, every core (/proc/stat: all but
# idle and iowait).
zs_machine_ticks() {
  local -a f
  read -r -a f </proc/stat
  echo $(( f[1] + f[2] + f[3] + f[6] + f[7] + f[8] ))
}
