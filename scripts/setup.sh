#!/usr/bin/env bash
# Installs the Debian packages geoalign builds against. Safe to run repeatedly:
# it only calls apt-get when something is missing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libdnnl-dev          # oneDNN: GEMM and CPU ISA dispatch
  ocl-icd-opencl-dev   # oneDNN's CMake config looks for OpenCL (only recommended by libdnnl-dev)
  libicu-dev           # Unicode categories, NFC/NFD and case mapping for the tokenizer
  nlohmann-json3-dev   # config.json and safetensors headers
  libopencc-dev opencc # optional traditional -> simplified normalization
  libhnswlib-dev       # HNSW graph for search and dedup (header-only)
  libboost-dev         # Boost.Beast/Asio for geoalign serve and loadtest
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc  # KServe v2 over gRPC (serve --grpc-port)
  libgtest-dev
  clang libclang-rt-14-dev  # libFuzzer targets (scripts/fuzz.sh)
  # The Python package (pip install ., tests/python): Debian's Python, pybind11 and the
  # libraries the package returns (numpy arrays, pandas DataFrames), pytest for its tests;
  # dask and distributed for running it in dask pipelines (the tests do not need them).
  pybind11-dev python3-dev python3-pip python3-numpy python3-pandas python3-pytest
  python3-dask python3-distributed
  python3-grpcio python3-grpc-tools  # the gRPC service's Python test (stubs made from its .proto at test time)
  chromium             # headless, for the playground's browser tests (tests/python/test_playground.py)
  fonts-wqy-microhei   # a CJK font, so that their screenshots show Chinese
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
