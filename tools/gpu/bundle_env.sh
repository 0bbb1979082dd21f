# Sourced by the GPU scripts (check.sh, kernel_times.sh): unpacks gpu-bundle/bundle.tar.xz
# (tools/gpu/bundle.sh) into a temporary folder and sets
#   bundle    that folder ("" when there is no bundle here)
#   geoalign  the bundled geoalign, tests the bundled device op tests
#   native    a function that runs a command with the bundle's libraries (theirs alone:
#             PyTorch must load its own libstdc++ and CUDA libraries) and a time limit
# Needs: python (for the path of PyTorch's cuBLASLt), device (cuda or cpu), limit (seconds).
native_ld=${LD_LIBRARY_PATH:-}
bundle=""
geoalign=""
tests=""
if [ -f gpu-bundle/bundle.tar.xz ]; then
  bundle=$(mktemp -d)
  tar -C "$bundle" -xJf gpu-bundle/bundle.tar.xz 2>/dev/null ||
    "$python" -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
      gpu-bundle/bundle.tar.xz "$bundle" || exit 1
  # cuBLASLt 13 (opened at first use) comes from the machine: PyTorch's nvidia packages
  # first (the one PyTorch itself uses), else its CUDA toolkit.
  cublas=$(find -L "$("$python" -c 'import site; print(site.getsitepackages()[0])' 2>/dev/null || echo /nonexistent)" \
    /usr/local/cuda*/lib64 /usr/local/cuda*/targets/*/lib -maxdepth 4 -name libcublasLt.so.13 2>/dev/null | head -1)
  if [ -z "$cublas" ] && [ "$device" = cpu ]; then
    cublas=/nonexistent/libcublasLt.so.13
  elif [ -z "$cublas" ]; then
    echo "no libcublasLt.so.13 on this machine (looked in Python's site-packages and /usr/local/cuda*)" >&2
    exit 1
  fi
  echo "cuBLASLt: $cublas"
  native_ld="$bundle/lib:$(dirname "$cublas")${native_ld:+:$native_ld}"
  tests=$bundle/geoalign_device_tests
  geoalign=$bundle/geoalign
fi

native() { LD_LIBRARY_PATH="$native_ld" timeout "$limit" "$@"; }
