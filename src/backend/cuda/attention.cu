#include <cmath>

#include "backend/cuda/launch.cuh"
#include "backend/ops/attention.h"

namespace geoalign::ops {

namespace {

// The sequence that owns token t: the last s with cu_seqlens[s] <= t.
__device__ int sequence_of(const std::int32_t* cu_seqlens, int sequences, int t) {
  int lo = 0, hi = sequences - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (cu_seqlens[mid] <= t) lo = mid; else hi = mid - 1;
  }
  return lo;
}

// One block per (query token, head): the scores against every key of the token's own
// sequence go to shared memory, then softmax, then the weighted sum of the values, one
// thread per output dimension. Plain and exact, the reference a fused kernel must match.
__global__ void attention_rows(const float* qkv, const std::int32_t* cu_seqlens, int sequences, int hidden,
                               int head_dim, float scale, float* out) {
  extern __shared__ float scores[];  // max sequence length floats
  __shared__ float scratch[cuda::kRowThreads / 32];
  const int t = blockIdx.x, head = blockIdx.y;
  const int s = sequence_of(cu_seqlens, sequences, t);
  const int first = cu_seqlens[s], len = cu_seqlens[s + 1] - first;
  const std::int64_t stride = 3 * static_cast<std::int64_t>(hidden);
  const float* q = qkv + t * stride + head * head_dim;
  const float* keys = qkv + first * stride + hidden + head * head_dim;
  const float* values = qkv + first * stride + 2 * hidden + head * head_dim;

  float best = -FLT_MAX;
  for (int j = threadIdx.x; j < len; j += blockDim.x) {
    float dot = 0.0f;
    for (int d = 0; d < head_dim; ++d) dot += q[d] * keys[j * stride + d];
    scores[j] = dot * scale;
    best = fmaxf(best, scores[j]);
  }
  best = cuda::block_max(best, scratch);
  float total = 0.0f;
  for (int j = threadIdx.x; j < len; j += blockDim.x) total += scores[j] = expf(scores[j] - best);
  const float inv = 1.0f / cuda::block_sum(total, scratch);  // its barriers publish scores
  for (int d = threadIdx.x; d < head_dim; d += blockDim.x) {
    float sum = 0.0f;
    for (int j = 0; j < len; ++j) sum += scores[j] * values[j * stride + d];
    out[static_cast<std::int64_t>(t) * hidden + head * head_dim + d] = sum * inv;
  }
}

}  // namespace

template <>
void attention<Device::CUDA>(const Tensor& qkv, std::span<const std::int32_t> cu_seqlens, std::int64_t num_heads,
                             Tensor& out) {
  const std::int64_t tokens = qkv.dim(0), hidden = qkv.dim(1) / 3;
  if (tokens == 0) return;
  std::int32_t longest = 0;
  for (std::size_t s = 1; s < cu_seqlens.size(); ++s) longest = std::max(longest, cu_seqlens[s] - cu_seqlens[s - 1]);
  const std::size_t shared = static_cast<std::size_t>(longest) * sizeof(float);
  if (shared > 48 * 1024) {
    throw Error("attention: a sequence of " + std::to_string(longest) + " tokens is longer than the CUDA kernel holds");
  }
  const Tensor offsets = cuda::device_offsets(cu_seqlens);
  const auto head_dim = static_cast<int>(hidden / num_heads);
  const dim3 grid(static_cast<unsigned>(tokens), static_cast<unsigned>(num_heads));
  attention_rows<<<grid, cuda::kRowThreads, shared>>>(qkv.data<float>(), offsets.data<std::int32_t>(),
                                                      static_cast<int>(cu_seqlens.size()) - 1, static_cast<int>(hidden),
                                                      head_dim, 1.0f / std::sqrt(static_cast<float>(head_dim)),
                                                      out.data<float>());
  cuda::check_launch("attention");
}

}  // namespace geoalign::ops
