#!/usr/bin/env bash
# Installs what is missing, builds in Release and scores the bundled sample pairs.
# Usage: scripts/run_main.sh [pairs.tsv]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" release >/dev/null

model="$root/models/default"
if [ ! -f "$model/model.safetensors" ]; then
  # Until the trained default model lands, the run uses the tiny random test model: the
  # pipeline is real, its verdicts are not.
  echo "run_main: models/default is not there yet; using the random test fixture (its labels mean nothing)" >&2
  model="$root/tests/fixtures/tiny_bert"
fi
"$root/build/release/geoalign" score --model "$model" "${1:-$root/examples/sample_pairs.tsv}"
