#!/usr/bin/env bash
# A 1-query /v1/search sent while another request asks for the most search work one
# request may (1,024 queries at rerank 100), and what becomes of 1,024 queries at rerank
# 10,000. Search work once waited in one first-in-first-out queue: such a request held a
# 1-query search for 29 s. After-model work now goes a request at a time in turn.
#
#   tools/bench/search_fairness.sh [N]      (index of N synthetic addresses, default 20000)
set -euo pipefail
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${GEOALIGN_BIN:-$root/build/release/geoalign}
n=${1:-20000}
port=18094
work=$(mktemp -d)
lscpu | grep -E 'Model name|^CPU\(s\)' | sed 's/  */ /g'
/usr/bin/python3 "$root/tools/bench/grow_addresses.py" "$n" > "$work/ref.tsv"
/usr/bin/python3 "$root/tools/bench/grow_addresses.py" 1024 --seed 5 | cut -f2 > "$work/queries.txt"
"$bin" index build --input "$work/ref.tsv" --out "$work/ix" 2>/dev/null
"$bin" serve --index "$work/ix" --port "$port" 2>"$work/serve.log" &
for _ in $(seq 300); do
  curl -sf "http://127.0.0.1:$port/v2/health/ready" >/dev/null 2>&1 && break
  sleep 0.2
done
/usr/bin/python3 - "$port" "$work/queries.txt" <<'PY'
import http.client, json, sys, threading, time
port, queries = int(sys.argv[1]), [l.strip() for l in open(sys.argv[2], encoding="utf-8") if l.strip()][:1024]
def post(body, out, key):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    start = time.perf_counter()
    c.request("POST", "/v1/search", json.dumps(body))
    r = c.getresponse(); r.read()
    out[key] = (r.status, time.perf_counter() - start)
alone = {}
for i in range(5):
    post({"queries": [queries[i]]}, alone, i)
print(f"1-query search alone: {1000 * sorted(t for _, t in alone.values())[2]:.0f} ms (median of 5)")
for rerank in (100, 10000):
    times = {}
    big = threading.Thread(target=post, args=({"queries": queries, "rerank": rerank}, times, "big"))
    big.start()
    time.sleep(0.3)
    post({"queries": [queries[7]]}, times, "small")
    big.join()
    (bs, bt), (ss, st) = times["big"], times["small"]
    print(f"1,024 queries at rerank {rerank}: status {bs} in {bt:.2f} s; a 1-query search sent 0.3 s later: "
          f"status {ss} in {1000 * st:.0f} ms")
PY
rm -rf "$work"
