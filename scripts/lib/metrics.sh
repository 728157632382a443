# shellcheck shell=bash
# Shared by the scripts that read a zone_server's admin endpoints (scripts/loadtest.sh,
# logins.sh, soak.sh, handoffs.sh, border.sh, viewer-cost.sh, docker-smoke.sh,
# cluster-compose-smoke.sh):
# GET a page with bash's /dev/tcp (no curl needed) and read values and histograms out of
# /metrics (Prometheus text). Source it from the repository root, after `set -euo pipefail`:
#
#   # shellcheck source=scripts/lib/metrics.sh
#   source scripts/lib/metrics.sh
#
# Every function talks to 127.0.0.1 and uses file descriptor 3 while it does.

# zs_http_get PORT PATH [SECONDS]
# Sends `GET PATH HTTP/1.0` to 127.0.0.1:PORT and prints the whole response as it comes: status
# line, headers (CRLF line ends) and body. The server closes the connection after its answer;
# with SECONDS, reading stops after that many seconds (timeout) even if it has not. Returns 1,
# printing nothing on stdout, when it cannot connect (bash reports why on stderr); 0 otherwise.
zs_http_get() {
  exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
  printf 'GET %s HTTP/1.0\r\nHost: localhost\r\n\r\n' "$2" >&3
  if [[ -n "${3:-}" ]]; then timeout "$3" cat <&3; else cat <&3; fi
  exec 3<&-
}

# zs_metrics ADMIN_PORT
# Prints the server's /metrics response from admin port ADMIN_PORT, headers included (no
# metric line starts like a header). Returns 1 when it cannot connect, as zs_http_get.
zs_metrics() {
  zs_http_get "$1" /metrics
}

# zs_metric ADMIN_PORT NAME
# Prints the value of metric NAME on /metrics of admin port ADMIN_PORT: NAME is the whole
# series as the page writes it, labels included (zs_logins_total,
# 'zs_kicks_total{reason="idle"}'). Prints nothing when there is no such line. Returns 1 when it
# cannot connect.
zs_metric() {
  zs_metrics "$1" | awk -v name="$2" '$1 == name { print $2 }'
}

# zs_histogram_buckets ADMIN_PORT NAME
# Prints histogram NAME (without labels, e.g. zs_tick_duration_seconds) from /metrics of admin
# port ADMIN_PORT as "le count" lines, cumulative, in the page's order (the last is +Inf).
# Returns 1 when it cannot connect.
zs_histogram_buckets() {
  zs_metrics "$1" | sed -n "s/^$2_bucket{le=\"\([^\"]*\)\"} \([0-9]*\)\$/\1 \2/p"
}

# zs_quantile_ms BEFORE AFTER Q
# Prints quantile Q (0.5, 0.99), in ms, of what a histogram counted between two
# zs_histogram_buckets snapshots (files BEFORE and AFTER, same buckets): the upper bound of the
# bucket it falls in, as "<= 7.5"; ">1000" if it is the +Inf bucket; "n/a" if nothing was
# counted in between. Returns 0.
zs_quantile_ms() {
  paste "$1" "$2" | awk -v q="$3" '{ le[NR] = $1; d[NR] = $4 - $2 } END {
    total = d[NR]; if (total == 0) { print "n/a"; exit }
    for (i = 1; i <= NR; i++) if (d[i] >= q * total) {
      if (le[i] == "+Inf") print ">1000"; else printf "<= %g\n", le[i] * 1000; exit } }'
}

# zs_p99_ms BEFORE AFTER: zs_quantile_ms BEFORE AFTER 0.99.
zs_p99_ms() {
  zs_quantile_ms "$1" "$2" 0.99
}
