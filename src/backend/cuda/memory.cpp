#include <cuda_runtime_api.h>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/device_probe.h"
#include "backend/memory.h"

namespace geoalign {

template <>
void require_device<Device::CUDA>() {
  cuda::require_usable_device();
}

template <>
void synchronize<Device::CUDA>() {
  cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

template <>
std::byte* allocate_bytes<Device::CUDA>(std::size_t bytes) {
  void* p = nullptr;
  // nullptr tells the caller it is out of memory; other failures say what went wrong.
  const cudaError_t status = cudaMalloc(&p, bytes);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    return nullptr;
  }
  cuda::check(status, "cudaMalloc");
  return static_cast<std::byte*>(p);
}

template <>
void free_bytes<Device::CUDA>(std::byte* p) noexcept {
  cudaFree(p);
}

template <>
void copy_bytes<Device::CUDA>(std::byte* dst, const std::byte* src, std::size_t bytes) {
  // Unified addressing tells the runtime which side each pointer is on.
  if (bytes) cuda::check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy");
}

}  // namespace geoalign
