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
// at head size 64: every address pair), for head sizes that are a multiple of 4. One block
// per (sequence, head, chunk of queries): the block loads the sequence's keys and values
// for its head once, then each warp takes one query at a time, its lanes splitting the keys
// for the scores and the head's dimensions for the weighted sum.
// Shared memory, in floats: each warp's query and weights (16-byte aligned, read four at a
// time by all lanes at once), the keys transposed (lanes read one dimension of consecutive
// keys: consecutive banks), the values as they come (lanes read consecutive dimensions).
constexpr int kWarps = 4;
constexpr int kMostQueriesPerBlock = 32;

__device__ float warp_max(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__host__ __device__ int round_up_4(int n) { return (n + 3) / 4 * 4; }

std::size_t shared_bytes_for(int longest, int head_dim) {
  const std::size_t per_warp = static_cast<std::size_t>(kWarps) * (head_dim + round_up_4(longest));
  return sizeof(float) * (per_warp + 2 * static_cast<std::size_t>(longest) * head_dim);
}

__global__ void attention_in_shared(const float* qkv, const std::int32_t* cu_seqlens, int hidden, int head_dim,
                                    int queries_per_block, float scale, float* out) {
  extern __shared__ float4 shared4[];  // float4: the base is 16-byte aligned
  const int s = blockIdx.x, head = blockIdx.y;
  const int first = cu_seqlens[s], len = cu_seqlens[s + 1] - first;
  const int begin = blockIdx.z * queries_per_block;
  if (begin >= len) return;
  const int end = min(len, begin + queries_per_block);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, longest4 = round_up_4(gridDim.z * queries_per_block);
  float* shared = reinterpret_cast<float*>(shared4);
  float* query = shared + warp * head_dim;
  float* weights = shared + kWarps * head_dim + warp * longest4;
  float* keys_t = shared + kWarps * (head_dim + longest4);  // [head_dim][len]
  float* values = keys_t + head_dim * len;                  // [len][head_dim]
  const std::int64_t stride = 3 * static_cast<std::int64_t>(hidden);
  const float* rows = qkv + first * stride + head * head_dim;

  for (int i = threadIdx.x; i < len * head_dim; i += blockDim.x) {
    const int j = i / head_dim, d = i % head_dim;
    keys_t[d * len + j] = rows[j * stride + hidden + d];
    values[i] = rows[j * stride + 2 * hidden + d];
  }
  __syncthreads();
  for (int t = begin + warp; t < end; t += kWarps) {
    for (int d = lane; d < head_dim; d += 32) query[d] = rows[t * stride + d];
    __syncwarp();
    float best = -FLT_MAX;
    for (int j = lane; j < len; j += 32) {
      float dot = 0.0f;
      for (int d = 0; d < head_dim; d += 4) {
        const float4 q = *reinterpret_cast<const float4*>(query + d);
        const float* k = keys_t + d * len + j;
        dot += q.x * k[0] + q.y * k[len] + q.z * k[2 * len] + q.w * k[3 * len];
      }
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
      int j = 0;
      for (; j + 4 <= len; j += 4) {
        const float4 w = *reinterpret_cast<const float4*>(weights + j);
        const float* v = values + j * head_dim + d;
        sum += w.x * v[0] + w.y * v[head_dim] + w.z * v[2 * head_dim] + w.w * v[3 * head_dim];
      }
      for (; j < len; ++j) sum += weights[j] * values[j * head_dim + d];
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
  static const auto [shared_limit, multiprocessors] = [] {
    int device = 0, limit = 0, count = 0;
    cuda::check(cudaGetDevice(&device), "cudaGetDevice");
    cuda::check(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
                "cudaDeviceGetAttribute");
    cuda::check(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    cuda::check(cudaFuncSetAttribute(attention_in_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, limit),
                "cudaFuncSetAttribute");
    return std::pair<int, std::int64_t>(limit, count);
  }();
  // Chunks of at most 32 queries, and smaller ones when there are few sequences (one pair:
  // 12 heads), so that the grid still has a couple of blocks per multiprocessor.
  const std::int64_t blocks = static_cast<std::int64_t>(sequences) * num_heads;
  const std::int64_t wanted = (2 * multiprocessors + blocks - 1) / blocks;
  const std::int64_t chunks = std::max<std::int64_t>((longest + kMostQueriesPerBlock - 1) / kMostQueriesPerBlock,
                                                     std::min<std::int64_t>((longest + kWarps - 1) / kWarps, wanted));
  const auto queries_per_block = static_cast<int>((longest + chunks - 1) / chunks);
  const auto z = static_cast<unsigned>((longest + queries_per_block - 1) / queries_per_block);
  const std::size_t shared = shared_bytes_for(static_cast<int>(z) * queries_per_block, head_dim);
  if (head_dim % 4 == 0 && shared <= static_cast<std::size_t>(shared_limit)) {
    const dim3 grid(sequences, static_cast<unsigned>(num_heads), z);
    attention_in_shared<<<grid, kWarps * 32, shared>>>(qkv.data<float>(), offsets, static_cast<int>(hidden), head_dim,
                                                       queries_per_block, scale, out.data<float>());
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
