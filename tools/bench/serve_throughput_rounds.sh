#!/usr/bin/env bash
# Server throughput at 64 clients against offline `geoalign score` on the same pairs, in
# alternating rounds (offline, then the server, then offline again ...), so that a slow
# minute of a shared machine falls on both sides. Prints each round's ratio and the
# median. The pairs are repeated to at least 10,000 for offline scoring, whose own timing
# (after loading) would otherwise be a few tenths of a second.
#
#   tools/bench/serve_throughput_rounds.sh MODEL_DIR PAIRS_TSV [ROUNDS] [PRECISION]
#   GEOALIGN_BIN=/path/to/other/geoalign ...   # another build, for a before/after
set -euo pipefail
trap 'kill "${server_pid:-}" 2>/dev/null || true; rm -rf "${out:-}"' EXIT
root=$(cd "$(dirname "$0")/../.." && pwd)
model=$1 pairs=$2 rounds=${3:-5} precision=${4:-auto}
bin=${GEOALIGN_BIN:-$root/build/release/geoalign}
port=18092
out=$(mktemp -d)
lscpu | grep -E 'Model name|^CPU\(s\)' | sed 's/  */ /g'

lines=$(wc -l < "$pairs")
copies=$(( (10000 + lines - 1) / lines ))
for _ in $(seq "$copies"); do cat "$pairs"; done > "$out/offline.tsv"

"$bin" serve --model "$model" --precision "$precision" --port "$port" ${SERVE_ARGS:-} 2>"$out/serve.log" &
server_pid=$!
for _ in $(seq 150); do
  curl -sf "http://127.0.0.1:$port/v2/health/ready" >/dev/null 2>&1 && break
  sleep 0.2
done

ratios=()
for round in $(seq "$rounds"); do
  # score's closing line times the scoring, not the model load: "... N pairs scored, ..., S s"
  "$bin" score --model "$model" --precision "$precision" "$out/offline.tsv" 2>"$out/score.log" >/dev/null
  offline=$(awk '/pairs scored/ {printf "%.1f", $3 / $(NF - 1)}' "$out/score.log")
  served=$("$bin" loadtest --url "http://127.0.0.1:$port/v1/match" --input "$pairs" --concurrency 64 \
    --duration 10s --chart "" 2>/dev/null | awk '$1 == "64" {print $2}')
  ratio=$(awk -v s="$served" -v o="$offline" 'BEGIN {printf "%.3f", s / o}')
  ratios+=("$ratio")
  echo "round $round: offline $offline pairs/s, server at 64 clients $served req/s, ratio $ratio"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{r[NR] = $1} END {printf "median ratio over %d rounds: %s\n", NR, r[int((NR + 1) / 2)]}'
