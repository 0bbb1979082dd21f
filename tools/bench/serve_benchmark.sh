#!/usr/bin/env bash
# The server's acceptance run: offline `geoalign score` throughput, then single-pair
# requests from keep-alive clients against `geoalign serve` on the same pairs, with
# dynamic batching and with --max-batch-size 1, 1,000 connections held for 30 s, and a
# memory soak. Prints every figure; writes CSV and SVG charts to OUT_DIR.
#
#   tools/bench/serve_benchmark.sh MODEL_DIR PAIRS_TSV [OUT_DIR] [SOAK_SECONDS]
set -euo pipefail
trap 'kill "${server_pid:-}" 2>/dev/null || true' EXIT
root=$(cd "$(dirname "$0")/../.." && pwd)
model=$1 pairs=$2 out=${3:-serve-bench} soak=${4:-300}
bin="$root/build/release/geoalign"
mkdir -p "$out"
port=18090

# batches, pairs batched, compute seconds: from /metrics
batch_counters() {
  curl -s "http://127.0.0.1:$port/metrics" | awk '
    /^geoalign_batches_total / {b = $2} /^geoalign_batch_size_sum / {p = $2}
    /^geoalign_compute_duration_seconds_sum / {c = $2} END {print b, p, c}'
}

rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }

start_server() {  # extra serve flags...
  if curl -s "http://127.0.0.1:$port/v2/health/live" >/dev/null 2>&1; then
    echo "port $port is already taken by another server" >&2
    exit 1
  fi
  "$bin" serve --model "$model" --port "$port" "$@" 2>>"$out/serve.log" &
  server_pid=$!
  for _ in $(seq 100); do
    kill -0 "$server_pid" 2>/dev/null || { echo "server failed to start (see $out/serve.log)" >&2; exit 1; }
    curl -sf "http://127.0.0.1:$port/v2/health/ready" >/dev/null 2>&1 && return
    sleep 0.2
  done
  echo "server did not become ready" >&2
  exit 1
}

stop_server() {
  kill -TERM "$server_pid"
  wait "$server_pid"
  echo "server exited with status $? after SIGTERM"
}

echo "== offline: geoalign score on $(wc -l < "$pairs") pairs"
/usr/bin/time -f "%e s wall" "$bin" score --model "$model" "$pairs" > /dev/null

echo "== serve, dynamic batching (--max-batch-size 64)"
start_server --max-batch-size 64
"$bin" loadtest --url "http://127.0.0.1:$port/v1/match" --input "$pairs" --concurrency 1,4,16 \
  --duration 10s --csv "$out/batched-low.csv" --chart "" 2>/dev/null
before=$(batch_counters)
"$bin" loadtest --url "http://127.0.0.1:$port/v1/match" --input "$pairs" --concurrency 64 \
  --duration 10s --csv "$out/batched-64.csv" --chart "" 2>/dev/null
after=$(batch_counters)
echo "$before $after" | awk '{ n = $4 - $1; printf "at 64 clients: %d batches, mean batch %.1f pairs, mean compute %.1f ms per batch\n", n, ($5 - $2) / n, 1000 * ($6 - $3) / n }'
stop_server

echo "== serve, no batching (--max-batch-size 1)"
start_server --max-batch-size 1
"$bin" loadtest --url "http://127.0.0.1:$port/v1/match" --input "$pairs" --concurrency 1,64 \
  --duration 10s --csv "$out/unbatched.csv" --chart "$out/unbatched.svg" 2>/dev/null
stop_server

echo "== 1,000 keep-alive connections for 30 s"
start_server
"$bin" loadtest --url "http://127.0.0.1:$port/v1/match" --input "$pairs" --concurrency 1000 --duration 30s \
  --chart "" 2>/dev/null
stop_server

echo "== soak: 64 clients for ${soak} s"
start_server
"$bin" loadtest --url "http://127.0.0.1:$port/v1/match" --input "$pairs" --concurrency 64 --duration 5s --chart "" >/dev/null 2>&1
echo "RSS after warm-up: $(rss_kb "$server_pid") kB"
( while sleep 30; do echo "  RSS $(rss_kb "$server_pid") kB"; done ) &
sampler=$!
"$bin" loadtest --url "http://127.0.0.1:$port/v1/match" --input "$pairs" --concurrency 64 --duration "${soak}s" --chart "" 2>/dev/null
kill "$sampler"
echo "RSS at the end:    $(rss_kb "$server_pid") kB"
stop_server
