#include "backend/cuda/launch.cuh"
#include "backend/ops/softmax.h"

namespace geoalign::ops {

namespace {

__global__ void softmax_rows(const float* x, int cols, float* y) {
  __shared__ float scratch[cuda::kRowThreads / 32];
  const float* in = x + static_cast<std::int64_t>(blockIdx.x) * cols;
  float* out = y + static_cast<std::int64_t>(blockIdx.x) * cols;
  float best = -FLT_MAX;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) best = fmaxf(best, in[c]);
  best = cuda::block_max(best, scratch);
  float total = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) total += out[c] = expf(in[c] - best);
  const float inv = 1.0f / cuda::block_sum(total, scratch);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] *= inv;
}

}  // namespace

template <>
void softmax<Device::CUDA>(const Tensor& x, Tensor& y) {
  const auto rows = static_cast<unsigned>(x.dim(0));
  if (rows == 0) return;
  softmax_rows<<<rows, cuda::kRowThreads>>>(x.data<float>(), static_cast<int>(x.dim(1)), y.data<float>());
  cuda::check_launch("softmax");
}

}  // namespace geoalign::ops
