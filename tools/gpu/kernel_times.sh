#!/usr/bin/env bash
# Where a batch's GPU time goes, kernel by kernel, on a GPU machine: Nsight Compute (ncu)
# times every kernel of `geoalign score` (bf16) on the BERT-base shape for one batch of
# 1,000 real-length pairs and for 4 batches of one pair, then tools/gpu/kernel_table.py
# sums the time per kernel. Runs the bundle of tools/gpu/bundle.sh, as check.sh does.
#
#   tools/gpu/kernel_times.sh     $OUT (or gpu-check/) gets kernels_1000.csv, kernels_1.csv
#                                 and kernel_table.txt
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-gpu-check}
mkdir -p "$out"
python=${PYTHON:-python3}
device=cuda
limit=${CHECK_TIMEOUT:-240}
pairs=${CHECK_PAIRS:-examples/bench_pairs.tsv}
. tools/gpu/bundle_env.sh
[ -n "$bundle" ] || { echo "no gpu-bundle/bundle.tar.xz: run tools/gpu/bundle.sh first" >&2; exit 1; }
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[ -n "$ncu" ] || { echo "no ncu on this machine" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work" "$bundle"' EXIT
timeout "$limit" "$python" tools/make_random_model.py "$work/base" --shape base --chars "$pairs" >/dev/null || exit 1
head -4 "$pairs" >"$work/four.tsv"
for batch in 1000 1; do
  input=$pairs
  [ "$batch" = 1 ] && input=$work/four.tsv
  # --clock-control none: the card's clocks as they are (never set them); one metric, the
  # kernel's duration, so each kernel runs once.
  native "$ncu" --clock-control none --csv --print-units base --metrics gpu__time_duration.sum \
    --log-file "$out/kernels_$batch.csv" \
    "$geoalign" score --model "$work/base" --device cuda --precision bf16 --batch-size "$batch" "$input" \
    >/dev/null 2>"$work/ncu_$batch.log" || { tail -20 "$work/ncu_$batch.log"; exit 1; }
done
"$python" tools/gpu/kernel_table.py "$out/kernels_1000.csv" "$out/kernels_1.csv" | tee "$out/kernel_table.txt"
