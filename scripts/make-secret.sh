#!/usr/bin/env bash
# Writes a fresh login-token secret (48 random bytes, base64: 64 characters, above the server's
# 32-byte minimum) to FILE, unless FILE already holds one. The file the server's auth.secret_file
# (or ZS_AUTH_SECRET_FILE) names, and the one client_sim --token-secret-file and
# examples/python/mint_token.py --secret-file read to mint tokens as a login service would.
#
#   scripts/make-secret.sh docker/secrets/zs_auth
#
# Mode 0644: a container's non-root server user must read it through a bind mount (as with
# compose's file secrets). Keep the directory private instead, and never commit the file.
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: scripts/make-secret.sh FILE" >&2; exit 2; }
file="$1"
if [[ -s "$file" ]]; then
  echo "make-secret: $file exists; kept"
  exit 0
fi
mkdir -p "$(dirname "$file")"
tmp="$file.tmp.$$"
head -c 48 /dev/urandom | base64 -w0 >"$tmp"
chmod 0644 "$tmp"
mv "$tmp" "$file"
echo "make-secret: wrote $file"
