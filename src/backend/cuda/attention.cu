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

// The kernel for sequences whose keys and values fit in shared memory (a few hundred tokens
// at head size 64: every address pair). One block per (sequence, head, chunk of queries):
// the block loads the sequence's keys and values for its head once, then each warp takes
// one query at a time, its lanes splitting the keys for the scores and the head's
// dimensions for the weighted sum. Rows in shared memory have an odd stride, so the lanes
// that read one dimension of 32 different keys hit 32 different banks.
constexpr int kWarps = 4;
constexpr int kQueriesPerBlock = 32;

__device__ float warp_max(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__host__ __device__ int padded_row(int head_dim) { return head_dim % 2 ? head_dim : head_dim + 1; }

std::size_t shared_bytes_for(int longest, int head_dim) {
  const std::size_t keys_and_values = 2 * static_cast<std::size_t>(longest) * padded_row(head_dim);
  const std::size_t per_warp = static_cast<std::size_t>(kWarps) * (head_dim + longest);  // a query, its weights
  return sizeof(float) * (keys_and_values + per_warp);
}

__global__ void attention_in_shared(const float* qkv, const std::int32_t* cu_seqlens, int hidden, int head_dim,
                                    float scale, float* out) {
  extern __shared__ float shared[];
  const int s = blockIdx.x, head = blockIdx.y;
  const int first = cu_seqlens[s], len = cu_seqlens[s + 1] - first;
  const int begin = blockIdx.z * kQueriesPerBlock;
  if (begin >= len) return;
  const int end = min(len, begin + kQueriesPerBlock);
  const int row = padded_row(head_dim), warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float* keys = shared;
  float* values = keys + len * row;
  float* query = values + len * row + warp * head_dim;
  float* weights = values + len * row + kWarps * head_dim + warp * len;
  const std::int64_t stride = 3 * static_cast<std::int64_t>(hidden);
  const float* rows = qkv + first * stride + head * head_dim;

  for (int i = threadIdx.x; i < len * head_dim; i += blockDim.x) {
    const int j = i / head_dim, d = i % head_dim;
    keys[j * row + d] = rows[j * stride + hidden + d];
    values[j * row + d] = rows[j * stride + 2 * hidden + d];
  }
  __syncthreads();
  for (int t = begin + warp; t < end; t += kWarps) {
    for (int d = lane; d < head_dim; d += 32) query[d] = rows[t * stride + d];
    __syncwarp();
    float best = -FLT_MAX;
    for (int j = lane; j < len; j += 32) {
      float dot = 0.0f;
      for (int d = 0; d < head_dim; ++d) dot += query[d] * keys[j * row + d];
      weights[j] = dot * scale;
      best = fmaxf(best, weights[j]);
    }
    best = warp_max(best);
    float total = 0.0f;
    for (int j = lane; j < len; j += 32) total += weights[j] = expf(weights[j] - best);
    const float inv = 1.0f / warp_sum(total);
    __syncwarp();  // every lane's weights are written before any lane reads them all
    for (int d = lane; d < head_dim; d += 32) {
      float sum = 0.0f;
      for (int j = 0; j < len; ++j) sum += weights[j] * values[j * row + d];
      out[(first + t) * static_cast<std::int64_t>(hidden) + head * head_dim + d] = sum * inv;
    }
    __syncwarp();  // the next query overwrites this one and its weights
  }
}

// The fallback for longer sequences: one block per (query token, head), the scores against
// every key of the token's own sequence in shared memory, then softmax, then the weighted
// sum of the values, one thread per output dimension. Plain and exact, and slow: each
// block reads all of its sequence's keys and values from global memory.
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
  const std::int32_t* offsets = cuda::device_offsets(cu_seqlens);
  const auto sequences = static_cast<unsigned>(cu_seqlens.size() - 1);
  const auto head_dim = static_cast<int>(hidden / num_heads);
  const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));

  // Shared memory past 48 KB is there only when asked for, up to the device's limit.
  static const int shared_limit = [] {
    int device = 0, limit = 0;
    cuda::check(cudaGetDevice(&device), "cudaGetDevice");
    cuda::check(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
                "cudaDeviceGetAttribute");
    cuda::check(cudaFuncSetAttribute(attention_in_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, limit),
                "cudaFuncSetAttribute");
    return limit;
  }();
  const std::size_t shared = shared_bytes_for(longest, head_dim);
  if (shared <= static_cast<std::size_t>(shared_limit)) {
    const dim3 grid(sequences, static_cast<unsigned>(num_heads),
                    static_cast<unsigned>((longest + kQueriesPerBlock - 1) / kQueriesPerBlock));
    attention_in_shared<<<grid, kWarps * 32, shared>>>(qkv.data<float>(), offsets, static_cast<int>(hidden), head_dim,
                                                       scale, out.data<float>());
    cuda::check_launch("attention");
    return;
  }
  const std::size_t scores = static_cast<std::size_t>(longest) * sizeof(float);
  if (scores > 48 * 1024) {
    throw Error("attention: a sequence of " + std::to_string(longest) + " tokens is longer than the CUDA kernel holds");
  }
  const dim3 grid(static_cast<unsigned>(tokens), static_cast<unsigned>(num_heads));
  attention_rows<<<grid, cuda::kRowThreads, scores>>>(qkv.data<float>(), offsets, static_cast<int>(sequences),
                                                      static_cast<int>(hidden), head_dim, scale, out.data<float>());
  cuda::check_launch("attention");
}

}  // namespace geoalign::ops
