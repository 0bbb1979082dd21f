#!/usr/bin/env bash
# Dedup of one large true cluster against as many distinct places: N ways of writing one
# place (a campus, a mall: every order that names it) against N places written once each.
# Average linkage over the first used to walk every cross pair of two clusters at each
# merge, and to score thousands of them on demand, so one large place cost ~10x the
# distinct file; the target is at most 3x.
#
#   tools/bench/one_place_vs_distinct.sh [N]      (default 20000)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin="$root/build/release/geoalign"
n=${1:-20000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lscpu | grep -E 'Model name|^CPU\(s\)' | sed 's/  */ /g'
for shape in distinct one-place; do
  /usr/bin/python3 "$root/tools/bench/grow_addresses.py" "$n" --shape "$shape" > "$work/$shape.tsv"
  "$bin" dedup --input "$work/$shape.tsv" --out "$work/$shape.clusters.tsv" 2> "$work/$shape.log"
  echo "== $shape: $(tr '\r' '\n' < "$work/$shape.log" | grep '^geoalign dedup:' | tail -1)"
done
# dedup's closing line ends with its whole time: "..., 17.3 s (normalize 0.1 s, ...)"
/usr/bin/python3 - "$work" <<'PY'
import re, sys
def seconds(shape):
    text = open(f"{sys.argv[1]}/{shape}.log", encoding="utf-8").read().replace("\r", "\n")
    return float(re.findall(r"([0-9.]+) s \(normalize", text)[-1])
one, distinct = seconds("one-place"), seconds("distinct")
print(f"one place / distinct places: {one / distinct:.2f}x ({one:.1f} s against {distinct:.1f} s, dedup's whole run)")
PY
