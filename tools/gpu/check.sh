#!/usr/bin/env bash
# The GPU check, in one run on a machine with an NVIDIA GPU (the device tool's H200):
#  1. the device op tests: every op that has a CUDA kernel against the same plain
#     reference as on the CPU (tests/test_device_ops.cpp), the linear layers through cuBLASLt;
#  2. parity on real-length pairs (examples/bench_pairs.tsv): `geoalign score` on the GPU in
#     fp32 and bf16 against the CPU's fp32, for the shipped model's encoder, the whole
#     shipped model (its match head reads no encoder, so its answers on a GPU machine must
#     be the CPU's) and a BERT-base-shaped folder with random weights:
#     relative L2 of the probabilities and label agreement (the shipped model in bf16 must
#     keep >= 99.5% of labels; the random folder is only reported);
#  3. `geoalign bench --device cuda` over batch sizes 1 ... 1024, fp32 and bf16, both shapes;
#  4. PyTorch eager bf16 and fp16 (SDPA) and ONNX Runtime's CUDA provider on the same
#     folders and pairs (tools/gpu/torch_baselines.py);
# then one table (tools/gpu/summarize.py). It runs the bundle tools/gpu/bundle.sh made here;
# without one it builds the device tests there (which needs the build dependencies) and
# runs stage 1 alone. Exits non-zero if any stage fails (the others still run), and on a
# CUDA case that skips: on a GPU machine that means the device probe failed.
#
#   tools/gpu/check.sh     $OUT (or gpu-check/) gets table.txt, parity.txt and raw.tar.gz
#                          (every log and JSON): the device tool brings back 8 files at most
#
# A rehearsal here, with no GPU, runs every stage on the CPU instead, so that the script is
# known to work before the GPU's few minutes are spent on it:
#   CHECK_DEVICE=cpu CHECK_BATCH_SIZES=1,4 CHECK_PAIRS=FEW.tsv PYTHON=/usr/bin/python3 tools/gpu/check.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-gpu-check}
mkdir -p "$out"
raw=$(mktemp -d)
work=$(mktemp -d)
failed=()
python=${PYTHON:-python3}  # there: the image's python3, which has PyTorch
device=${CHECK_DEVICE:-cuda}
sizes=${CHECK_BATCH_SIZES:-1,2,4,8,16,32,64,128,256,512,1024}
pairs=${CHECK_PAIRS:-examples/bench_pairs.tsv}
limit=${CHECK_TIMEOUT:-240}  # seconds for any one command: a hang must not eat the device time
dtypes=bf16,fp16
if [ "$device" = cpu ]; then
  dtypes=bf16  # PyTorch has no fp16 layer norm on the CPU
else
  nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv | tee "$raw/gpu.csv" || exit 1
  # A CUDA 13 build (the runtime is linked in) needs a driver for CUDA 13 or later: 580+.
  driver_cuda=$(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9]*\).*/\1/p' | head -1)
  if [ -n "$driver_cuda" ] && [ "$driver_cuda" -lt 13 ]; then
    echo "the driver supports CUDA $driver_cuda; this build needs CUDA 13 (driver 580 or later)" >&2
    exit 1
  fi
fi

