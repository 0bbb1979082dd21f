#include "backend/cuda/launch.cuh"
#include "backend/ops/pooling.h"

namespace geoalign::ops {

namespace {

// One block per sequence, threads across the hidden vector; tokens summed in order, as
// the CPU does.
__global__ void pool_sequences(const float* x, const std::int32_t* cu_seqlens, bool mean, int hidden, float* out) {
  const int s = blockIdx.x;
  const std::int64_t first = cu_seqlens[s], len = cu_seqlens[s + 1] - first;
  float* row = out + static_cast<std::int64_t>(s) * hidden;
  for (int h = threadIdx.x; h < hidden; h += blockDim.x) {
    if (!mean) {
      row[h] = x[first * hidden + h];
      continue;
    }
    float sum = 0.0f;
    for (std::int64_t t = 0; t < len; ++t) sum += x[(first + t) * hidden + h];
    row[h] = sum * (1.0f / static_cast<float>(len));
  }
}

}  // namespace

template <>
void pool<Device::CUDA>(const Tensor& x, std::span<const std::int32_t> cu_seqlens, Pooling pooling, Tensor& out) {
  const auto sequences = static_cast<unsigned>(out.dim(0));
  if (sequences == 0) return;
  const std::int32_t* offsets = cuda::device_offsets(cu_seqlens);
  pool_sequences<<<sequences, cuda::kRowThreads>>>(x.data<float>(), offsets,
                                                   pooling == Pooling::Mean, static_cast<int>(x.dim(1)),
                                                   out.data<float>());
  cuda::check_launch("pool");
}

}  // namespace geoalign::ops
