#include "backend/cuda/device_probe.h"

#include <cuda_runtime_api.h>

#include "geoalign/error.h"

namespace geoalign::cuda {

const DeviceProbe& probe() {
  static const DeviceProbe result = [] {
    DeviceProbe p;
    const cudaError_t status = cudaGetDeviceCount(&p.devices);
    if (status != cudaSuccess) {
      p.devices = 0;
      p.reason = cudaGetErrorString(status);
      if (status == cudaErrorInsufficientDriver) p.reason += " (no NVIDIA driver here, or one too old)";
      cudaGetLastError();  // the failed query must not surface in a later, unrelated check
    } else if (p.devices == 0) {
      p.reason = "no CUDA-capable device";
    }
    return p;
  }();
  return result;
}

void require_usable_device() {
  if (probe().devices == 0) throw Error("no usable CUDA device: " + probe().reason);
}

}  // namespace geoalign::cuda
