#!/usr/bin/env bash
# The GPU check, in one run on a machine with an NVIDIA GPU (the device tool's H200):
# every op that has a CUDA kernel runs on the GPU against the same plain reference as on
# the CPU (tests/test_device_ops.cpp), the linear layers through cuBLASLt. It runs the bundle tools/gpu/bundle.sh made here;
# without one it builds geoalign there (which needs the build dependencies). Exits
# non-zero on any failure, and on a CUDA case that skips: on a GPU machine that means
# the device probe failed.
#
#   tools/gpu/check.sh          results (the GPU, the test log and XML) go to $OUT or gpu-check/
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-gpu-check}
mkdir -p "$out"

nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv | tee "$out/gpu.csv"
# A CUDA 13 build (the runtime is linked in) needs a driver for CUDA 13 or later: 580+.
driver_cuda=$(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9]*\).*/\1/p' | head -1)
if [ -n "$driver_cuda" ] && [ "$driver_cuda" -lt 13 ]; then
  echo "the driver supports CUDA $driver_cuda; this build needs CUDA 13 (driver 580 or later)" >&2
  exit 1
fi

if [ -x gpu-bundle/geoalign_device_tests ]; then
  tests=gpu-bundle/geoalign_device_tests
  # cuBLASLt 13 (opened at first use) comes from the machine: its CUDA toolkit, or a
  # PyTorch wheel's nvidia packages.
  cublas=$(find -L /usr/local/cuda*/lib64 /usr/local/cuda*/targets/*/lib \
    "$(python3 -c 'import site; print(site.getsitepackages()[0])' 2>/dev/null || echo /nonexistent)" \
    -maxdepth 4 -name libcublasLt.so.13 2>/dev/null | head -1)
  if [ -z "$cublas" ]; then
    echo "no libcublasLt.so.13 on this machine (looked in /usr/local/cuda* and Python's site-packages)" >&2
    exit 1
  fi
  echo "cuBLASLt: $cublas"
  export LD_LIBRARY_PATH="$PWD/gpu-bundle/lib:$(dirname "$cublas")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
  cmake -S . -B build/cuda -DCMAKE_BUILD_TYPE=Release -DGEOALIGN_CUDA=ON >"$out/configure.log"
  cmake --build build/cuda -j"$(nproc)" --target geoalign_device_tests >"$out/build.log" 2>&1 || {
    tail -40 "$out/build.log"
    exit 1
  }
  tests=build/cuda/tests/geoalign_device_tests
fi

export GEOALIGN_SOURCE_DIR="$PWD"  # the fixture model, in this copy of the tree
set +e
"$tests" --gtest_output="xml:$out/device_ops.xml" 2>&1 | tee "$out/device_ops.log"
status=${PIPESTATUS[0]}
set -e
if grep -q "SKIPPED.*/cuda" "$out/device_ops.log" || ! grep -q "OK \].*/cuda" "$out/device_ops.log"; then
  echo "the CUDA cases did not run on this GPU machine: see the reason above" >&2
  exit 1
fi
[ "$status" -eq 0 ] && echo "GPU check passed"
exit "$status"
