#include "backend/cuda/device_buffer.h"

#include <string>

#include "backend/memory.h"
#include "geoalign/error.h"

namespace geoalign::cuda {

void DeviceBuffer::Free::operator()(std::byte* p) const { free_bytes(Device::CUDA, p); }

void DeviceBuffer::reserve(std::size_t bytes) {
  if (bytes <= bytes_) return;
  storage_.reset();
  bytes_ = 0;
  std::byte* p = allocate_bytes(Device::CUDA, bytes);
  if (p == nullptr) throw Error("out of GPU memory allocating " + std::to_string(bytes) + " bytes");
  storage_.reset(p);
  bytes_ = bytes;
}

}  // namespace geoalign::cuda
