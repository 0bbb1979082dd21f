#include "backend/cpu/quantize.h"

#include <algorithm>
#include <cmath>
#include <immintrin.h>

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
// GCC vectorizes quantize_row's rounding and clamping into 128-bit masked steps; here one
// rounding conversion (vcvtps2dq rounds to nearest even, as nearbyint does) and one
// saturating narrowing (vpmovsdb) handle 16 values. |x| * 127 / max rounds to at most
// 127, so saturation never reaches -128 and the result equals the clamped scalar one.
// GCC 12's AVX-512 headers fill unused lanes from self-initialized "undefined" vectors
// and then warn about them (GCC bug 105593); the lanes are never read.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
GEOALIGN_TARGET_AVX512 float row_avx512(const float* x, std::int64_t n, std::int8_t* q) {
  // The last block is masked: lanes past n load as zero and are not stored.
  auto lanes = [n](std::int64_t i) {
    return static_cast<__mmask16>(n - i >= 16 ? 0xFFFF : (1u << (n - i)) - 1);
  };
  __m512 vmax = _mm512_setzero_ps();
  for (std::int64_t i = 0; i < n; i += 16) {
    vmax = _mm512_max_ps(vmax, _mm512_abs_ps(_mm512_maskz_loadu_ps(lanes(i), x + i)));
  }
  const float max = _mm512_reduce_max_ps(vmax);
  if (max == 0.0f) {
    std::fill(q, q + n, std::int8_t{0});
    return 1.0f;
  }
  const __m512 scale = _mm512_set1_ps(127.0f / max);
  for (std::int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = lanes(i);
    const __m512i rounded = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_maskz_loadu_ps(m, x + i), scale));
    _mm512_mask_cvtsepi32_storeu_epi8(q + i, m, rounded);
  }
  return max / 127.0f;
}
#pragma GCC diagnostic pop

}  // namespace

void quantize_rows_s8(const float* x, std::int64_t rows, std::int64_t cols, std::int8_t* q, float* scales) {
  const RowKernel kernel = pick_kernel<RowKernel>(row_baseline, row_avx2, row_avx512);
  parallel_for(rows, [&](std::int64_t r) { scales[r] = kernel(x + r * cols, cols, q + r * cols); });
}

}  // namespace geoalign::cpu
