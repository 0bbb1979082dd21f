#!/usr/bin/env bash
# Usage: scripts/build.sh [release|asan|tsan]   (default: release)
# Configures and builds into build/<kind>.
set -euo pipefail
kind=${1:-release}
root=$(cd "$(dirname "$0")/.." && pwd)
case "$kind" in
  release) flags=(-DCMAKE_BUILD_TYPE=Release) ;;
  asan)    flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DGEOALIGN_SANITIZE=ON) ;;
  tsan)    flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DGEOALIGN_TSAN=ON) ;;
  *) echo "build.sh: unknown build kind '$kind' (release|asan|tsan)" >&2; exit 2 ;;
esac
cmake -S "$root" -B "$root/build/$kind" "${flags[@]}" >/dev/null
cmake --build "$root/build/$kind" -j "$(nproc)"
