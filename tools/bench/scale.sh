#!/usr/bin/env bash
# Time and peak memory of index build, search and dedup as the address file grows.
#   tools/bench/scale.sh [SIZES...]      (default: 10000 100000 1000000)
# Files come from tools/bench/grow_addresses.py; queries are 1,000 other synthetic
# addresses, searched one at a time (p50/p99 per query, model load excluded).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin="$root/build/release/geoalign"
work=${SCALE_DIR:-$(mktemp -d)}
sizes=("${@:-10000 100000 1000000}")
lscpu | grep -E 'Model name|^CPU\(s\)' | sed 's/  */ /g'
/usr/bin/python3 "$root/tools/bench/grow_addresses.py" 1000 --seed 7 | cut -f2 > "$work/queries.txt"
for n in ${sizes[@]}; do
  /usr/bin/python3 "$root/tools/bench/grow_addresses.py" "$n" > "$work/a$n.tsv"
  rm -rf "$work/ix$n"
  echo "== $n addresses"
  /usr/bin/time -f "index build: %e s, peak %M KB" "$bin" index build --input "$work/a$n.tsv" --out "$work/ix$n" 2>&1 | grep -E "^index build|added"
  du -sh "$work/ix$n" | sed 's/^/index size: /'
  for rerank in 0 50; do
    /usr/bin/time -f "search (rerank $rerank): %e s, peak %M KB" "$bin" search --index "$work/ix$n" --batch 1 --rerank $rerank \
      "$work/queries.txt" 2>&1 >/dev/null | grep -E "^search|answered"
  done
  /usr/bin/time -f "dedup: %e s, peak %M KB" "$bin" dedup --input "$work/a$n.tsv" --out "$work/clusters$n.tsv" 2>&1 | grep -E "^dedup|rows"
  rm -rf "$work/ix$n" "$work/clusters$n.tsv"
done
