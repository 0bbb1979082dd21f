#include <cuda_runtime_api.h>

#include "backend/cuda/cuda_check.h"
#include "backend/caching_pool.h"
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

namespace {

std::byte* cuda_malloc(std::size_t bytes) {
  void* p = nullptr;
  // nullptr tells the pool it is out of memory; other failures say what went wrong.
  const cudaError_t status = cudaMalloc(&p, bytes);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    return nullptr;
  }
  cuda::check(status, "cudaMalloc");
  return static_cast<std::byte*>(p);
}

void cuda_free(std::byte* p) noexcept { cudaFree(p); }

// Everything runs on the default stream, which is what makes the pool's reuse safe. Never
// destroyed: tensors in static storage may be freed after it, and the CUDA runtime may
// already be torn down at exit.
CachingPool& pool() {
  static CachingPool* const instance = new CachingPool(cuda_malloc, cuda_free);
  return *instance;
}

}  // namespace

template <>
std::byte* allocate_bytes<Device::CUDA>(std::size_t bytes) {
  return pool().allocate(bytes);
}

template <>
void free_bytes<Device::CUDA>(std::byte* p) noexcept {
  pool().release(p);
}

template <>
void copy_bytes<Device::CUDA>(std::byte* dst, const std::byte* src, std::size_t bytes) {
  // Unified addressing tells the runtime which side each pointer is on.
  if (bytes) cuda::check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy");
}

}  // namespace geoalign
