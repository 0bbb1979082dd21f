#include "backend/cuda/launch.cuh"
#include "backend/ops/normalize.h"

namespace geoalign::ops {

namespace {

__global__ void l2_normalize(float* x, int cols) {
  __shared__ float scratch[cuda::kRowThreads / 32];
  float* v = x + static_cast<std::int64_t>(blockIdx.x) * cols;
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += v[c] * v[c];
  // torch.nn.functional.normalize's epsilon.
  const float scale = 1.0f / fmaxf(sqrtf(cuda::block_sum(sum, scratch)), 1e-12f);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) v[c] *= scale;
}

}  // namespace

template <>
void l2_normalize_rows<Device::CUDA>(Tensor& x) {
  const auto rows = static_cast<unsigned>(x.dim(0));
  if (rows == 0) return;
  l2_normalize<<<rows, cuda::kRowThreads>>>(x.data<float>(), static_cast<int>(x.dim(1)));
  cuda::check_launch("l2_normalize_rows");
}

}  // namespace geoalign::ops
