#!/usr/bin/env bash
# Installs what is missing, then builds and runs the whole test suite twice: a Release
# build, and the unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer;
# then each libFuzzer target for a few seconds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"

for kind in release asan; do
  echo "== $kind build" >&2
  "$root/scripts/build.sh" "$kind"
  echo "== $kind tests" >&2
  (cd "$root/build/$kind" && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j "$(nproc)")
done

echo "== fuzzing" >&2
"$root/scripts/fuzz.sh" "${GEOALIGN_FUZZ_SECONDS:-15}"
echo "scripts/test.sh: all tests passed" >&2
