#!/usr/bin/env bash
# The installed package, as a project outside the tree uses it: installs a built tree
# (default build/release) into a scratch prefix, builds examples/cpp against it with
# find_package(geoalign), and runs the example on the installed bundled model.
#   scripts/check_install.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/release}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
cmake -S "$root/examples/cpp" -B "$scratch/example" -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/example" -j "$(nproc)" >/dev/null
out=$("$scratch/example/match_pair" "杭州市西湖区文三路478号华星科技大厦" "杭州市西湖区文三路478号华星科技大厦") ||
  { echo "check_install: the example failed (exit $?)" >&2; exit 1; }
echo "$out"
# The same address twice is an exact match, and its parse names its city.
head -1 <<<"$out" | grep -q '^exact_match' || { echo "check_install: expected exact_match first" >&2; exit 1; }
grep -q '杭州市' <<<"$out" || { echo "check_install: expected the parse to name 杭州市" >&2; exit 1; }
# Looked up among itself and two other cities' addresses, it finds itself.
grep -q $'^best hit\tb\t' <<<"$out" || { echo "check_install: expected the search to find record b" >&2; exit 1; }
# Deduplicated with a Guangzhou address: the two copies are one place, Guangzhou another.
grep -q $'^clusters\t2\t002$' <<<"$out" || { echo "check_install: expected dedup to find 2 clusters (rows 0 0 2)" >&2; exit 1; }
# Run from elsewhere without --model, the installed command finds the model installed beside it.
(cd "$scratch" && "$scratch/prefix/bin/geoalign" version) | grep -q "^model: $scratch/prefix/share/geoalign/models/default " ||
  { echo "check_install: expected geoalign version to find the installed model" >&2; exit 1; }
# The installed command runs on its own, with the installed model.
"$scratch/prefix/bin/geoalign" score --model "$scratch/prefix/share/geoalign/models/default" <<<$'北京市朝阳区建国路88号\t北京朝阳建国路88号' >/dev/null
echo "check_install: the installed library, headers, CMake package and command work" >&2
