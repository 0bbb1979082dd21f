#!/usr/bin/env bash
# The server against offline scoring, on the same pairs and precision:
#   - batch-1 latency: `geoalign bench` (model time) against the server's p50 at 1 client;
#   - throughput: offline `geoalign score` against the server at 64 clients;
#   - head-of-line blocking: a 1-pair request sent just after a 1,024-pair one, against
#     the mean batch time.
#
#   tools/bench/serve_vs_offline.sh MODEL_DIR PAIRS_TSV [PRECISION]
set -euo pipefail
trap 'kill "${server_pid:-}" 2>/dev/null || true' EXIT
root=$(cd "$(dirname "$0")/../.." && pwd)
model=$1 pairs=$2 precision=${3:-auto}
bin=${GEOALIGN_BIN:-$root/build/release/geoalign}  # GEOALIGN_BIN: another build, for a before/after
port=18091
out=$(mktemp -d)

echo "== bench, batch 1, $precision"
"$bin" bench --model "$model" --input "$pairs" --batch-sizes 1 --precision "$precision" --seconds 5 --json > "$out/bench.json"
bench_ms=$(/usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print(r['p50_batch_ms'])" "$out/bench.json")
echo "bench p50 at batch 1: $bench_ms ms"

echo "== offline: geoalign score on $(wc -l < "$pairs") pairs"
# score's own closing line times the scoring, not the model load: "... N pairs scored, ..., S s"
"$bin" score --model "$model" --precision "$precision" "$pairs" 2>"$out/score.log" > /dev/null
offline=$(awk '/pairs scored/ {printf "%.1f", $3 / $(NF - 1)}' "$out/score.log")
echo "offline: $offline pairs/s (after loading)"

"$bin" serve --model "$model" --precision "$precision" --port "$port" 2>"$out/serve.log" &
server_pid=$!
for _ in $(seq 150); do
  curl -sf "http://127.0.0.1:$port/v2/health/ready" >/dev/null 2>&1 && break
  sleep 0.2
done

echo "== serve: 1 client, then 64 clients"
"$bin" loadtest --url "http://127.0.0.1:$port/v1/match" --input "$pairs" --concurrency 1,64 --duration 10s \
  --csv "$out/load.csv" --chart "" > "$out/load.txt" 2>&1
cat "$out/load.txt"

echo "== a 1-pair request behind a 1,024-pair one"
/usr/bin/python3 - "$port" "$pairs" "$out" <<'PY'
import http.client, json, sys, threading, time
port, pairs_path, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
pairs = [l.rstrip("\n").split("\t")[:2] for l in open(pairs_path, encoding="utf-8")][:1024]
def post(body, times, key):
    c = http.client.HTTPConnection("127.0.0.1", port)
    start = time.perf_counter()
    c.request("POST", "/v1/match", json.dumps(body))
    r = c.getresponse(); r.read()
    times[key] = time.perf_counter() - start
def metrics():
    c = http.client.HTTPConnection("127.0.0.1", port); c.request("GET", "/metrics")
    m = {}
    for line in c.getresponse().read().decode().splitlines():
        if line.startswith(("geoalign_batches_total ", "geoalign_compute_duration_seconds_sum ")):
            k, v = line.split(); m[k] = float(v)
    return m
small_ms, big_ms = [], []
before = metrics()
for _ in range(5):
    times = {}
    big = threading.Thread(target=post, args=({"pairs": pairs}, times, "big")); big.start()
    time.sleep(0.02)
    post({"pairs": [pairs[1]]}, times, "small"); big.join()
    small_ms.append(1000 * times["small"]); big_ms.append(1000 * times["big"])
after = metrics()
batches = after["geoalign_batches_total"] - before["geoalign_batches_total"]
per_batch = 1000 * (after["geoalign_compute_duration_seconds_sum"] - before["geoalign_compute_duration_seconds_sum"]) / batches
print(f"1-pair request: {sorted(small_ms)[2]:.1f} ms median of 5 (1,024-pair request: {sorted(big_ms)[2]:.0f} ms); "
      f"mean batch compute {per_batch:.1f} ms")
PY
kill -TERM "$server_pid"; wait "$server_pid" || true
rm -rf "$out"