finish() {  # the results that come back, then the verdict
  cp "$raw/table.txt" "$raw/parity.txt" "$out/" 2>/dev/null
  tar -C "$raw" -czf "$out/raw.tar.gz" .
  rm -rf "$work" "$raw" "${bundle:-}"
  if [ ${#failed[@]} -ne 0 ]; then
    printf 'failed: %s\n' "${failed[@]}" >&2
    exit 1
  fi
  echo "GPU check passed${1:-}"
  exit 0
}

. tools/gpu/bundle_env.sh
if [ -z "$bundle" ]; then
  echo "no gpu-bundle/bundle.tar.xz (tools/gpu/bundle.sh): building the device tests here, stage 1 only"
  cmake -S . -B build/cuda -DCMAKE_BUILD_TYPE=Release -DGEOALIGN_CUDA=ON >"$raw/configure.log" || exit 1
  cmake --build build/cuda -j"$(nproc)" --target geoalign_device_tests >"$raw/build.log" 2>&1 || {
    tail -40 "$raw/build.log"
    failed+=("build")
    finish
  }
  tests=build/cuda/tests/geoalign_device_tests
  geoalign=""
fi

py() { timeout "$limit" "$python" "$@"; }

echo "== 1. device op tests"
export GEOALIGN_SOURCE_DIR="$PWD"  # the fixture model, in this copy of the tree
native "$tests" --gtest_output="xml:$raw/device_ops.xml" >"$raw/device_ops.log" 2>&1
status=$?
grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" "$raw/device_ops.log"
if [ "$status" -ne 0 ]; then
  failed+=("device op tests (exit $status)")
elif [ "$device" != cpu ] && { grep -q "SKIPPED.*/cuda" "$raw/device_ops.log" || ! grep -q "OK \].*/cuda" "$raw/device_ops.log"; }; then
  grep -m3 -A2 "SKIPPED" "$raw/device_ops.log"
  echo "the CUDA cases did not run on this GPU machine: see the reason above" >&2
  failed+=("device op tests: CUDA cases skipped")
fi
[ -n "$geoalign" ] || finish " (stage 1 only)"

# The model folders: the shipped encoder alone (no head: what runs on the GPU), the whole
# shipped model, and the BERT-base shape.
mkdir -p "$work/encoder"
for f in config.json vocab.txt model.safetensors tokenizer_config.json; do cp "models/default/$f" "$work/encoder/"; done
py tools/make_random_model.py "$work/base" --shape base --chars "$pairs" >"$raw/make_base.log" 2>&1 ||
  failed+=("making the BERT-base folder")

echo "== 2. parity on $pairs: $device against the CPU's fp32"
parity() {  # name folder bar: strict (the encoder), labels (a head's trees may cross a split) or none
  local name=$1 folder=$2 bar=$3
  native "$geoalign" score --model "$folder" --device cpu --precision fp32 "$pairs" >"$work/cpu.tsv" 2>>"$raw/parity.log" || {
    failed+=("$name: CPU fp32 score")
    return
  }
  for precision in fp32 bf16; do
    native "$geoalign" score --model "$folder" --device "$device" --precision "$precision" "$pairs" \
      >"$work/$precision.tsv" 2>>"$raw/parity.log" || {
      failed+=("$name: $device $precision score")
      continue
    }
    local tolerance=1 agreement=0.995
    if [ "$bar" = none ]; then
      agreement=0
    elif [ "$precision" = fp32 ] && [ "$bar" = strict ]; then
      tolerance=1e-3 agreement=0.999  # fp32 on the GPU (no TF32) is the CPU's arithmetic in another order
    fi
    printf '%-22s %-5s ' "$name" "$precision" | tee -a "$raw/parity.txt"
    py tools/reference/compare_scores.py "$work/$precision.tsv" "$work/cpu.tsv" \
      --tolerance "$tolerance" --min-agreement "$agreement" 2>&1 | tee -a "$raw/parity.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || failed+=("$name: $device $precision parity")
  done
}
parity "default encoder" "$work/encoder" strict
parity "default (match head)" models/default labels
[ -d "$work/base" ] && parity "BERT-base, random" "$work/base" none

echo "== 3. geoalign bench --device $device"
for name in encoder base; do
  [ -d "$work/$name" ] || continue
  native "$geoalign" bench --model "$work/$name" --input "$pairs" --device "$device" --precision fp32,bf16 \
    --batch-sizes "$sizes" --seconds 1 --json >"$raw/bench_$name.json" 2>>"$raw/bench.log" ||
    failed+=("bench $name")
done

echo "== 4. PyTorch and ONNX Runtime"
for name in encoder base; do
  [ -d "$work/$name" ] || continue
  PYTHONUNBUFFERED=1 py tools/gpu/torch_baselines.py --model "$work/$name" --pairs "$pairs" --device "$device" \
    --dtypes "$dtypes" --batch-sizes "$sizes" --seconds 1 --json "$raw/torch_$name.jsonl" >"$raw/torch_$name.log" 2>&1 || {
    tail -5 "$raw/torch_$name.log"
    failed+=("torch baselines $name")
  }
  grep "^onnx runtime" "$raw/torch_$name.log"
done

echo "== the table"
py tools/gpu/summarize.py --out "$raw" 2>&1 | tee "$raw/table.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || failed+=("summary")
finish
