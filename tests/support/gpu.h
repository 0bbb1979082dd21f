#pragma once

#include <string>

#ifdef GEOALIGN_WITH_CUDA
#include "backend/cuda/device_probe.h"
#endif

namespace geoalign::testing {

// What asking for the GPU fails with here ("no usable CUDA device", or "no CUDA backend" in
// a build without it); empty where a GPU is usable.
inline std::string gpu_refusal() {
#ifdef GEOALIGN_WITH_CUDA
  return cuda::probe().devices > 0 ? "" : "no usable CUDA device";
#else
  return "no CUDA backend";
#endif
}

}  // namespace geoalign::testing
