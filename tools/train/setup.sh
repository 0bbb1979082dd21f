#!/usr/bin/env bash
# Installs what training needs: Debian's PyTorch and scikit-learn, and OpenBLAS (OpenMP build) as the
# system BLAS. Without OpenBLAS, Debian's PyTorch multiplies through the reference BLAS
# at about 3 GFLOP/s; with it, about 100 GFLOP/s on two cores.
set -euo pipefail
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-torch libopenblas0-openmp python3-sklearn >/dev/null
