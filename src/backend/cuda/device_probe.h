#pragma once

#include <string>

namespace geoalign::cuda {

// Whether this process can use a CUDA device, asked once: a build with CUDA runs on
// machines without a GPU or driver, where every CUDA path must say so, never crash.
struct DeviceProbe {
  int devices = 0;
  std::string reason;  // why there are none ("no CUDA-capable device", a driver too old...)
};
const DeviceProbe& probe();

// Throws Error("no usable CUDA device: <reason>") unless one is there.
void require_usable_device();

}  // namespace geoalign::cuda
