#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <span>
#include <vector>

#include "backend/cuda/cuda_check.h"
#include "backend/memory.h"
#include "backend/tensor.h"

namespace geoalign::cuda {

// Row kernels use one block of this many threads per row: enough to cover a 768- or
// 1024-wide hidden vector in a few strided steps.
constexpr int kRowThreads = 256;

// A kernel launch's own error (a bad configuration) surfaces at once; a fault inside the
// kernel surfaces at the next synchronizing call, the copy back to the host.
inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

// v combined over the block, in every thread: warps first, then one value per warp.
// `scratch` holds one float per warp; blockDim.x is a multiple of 32.
template <typename Combine>
__device__ float block_reduce(float v, float* scratch, Combine combine, float identity) {
  for (int offset = 16; offset > 0; offset /= 2) v = combine(v, __shfl_down_sync(0xffffffffu, v, offset));
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();  // scratch may still be read from a previous call
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  float total = identity;
  for (int w = 0; w < static_cast<int>(blockDim.x + 31) / 32; ++w) total = combine(total, scratch[w]);
  return total;
}

__device__ inline float block_sum(float v, float* scratch) {
  return block_reduce(v, scratch, [](float a, float b) { return a + b; }, 0.0f);
}

__device__ inline float block_max(float v, float* scratch) {
  return block_reduce(v, scratch, [](float a, float b) { return fmaxf(a, b); }, -FLT_MAX);
}

// cu_seqlens, which the ops take on the host, on the device for a kernel. Each thread keeps
// its last copy: every layer of a batch passes the same offsets, and a copy from the host
// first waits for everything queued on the device, which would leave it idle once per layer.
// The pointer stays valid until this thread asks for other offsets; kernels queued before
// then still read the old ones, since the pool hands their memory only to later work.
inline const std::int32_t* device_offsets(std::span<const std::int32_t> cu_seqlens) {
  thread_local std::vector<std::int32_t> on_host;
  thread_local Tensor on_device;
  if (!std::equal(cu_seqlens.begin(), cu_seqlens.end(), on_host.begin(), on_host.end())) {
    Tensor copy({static_cast<std::int64_t>(cu_seqlens.size())}, DType::I32, Device::CUDA);
    copy_bytes(Device::CUDA, reinterpret_cast<std::byte*>(copy.data<std::int32_t>()), Device::CPU,
               reinterpret_cast<const std::byte*>(cu_seqlens.data()), cu_seqlens.size_bytes());
    on_device = std::move(copy);
    on_host.assign(cu_seqlens.begin(), cu_seqlens.end());
  }
  return on_device.data<std::int32_t>();
}

}  // namespace geoalign::cuda
