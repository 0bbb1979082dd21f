#!/usr/bin/env bash
# Installs what is missing, then builds and runs the whole test suite twice: a Release
# build (then its install used from outside the tree, and the docs' runnable examples and
# named options against it), and the unit
# tests again under AddressSanitizer + UndefinedBehaviorSanitizer;
# then installs the Python package and runs its tests; then the threaded tests under
# ThreadSanitizer; then each libFuzzer target for a few seconds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"

for kind in release asan; do
  echo "== $kind build (at ${SECONDS} s)" >&2
  "$root/scripts/build.sh" "$kind"
  echo "== $kind tests (at ${SECONDS} s)" >&2
  (cd "$root/build/$kind" && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j "$(nproc)")
done

# The installed library, headers and CMake package, used by a project outside the tree
# (examples/cpp through find_package(geoalign)).
echo "== install check (at ${SECONDS} s)" >&2
"$root/scripts/check_install.sh" "$root/build/release"

# The docs against the program: every runnable example in README.md and docs/ runs, and
# every option they name exists (tools/check_docs.py).
echo "== doc check (at ${SECONDS} s)" >&2
/usr/bin/python3 "$root/tools/check_docs.py"

# The Python package, installed as docs/python.md says (its CMake build stays in build/python, so
# a second run rebuilds little), then its tests against the installed copy; they compare
# its answers with build/release/geoalign's. Run from the root, where no geoalign/ folder
# can shadow the installed package (the sources are in python/geoalign).
echo "== python package (at ${SECONDS} s)" >&2
(cd "$root" && /usr/bin/python3 -m pip install --no-build-isolation --break-system-packages .)
echo "== python tests (at ${SECONDS} s)" >&2
(cd "$root" && /usr/bin/python3 -m pytest -q tests/python)

# ThreadSanitizer on the threaded code: the HTTP server (its I/O thread, the batcher's
# threads and the hand-over between them) and the batcher. OMP_NUM_THREADS=1: libgomp,
# which the model's kernels and oneDNN use, is not built with TSan, and its worker threads
# synchronize in ways TSan cannot see (false reports). With one OpenMP thread no worker
# threads start, so nothing needs suppressing and any report is about geoalign's threads.
echo "== tsan build (at ${SECONDS} s)" >&2
"$root/scripts/build.sh" tsan
echo "== tsan tests (server and batcher) (at ${SECONDS} s)" >&2
(cd "$root/build/tsan" && OMP_NUM_THREADS=1 TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  ctest --output-on-failure -j "$(nproc)" -R 'ServeHttp|ServeApi|ServeProcess|LruCache|Batcher')

echo "== fuzzing (at ${SECONDS} s)" >&2
"$root/scripts/fuzz.sh" "${GEOALIGN_FUZZ_SECONDS:-15}"
echo "scripts/test.sh: all tests passed in ${SECONDS} s" >&2
