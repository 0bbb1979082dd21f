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

if [ -x gpu-bundle/geoalign_device_tests ]; then
  tests=gpu-bundle/geoalign_device_tests
  # cuBLASLt (opened at first use) comes from the machine: its CUDA toolkit, or PyTorch's wheel.
  cublas_dirs=$(python3 -c 'import nvidia.cublas, os; print(os.path.join(os.path.dirname(nvidia.cublas.__file__), "lib"))' 2>/dev/null || true)
  export LD_LIBRARY_PATH="$PWD/gpu-bundle/lib:/usr/local/cuda/lib64${cublas_dirs:+:$cublas_dirs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
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
if grep -q "SKIPPED.*/cuda" "$out/device_ops.log"; then
  echo "CUDA cases skipped on a GPU machine: see the reason above" >&2
  exit 1
fi
[ "$status" -eq 0 ] && echo "GPU check passed"
exit "$status"
