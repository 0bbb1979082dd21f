#include "backend/device.h"

namespace geoalign {

Device parse_device(std::string_view name) {
  if (name == "cpu") return Device::CPU;
  if (name == "cuda" || name == "cuda:0") return Device::CUDA;
  if (name.starts_with("cuda:")) {
    throw Error("device " + std::string(name) + ": only the first GPU (cuda or cuda:0) can be used so far");
  }
  throw Error("unknown device \"" + std::string(name) + "\" (expected cpu, cuda or cuda:0)");
}

}  // namespace geoalign
