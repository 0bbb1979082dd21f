#include "backend/cpu/quantize.h"

#include <algorithm>
#include <cmath>
#include <immintrin.h>

#include "backend/cpu/kernel_targets.h"
#include "backend/cpu/parallel.h"

namespace geoalign::cpu {

namespace {

__attribute__((always_inline)) inline float quantize_row(const float* x, std::int64_t n, std::int8_t* q,
                                                         float levels) {
  float max = 0.0f;
#pragma omp simd reduction(max : max)
  for (std::int64_t i = 0; i < n; ++i) max = std::max(max, std::fabs(x[i]));
  if (max == 0.0f) {
    std::fill(q, q + n, std::int8_t{0});
    return 1.0f;
  }
  const float inverse = levels / max;
#pragma omp simd
  for (std::int64_t i = 0; i < n; ++i) {
    q[i] = static_cast<std::int8_t>(std::clamp(__builtin_nearbyintf(x[i] * inverse), -levels, levels));
  }
  return max / levels;
}

using RowKernel = float (*)(const float*, std::int64_t, std::int8_t*, float);
float row_baseline(const float* x, std::int64_t n, std::int8_t* q, float levels) {
  return quantize_row(x, n, q, levels);
}
GEOALIGN_TARGET_AVX2 float row_avx2(const float* x, std::int64_t n, std::int8_t* q, float levels) {
  return quantize_row(x, n, q, levels);
}
// GCC vectorizes quantize_row's rounding and clamping into 128-bit masked steps; here
// rounding conversions (vcvtps2dq rounds to nearest even, as nearbyint does) and
// saturating narrowing handle 64 values at a time. |x| * levels / max rounds to at most
// levels <= 127, so saturation never reaches -128 and the result equals the clamped scalar one.
// GCC 12's AVX-512 headers fill unused lanes from self-initialized "undefined" vectors
// and then warn about them (GCC bug 105593); the lanes are never read.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
GEOALIGN_TARGET_AVX512 inline __m512i scaled_to_int(const float* x, __m512 scale) {
  return _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(x), scale));
}

GEOALIGN_TARGET_AVX512 float row_avx512(const float* x, std::int64_t n, std::int8_t* q, float levels) {
  // The last block is masked: lanes past n load as zero and are not stored.
  auto lanes = [n](std::int64_t i) {
    return static_cast<__mmask16>(n - i >= 16 ? 0xFFFF : (1u << (n - i)) - 1);
  };
  // Four running maxima, so the loop is not one chain of dependent vmaxps.
  __m512 m0 = _mm512_setzero_ps(), m1 = m0, m2 = m0, m3 = m0;
  std::int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    m0 = _mm512_max_ps(m0, _mm512_abs_ps(_mm512_loadu_ps(x + i)));
    m1 = _mm512_max_ps(m1, _mm512_abs_ps(_mm512_loadu_ps(x + i + 16)));
    m2 = _mm512_max_ps(m2, _mm512_abs_ps(_mm512_loadu_ps(x + i + 32)));
    m3 = _mm512_max_ps(m3, _mm512_abs_ps(_mm512_loadu_ps(x + i + 48)));
  }
  for (; i < n; i += 16) m0 = _mm512_max_ps(m0, _mm512_abs_ps(_mm512_maskz_loadu_ps(lanes(i), x + i)));
  const float max = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_max_ps(m0, m1), _mm512_max_ps(m2, m3)));
  if (max == 0.0f) {
    std::fill(q, q + n, std::int8_t{0});
    return 1.0f;
  }
  const __m512 scale = _mm512_set1_ps(levels / max);
  // 64 values at a time: two saturating packs narrow four vectors to bytes (interleaved
  // by 128-bit lane), one permutation puts them back in order. The packs saturate
  // exactly as vpmovsdb does.
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  for (i = 0; i + 64 <= n; i += 64) {
    const __m512i words01 = _mm512_packs_epi32(scaled_to_int(x + i, scale), scaled_to_int(x + i + 16, scale));
    const __m512i words23 = _mm512_packs_epi32(scaled_to_int(x + i + 32, scale), scaled_to_int(x + i + 48, scale));
    _mm512_storeu_si512(q + i, _mm512_permutexvar_epi32(order, _mm512_packs_epi16(words01, words23)));
  }
  for (; i < n; i += 16) {
    const __mmask16 m = lanes(i);
    const __m512i r = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_maskz_loadu_ps(m, x + i), scale));
    _mm512_mask_cvtsepi32_storeu_epi8(q + i, m, r);
  }
  return max / levels;
}
#pragma GCC diagnostic pop

}  // namespace

void quantize_rows_s8(const float* x, std::int64_t rows, std::int64_t cols, std::int8_t* q, float* scales,
                      int levels) {
  const RowKernel kernel = pick_kernel<RowKernel>(row_baseline, row_avx2, row_avx512);
  const auto l = static_cast<float>(levels);
  parallel_for(rows, [&](std::int64_t r) { scales[r] = kernel(x + r * cols, cols, q + r * cols, l); });
}

}  // namespace geoalign::cpu
