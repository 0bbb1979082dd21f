#include "backend/memory.h"

namespace geoalign {

void require_device(Device device) { GEOALIGN_DISPATCH_DEVICE(device, require_device<D>()); }

std::byte* allocate_bytes(Device device, std::size_t bytes) {
  GEOALIGN_DISPATCH_DEVICE(device, return allocate_bytes<D>(bytes));
  return nullptr;
}

void free_bytes(Device device, std::byte* p) noexcept {
  switch (device) {
    case Device::CPU: free_bytes<Device::CPU>(p); break;
#ifdef GEOALIGN_WITH_CUDA
    case Device::CUDA: free_bytes<Device::CUDA>(p); break;
#else
    case Device::CUDA: break;  // nothing was ever allocated there
#endif
  }
}

void synchronize(Device device) { GEOALIGN_DISPATCH_DEVICE(device, synchronize<D>()); }

void copy_bytes(Device to, std::byte* dst, Device from, const std::byte* src, std::size_t bytes) {
  if (to != Device::CPU && from != Device::CPU && to != from) {
    throw Error(std::string("copy from ") + device_name(from) + " to " + device_name(to) + " is not supported");
  }
  // The side that is not the host decides who copies (a CUDA copy knows both directions).
  const Device by = to != Device::CPU ? to : from;
  GEOALIGN_DISPATCH_DEVICE(by, copy_bytes<D>(dst, src, bytes));
}

}  // namespace geoalign
