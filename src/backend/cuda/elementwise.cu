#include <cuda_bf16.h>

#include "backend/cuda/elementwise.h"
#include "backend/cuda/launch.cuh"

namespace geoalign::cuda {

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

__global__ void to_bf16_kernel(const float* x, __nv_bfloat16* y, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __float2bfloat16_rn(x[i]);
}

__global__ void gelu_kernel(float* y, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 0.5f * y[i] * (1.0f + erff(y[i] * 0.70710678118654752f));
}

__global__ void tanh_kernel(float* y, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = tanhf(y[i]);
}

}  // namespace

void to_bf16(const float* x, std::uint16_t* y, std::int64_t n) {
  if (n == 0) return;
  to_bf16_kernel<<<blocks_for(n), kThreads>>>(x, reinterpret_cast<__nv_bfloat16*>(y), n);
  check_launch("to_bf16");
}

void activate_in_place(float* y, std::int64_t n, ops::Activation activation) {
  if (n == 0) return;
  switch (activation) {
    case ops::Activation::Gelu: gelu_kernel<<<blocks_for(n), kThreads>>>(y, n); break;
    case ops::Activation::Tanh: tanh_kernel<<<blocks_for(n), kThreads>>>(y, n); break;
    default: throw Error("activate_in_place: cuBLASLt's epilogue applies this activation");
  }
  check_launch("activation");
}

}  // namespace geoalign::cuda
