#include "backend/cpu/quantize.h"

#include <algorithm>
#include <cmath>

#include "backend/cpu/kernel_targets.h"
#include "backend/cpu/parallel.h"

namespace geoalign::cpu {

namespace {

__attribute__((always_inline)) inline float quantize_row(const float* x, std::int64_t n, std::int8_t* q) {
  float max = 0.0f;
#pragma omp simd reduction(max : max)
  for (std::int64_t i = 0; i < n; ++i) max = std::max(max, std::fabs(x[i]));
  if (max == 0.0f) {
    std::fill(q, q + n, std::int8_t{0});
    return 1.0f;
  }
  const float inverse = 127.0f / max;
#pragma omp simd
  for (std::int64_t i = 0; i < n; ++i) {
    q[i] = static_cast<std::int8_t>(std::clamp(__builtin_nearbyintf(x[i] * inverse), -127.0f, 127.0f));
  }
  return max / 127.0f;
}

using RowKernel = float (*)(const float*, std::int64_t, std::int8_t*);
float row_baseline(const float* x, std::int64_t n, std::int8_t* q) { return quantize_row(x, n, q); }
GEOALIGN_TARGET_AVX2 float row_avx2(const float* x, std::int64_t n, std::int8_t* q) { return quantize_row(x, n, q); }
GEOALIGN_TARGET_AVX512 float row_avx512(const float* x, std::int64_t n, std::int8_t* q) {
  return quantize_row(x, n, q);
}

}  // namespace

void quantize_rows_s8(const float* x, std::int64_t rows, std::int64_t cols, std::int8_t* q, float* scales) {
  const RowKernel kernel = pick_kernel<RowKernel>(row_baseline, row_avx2, row_avx512);
  parallel_for(rows, [&](std::int64_t r) { scales[r] = kernel(x + r * cols, cols, q + r * cols); });
}

}  // namespace geoalign::cpu
