#include "backend/cpu/quantize.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/cpu/kernel_targets.h"
#include "backend/cpu/parallel.h"

namespace geoalign::cpu {

namespace {

// Chunks of 16K values: big enough to amortize the fork, small enough to split a
// typical activation matrix over every core.
constexpr std::int64_t kChunk = 16384;

__attribute__((always_inline)) inline float chunk_max_abs(const float* x, std::int64_t n) {
  float m = 0.0f;
#pragma omp simd reduction(max : m)
  for (std::int64_t i = 0; i < n; ++i) m = std::max(m, std::fabs(x[i]));
  return m;
}

__attribute__((always_inline)) inline void chunk_quantize(const float* x, std::int64_t n, float inverse_scale,
                                                          std::int8_t* q) {
#pragma omp simd
  for (std::int64_t i = 0; i < n; ++i) {
    const float v = std::clamp(__builtin_nearbyintf(x[i] * inverse_scale), -127.0f, 127.0f);
    q[i] = static_cast<std::int8_t>(v);
  }
}

using MaxKernel = float (*)(const float*, std::int64_t);
float max_baseline(const float* x, std::int64_t n) { return chunk_max_abs(x, n); }
GEOALIGN_TARGET_AVX2 float max_avx2(const float* x, std::int64_t n) { return chunk_max_abs(x, n); }
GEOALIGN_TARGET_AVX512 float max_avx512(const float* x, std::int64_t n) { return chunk_max_abs(x, n); }

using QuantizeKernel = void (*)(const float*, std::int64_t, float, std::int8_t*);
void quantize_baseline(const float* x, std::int64_t n, float s, std::int8_t* q) { chunk_quantize(x, n, s, q); }
GEOALIGN_TARGET_AVX2 void quantize_avx2(const float* x, std::int64_t n, float s, std::int8_t* q) {
  chunk_quantize(x, n, s, q);
}
GEOALIGN_TARGET_AVX512 void quantize_avx512(const float* x, std::int64_t n, float s, std::int8_t* q) {
  chunk_quantize(x, n, s, q);
}

template <typename Fn>
void over_chunks(std::int64_t n, Fn&& fn) {
  const std::int64_t chunks = (n + kChunk - 1) / kChunk;
  if (chunks <= 1) {
    fn(0, 0, n);
    return;
  }
  parallel_for(chunks, [&](std::int64_t c) { fn(c, c * kChunk, std::min(kChunk, n - c * kChunk)); });
}

}  // namespace

float max_abs(const float* x, std::int64_t n) {
  const MaxKernel kernel = pick_kernel<MaxKernel>(max_baseline, max_avx2, max_avx512);
  // Named through a reference: inside the parallel loop the thread_local's own name
  // would mean each worker's instance, not the caller's.
  thread_local std::vector<float> per_chunk;
  std::vector<float>& partial = per_chunk;
  partial.assign(static_cast<std::size_t>(std::max<std::int64_t>(1, (n + kChunk - 1) / kChunk)), 0.0f);
  over_chunks(n, [&](std::int64_t c, std::int64_t first, std::int64_t count) {
    partial[static_cast<std::size_t>(c)] = kernel(x + first, count);
  });
  return *std::max_element(partial.begin(), partial.end());
}

void quantize_s8(const float* x, std::int64_t n, float inverse_scale, std::int8_t* q) {
  const QuantizeKernel kernel = pick_kernel<QuantizeKernel>(quantize_baseline, quantize_avx2, quantize_avx512);
  over_chunks(n, [&](std::int64_t, std::int64_t first, std::int64_t count) {
    kernel(x + first, count, inverse_scale, q + first);
  });
}

}  // namespace geoalign::cpu
