#!/usr/bin/env bash
# CI check for docker/k8s/ (there is no Kubernetes cluster, nor Agones, on our machines):
#   1. every manifest parses as YAML (python3-yaml), and the facts that must agree across
#      files do: the Fleet's `game` port is listen.port, Dynamic, TCP; Health is sent more
#      often than health.periodSeconds; terminationGracePeriodSeconds covers the graceful stop;
#      NATS runs with JetStream and its Service has 4222 and 8222; the cluster block asks Agones
#      for the public address of the port the Fleet names, and the node is named after its pod;
#      the server is in token mode with its secret where the Fleet mounts the Secret;
#   2. `kubectl kustomize docker/k8s` renders them (when kubectl is installed; offline);
#   3. the ConfigMap's server.yaml starts the real zone_server (laid out as in the pod, beside
#      the image's config), with AGONES_SDK_HTTP_PORT pointing at a stand-in sidecar
#      (python3 http.server) that must see POST /ready, /health and, after SIGTERM, /shutdown.
# What none of this shows: that a Kubernetes API server and Agones accept the manifests, and
# that a real sidecar accepts our requests (docker/k8s/README.md).
#
#   scripts/check-k8s.sh <zone_server binary>      (KEEP_TMP=1: keep the logs in /tmp/tmp.*)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/server.sh
source scripts/lib/server.sh
[[ $# -eq 1 ]] || { echo "usage: $0 ZONE_SERVER" >&2; exit 2; }
server=$(realpath "$1")
tmp=$(mktemp -d)
sidecar_pid=""
server_pid=""
cleanup() {
  [[ -n "$server_pid" ]] && kill -9 "$server_pid" 2>/dev/null || true
  [[ -n "$sidecar_pid" ]] && kill "$sidecar_pid" 2>/dev/null || true
  if [[ -n "${KEEP_TMP:-}" ]]; then echo "kept: $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

echo "== 1. manifests"
python3 - "$tmp/server.yaml" <<'PY'
import sys, yaml
docs = {}
for name in ("fleet.yaml", "nats.yaml", "configmap.yaml", "kustomization.yaml"):
    for d in yaml.safe_load_all(open("docker/k8s/" + name)):
        docs[d["kind"]] = d
config_text = docs["ConfigMap"]["data"]["server.yaml"]
config = yaml.safe_load(config_text)
open(sys.argv[1], "w").write(config_text)
gs = docs["Fleet"]["spec"]["template"]["spec"]
game = [p for p in gs["ports"] if p["name"] == "game"]
assert game, "Fleet: no port named game"
assert game[0]["containerPort"] == config["listen"]["port"], "Fleet game port != listen.port"
assert game[0]["portPolicy"] == "Dynamic" and game[0]["protocol"] == "TCP", game[0]
health = gs["health"]
interval = config["agones"]["health_interval_seconds"]
assert interval * 2 <= health["periodSeconds"], "Health not sent well within periodSeconds"
pod = gs["template"]["spec"]
stop = (config["storage"]["shutdown_timeout_seconds"] + config["limits"]["shutdown_flush_seconds"]
        + 5)  # + kAgonesShutdownTimeout (server/app/main.cc)
assert pod["terminationGracePeriodSeconds"] > stop, "terminationGracePeriodSeconds too short"
assert pod["containers"][0]["name"] == gs["container"]
# public_address: agones (the commented cluster block) reads the port named agones.port_name,
# and the node's name comes from ZS_CLUSTER_NODE, the pod's name.
assert config["agones"].get("port_name", "game") == game[0]["name"], "agones.port_name != game"
assert "#   public_address: agones" in config_text, "cluster block without public_address: agones"
env = {e["name"]: e for e in pod["containers"][0].get("env", [])}
assert env["ZS_CLUSTER_NODE"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"
# Token mode, its secret where the Fleet mounts the Secret (and where the image's
# ZS_AUTH_SECRET_FILE points): never auth mode none on 0.0.0.0.
assert config["auth"]["mode"] == "token", "the ConfigMap is not in token mode"
mounts = {m["name"]: m["mountPath"] for m in pod["containers"][0]["volumeMounts"]}
auth_volume = [v for v in pod["volumes"] if v["name"] == "auth"][0]["secret"]
secret_path = mounts["auth"] + "/" + auth_volume["items"][0]["path"]
assert secret_path == config["auth"]["secret_file"] == "/run/secrets/zs_auth", secret_path
nats = docs["Deployment"]["spec"]["template"]["spec"]["containers"][0]
assert "-js" in nats["args"], "NATS without JetStream"
assert {p["port"] for p in docs["Service"]["spec"]["ports"]} == {4222, 8222}
assert sorted(docs["Kustomization"]["resources"]) == ["configmap.yaml", "fleet.yaml", "nats.yaml"]
print("   ok: Fleet, ConfigMap, NATS Deployment and Service agree")
PY

echo "== 2. kubectl kustomize"
if command -v kubectl >/dev/null; then
  kubectl kustomize docker/k8s >"$tmp/rendered.yaml"
  echo "   ok: $(grep -c '^kind:' "$tmp/rendered.yaml") objects rendered"
else
  echo "   skipped: no kubectl"
fi

echo "== 3. the ConfigMap's server.yaml in zone_server, with a stand-in Agones sidecar"
mkdir -p "$tmp/etc/cluster"
cp -r config/. "$tmp/etc/"
mv "$tmp/server.yaml" "$tmp/etc/cluster/server.yaml"
python3 - "$tmp/sidecar" <<'PY' &
import http.server, sys
class Sidecar(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(sys.argv[1] + ".log", "a") as f:
            f.write(f"{self.path} {self.headers.get('Content-Type')} {body.decode()}\n")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")
    def log_message(self, *args):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), Sidecar)
open(sys.argv[1] + ".port", "w").write(str(s.server_port))
s.serve_forever()
PY
sidecar_pid=$!
zs_wait_port_file "$tmp/sidecar.port" 100 0.05 || true  # checked below: the calls it saw
scripts/make-secret.sh "$tmp/zs_auth" >/dev/null  # the pod's /run/secrets/zs_auth
AGONES_SDK_HTTP_PORT=$(cat "$tmp/sidecar.port") ZS_STORAGE_PATH="$tmp/characters.db" \
  ZS_AUTH_SECRET_FILE="$tmp/zs_auth" \
  zs_start_server "$tmp/ports" "$tmp/server.log" "$server" \
  --config "$tmp/etc/cluster/server.yaml" --listen 127.0.0.1 --port 0 \
  --admin-listen 127.0.0.1 --admin-port 0
server_pid=$ZS_SERVER_PID
zs_wait_port_file "$tmp/ports" 200 0.05 ||
  { cat "$tmp/server.log" >&2; echo "zone_server did not start" >&2; exit 1; }
sleep 2.5   # one Health at 2 s
kill -TERM "$server_pid"
status=0
wait "$server_pid" || status=$?
server_pid=""
calls=$(cut -d' ' -f1 "$tmp/sidecar.log" | uniq | paste -sd' ')
if [[ $status -ne 0 || "$calls" != "/ready /health /shutdown" ]] ||
   grep -qv ' application/json {}$' "$tmp/sidecar.log"; then
  cat "$tmp/server.log" "$tmp/sidecar.log" >&2
  echo "expected exit 0 and POST /ready /health... /shutdown with {}, got exit $status: $calls" >&2
  exit 1
fi
echo "   ok: zone_server started on the ConfigMap's settings; the sidecar saw: $calls"
