#!/usr/bin/env bash
# Installs what is missing, builds in Release and scores the bundled sample pairs.
# Usage: scripts/run_main.sh [pairs.tsv]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" release >/dev/null

model="$root/models/default"
"$root/build/release/geoalign" score --model "$model" "${1:-$root/examples/sample_pairs.tsv}"
