# shellcheck shell=bash
# Shared by the scripts that run a zone_server of their own (scripts/loadtest.sh, logins.sh,
# soak.sh, handoffs.sh, border.sh, viewer-cost.sh, check-k8s.sh): start it, wait for the ports
# it writes, and read a process's CPU time. Source it from the repository root, after
# `set -euo pipefail`:
#
#   # shellcheck source=scripts/lib/server.sh
#   source scripts/lib/server.sh
#
# The functions use no globals of the caller's; zs_start_server sets ZS_SERVER_PID.

# zs_start_server PORT_FILE LOG BINARY [ARGUMENTS...]
# Starts BINARY (a zone_server) in the background with ARGUMENTS and then
# `--port-file PORT_FILE`, its stdout and stderr appended to LOG. PORT_FILE is removed first, so
# that one left by an earlier server is not taken for this one's (zs_wait_port_file waits for
# it). Sets ZS_SERVER_PID to the server's process id: a global, since a server started inside
# $(...) would be a child of that subshell, which the caller could neither wait for nor kill
# reliably. Prints nothing; returns 0. Variables assigned before the call
# (`VAR=value zs_start_server ...`) reach the server's environment.
zs_start_server() {
  local port_file="$1" log="$2"
  shift 2
  rm -f "$port_file"
  "$@" --port-file "$port_file" >>"$log" 2>&1 &
  # shellcheck disable=SC2034  # read by the caller
  ZS_SERVER_PID=$!
}

# zs_wait_port_file FILE [TRIES] [SECONDS]
# Waits until FILE exists and is not empty: zone_server's --port-file (it writes "PORT
# ADMIN_PORT" once it listens), or any other port file. Looks up to TRIES times (default 100),
# SECONDS apart (default 0.1): 10 s in all by default. Prints nothing; returns 0 once FILE has
# something in it, 1 if it still has not after the last try (callers that go on regardless and
# read FILE write `zs_wait_port_file FILE || true`).
zs_wait_port_file() {
  local file="$1" tries="${2:-100}" step="${3:-0.1}" _
  for _ in $(seq "$tries"); do
    [[ -s "$file" ]] && return 0
    sleep "$step"
  done
  [[ -s "$file" ]]
}

# zs_cpu_ticks PID [GONE]
# Prints the CPU time process PID has used so far, user + system, in clock ticks (utime + stime
# from /proc/PID/stat; getconf CLK_TCK ticks per second). Prints GONE instead (default: nothing)
# when the process is gone. Returns 0.
zs_cpu_ticks() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || { [[ -z "${2:-}" ]] || echo "$2"; return 0; }
  stat=${stat##*) }  # fields after "(comm)", which may hold spaces: state is first, utime 12th
  local -a f
  read -r -a f <<<"$stat"
  echo $(( f[11] + f[12] ))
}
