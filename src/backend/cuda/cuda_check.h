#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "geoalign/error.h"

namespace geoalign::cuda {

// Every CUDA runtime call goes through this, so a failure names the call and CUDA's reason.
inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw Error(std::string(what) + " failed: " + cudaGetErrorString(status));
}

}  // namespace geoalign::cuda
