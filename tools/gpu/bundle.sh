#!/usr/bin/env bash
# Packs what tools/gpu/check.sh runs on a GPU machine that cannot build geoalign (the
# device tool's image has CUDA but not oneDNN, ICU or the other build dependencies):
# the device op tests, built here with the CUDA backend, and the shared libraries they
# need beyond glibc (oneDNN among them, 40 MB). cuBLASLt is the machine's own. Then, with the device tool:
#   run(command="tools/gpu/check.sh", carry=["gpu-bundle"])
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/release}
test_binary="$build/tests/geoalign_device_tests"
cmake --build "$build" --target geoalign_device_tests -j"$(nproc)"
if ! grep -q "no usable CUDA device" "$test_binary"; then
  echo "$build was configured without the CUDA backend (GEOALIGN_CUDA=ON needs CUDA 12 or later)" >&2
  exit 1
fi
rm -rf gpu-bundle
mkdir -p gpu-bundle/lib
cp "$test_binary" gpu-bundle/
ldd "$test_binary" | awk '$3 ~ /^\// {print $3}' | grep -vE '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so' |
  xargs -r -I{} cp -L {} gpu-bundle/lib/
du -sh gpu-bundle
ls gpu-bundle gpu-bundle/lib
