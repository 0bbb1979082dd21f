#!/usr/bin/env bash
# OpenAI's Node client against `geoalign serve --api-key`: installs the npm package `openai`
# into a temporary folder (from the npm registry; nothing is vendored), starts the server
# on the bundled model, runs tools/bench/openai_client_check.mjs.
#
#   tools/bench/openai_client_check.sh [MODEL_DIR]
set -euo pipefail
trap 'kill "${server_pid:-}" 2>/dev/null || true; rm -rf "${work:-}"' EXIT
root=$(cd "$(dirname "$0")/../.." && pwd)
model=${1:-$root/models/default}
bin=${GEOALIGN_BIN:-$root/build/release/geoalign}
work=$(mktemp -d)
command -v node >/dev/null || { echo "node is not installed (apt-get install nodejs npm)" >&2; exit 1; }
(cd "$work" && npm install --silent --no-audit --no-fund openai@4 >/dev/null)
cp "$root/tools/bench/openai_client_check.mjs" "$work/"
key=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
port=18095
"$bin" serve --model "$model" --port "$port" --api-key "$key" 2>"$work/serve.log" &
server_pid=$!
for _ in $(seq 150); do
  curl -sf "http://127.0.0.1:$port/v2/health/ready" >/dev/null 2>&1 && break
  sleep 0.2
done
node "$work/openai_client_check.mjs" "http://127.0.0.1:$port" "$key"
