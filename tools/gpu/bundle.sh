#!/usr/bin/env bash
# Packs what tools/gpu/check.sh runs on a GPU machine that cannot build geoalign (the
# device tool's image has CUDA but not oneDNN, ICU or the other build dependencies):
# `geoalign` and the device op tests, built here with the CUDA backend, and the shared
# libraries they need beyond glibc (oneDNN and ICU's data among them, 80 MB), in one xz
# archive, gpu-bundle/bundle.tar.xz: the device tool carries at most 64 MiB with the
# working tree, and the archive is what fits. cuBLASLt is the machine's own. Then, with
# the device tool:
#   run(command="tools/gpu/check.sh", carry=["gpu-bundle"])
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/release}
binaries=("$build/geoalign" "$build/tests/geoalign_device_tests")
cmake --build "$build" --target geoalign geoalign_device_tests -j"$(nproc)"
for binary in "${binaries[@]}"; do
  if ! grep -q "no usable CUDA device" "$binary"; then
    echo "$build was configured without the CUDA backend (GEOALIGN_CUDA=ON needs CUDA 12 or later)" >&2
    exit 1
  fi
done
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
mkdir -p "$staging/lib"
cp "${binaries[@]}" "$staging/"
ldd "${binaries[@]}" | awk '$3 ~ /^\// {print $3}' | sort -u |
  grep -vE '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so' | xargs -r -I{} cp -L {} "$staging/lib/"
rm -rf gpu-bundle
mkdir -p gpu-bundle
tar -C "$staging" -cf - . | xz -T0 -9 >gpu-bundle/bundle.tar.xz
ls -l "$staging" "$staging/lib"
du -sh gpu-bundle/bundle.tar.xz
tracked=$(git ls-files -z | xargs -0 du -cb | tail -1 | cut -f1)
total=$((tracked + $(stat -c %s gpu-bundle/bundle.tar.xz)))
echo "working tree + bundle: $((total / 1048576)) MiB of the device tool's 64 MiB"
if [ "$total" -gt $((64 * 1048576)) ]; then
  echo "too large for the device tool's carry" >&2
  exit 1
fi
