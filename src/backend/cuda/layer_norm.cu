#include "backend/cuda/launch.cuh"
#include "backend/ops/layer_norm.h"

namespace geoalign::ops {

namespace {

// One block per row, as the CPU does it: v = x (+ residual) written to y and read back
// (y may alias either input), mean first, then the squared deviations.
__global__ void layer_norm_rows(const float* x, const float* residual, const float* gamma, const float* beta, float eps,
                                int hidden, float* y) {
  __shared__ float scratch[cuda::kRowThreads / 32];
  const std::int64_t row = blockIdx.x;
  const float* xr = x + row * hidden;
  const float* rr = residual ? residual + row * hidden : nullptr;
  float* yr = y + row * hidden;
  float sum = 0.0f;
  for (int h = threadIdx.x; h < hidden; h += blockDim.x) {
    const float v = rr ? xr[h] + rr[h] : xr[h];
    yr[h] = v;
    sum += v;
  }
  const float mean = cuda::block_sum(sum, scratch) / static_cast<float>(hidden);
  float var = 0.0f;
  for (int h = threadIdx.x; h < hidden; h += blockDim.x) var += (yr[h] - mean) * (yr[h] - mean);
  const float inv = rsqrtf(cuda::block_sum(var, scratch) / static_cast<float>(hidden) + eps);
  for (int h = threadIdx.x; h < hidden; h += blockDim.x) yr[h] = (yr[h] - mean) * inv * gamma[h] + beta[h];
}

}  // namespace

template <>
void layer_norm<Device::CUDA>(const Tensor& x, const Tensor* residual, const Tensor& gamma, const Tensor& beta,
                              float eps, Tensor& y) {
  const auto rows = static_cast<unsigned>(x.dim(0));
  if (rows == 0) return;
  layer_norm_rows<<<rows, cuda::kRowThreads>>>(x.data<float>(), residual ? residual->data<float>() : nullptr,
                                               gamma.data<float>(), beta.data<float>(), eps,
                                               static_cast<int>(x.dim(1)), y.data<float>());
  cuda::check_launch("layer_norm");
}

}  // namespace geoalign::ops
