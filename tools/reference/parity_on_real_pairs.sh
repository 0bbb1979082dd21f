#!/usr/bin/env bash
# The foundation's acceptance check: `geoalign score` on a plain Hugging Face BERT
# classifier folder (random weights) against the PyTorch reference, over real held-out
# address pairs from ../shared/data. Nothing it reads or writes is committed.
#
#   tools/reference/parity_on_real_pairs.sh [shape: small|base] [pairs per data set]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
data="$root/../shared/data"
shape=${1:-small}
n=${2:-150}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

/usr/bin/python3 "$root/tools/make_random_model.py" "$work/model" --shape "$shape" --chars "$data/address_ner/train.txt"
# The last rows of each file: never looked at while building geoalign.
{ tail -n "$n" "$data/ccks2021_address_relevance/pairs.tsv"; tail -n "$n" "$data/shenzhen_address_pairs/pairs.tsv"; } |
  cut -f1,2 > "$work/pairs.tsv"
"$root/build/release/geoalign" score --model "$work/model" "$work/pairs.tsv" > "$work/geoalign.tsv"
/usr/bin/python3 "$root/tools/reference/bert_reference.py" --model "$work/model" "$work/pairs.tsv" > "$work/torch.tsv"
python3 "$root/tools/reference/compare_scores.py" "$work/geoalign.tsv" "$work/torch.tsv" --tolerance 1e-3
