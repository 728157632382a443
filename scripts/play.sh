#!/usr/bin/env bash
# The browser game (web/play): builds the page on the TypeScript SDK and serves it on
# http://127.0.0.1:8080/ for the server that ./scripts/run.sh starts (its WebSocket door, 7778,
# lets this origin in: config/server.yaml `websocket.allowed_origins`). Open the URL, pick a
# name, play; a second tab with another name meets the first.
#
#   scripts/play.sh                        # http://127.0.0.1:8080/
#   scripts/play.sh --host 0.0.0.0 --port 9000   # then list its origin in allowed_origins
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh
ensure_deps   # Debian's packages and the npm packages (npm ci), when missing
exec npm start --prefix web/play -- "$@"
