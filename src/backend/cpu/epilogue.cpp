#include "backend/cpu/epilogue.h"

// exp_reduced (fast_exp.h) is instantiated on AVX-512 vectors below and always inlined
// into AVX-512 code, so GCC's note that returning one changes the ABI does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <immintrin.h>

#include "backend/cpu/fast_exp.h"
#include "backend/cpu/kernel_targets.h"
#include "backend/cpu/parallel.h"

namespace geoalign::cpu {

namespace {

using ops::Activation;

// tanh(u) from e^(-2|u|), which cannot overflow.
__attribute__((always_inline)) inline float fast_tanh(float u) {
  const float e = fast_exp(-2.0f * std::fabs(u));
  return std::copysign((1.0f - e) / (1.0f + e), u);
}

// erf by Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7).
__attribute__((always_inline)) inline float fast_erf(float x) {
  const float z = std::fabs(x);
  const float t = 1.0f / (1.0f + 0.3275911f * z);
  const float poly = ((((1.061405429f * t - 1.453152027f) * t + 1.421413741f) * t - 0.284496736f) * t + 0.254829592f) * t;
  return std::copysign(1.0f - poly * fast_exp(-z * z), x);
}

__attribute__((always_inline)) inline void finish_row(float* y, std::int64_t n, float scale, const float* bias,
                                                      Activation activation) {
#pragma omp simd
  for (std::int64_t c = 0; c < n; ++c) y[c] = y[c] * scale + bias[c];
  switch (activation) {
    case Activation::Gelu:
#pragma omp simd
      for (std::int64_t c = 0; c < n; ++c) y[c] = 0.5f * y[c] * (1.0f + fast_erf(y[c] * 0.70710678118654752f));
      break;
    case Activation::GeluTanh:
#pragma omp simd
      for (std::int64_t c = 0; c < n; ++c) {
        const float v = y[c];
        y[c] = 0.5f * v * (1.0f + fast_tanh(0.79788456080286536f * (v + 0.044715f * v * v * v)));
      }
      break;
    case Activation::Relu:
#pragma omp simd
      for (std::int64_t c = 0; c < n; ++c) y[c] = std::max(y[c], 0.0f);
      break;
    case Activation::Tanh:
#pragma omp simd
      for (std::int64_t c = 0; c < n; ++c) y[c] = fast_tanh(y[c]);
      break;
    case Activation::None: break;
  }
}

using RowKernel = void (*)(float*, std::int64_t, float, const float*, Activation);
void row_baseline(float* y, std::int64_t n, float s, const float* b, Activation a) { finish_row(y, n, s, b, a); }
GEOALIGN_TARGET_AVX2 void row_avx2(float* y, std::int64_t n, float s, const float* b, Activation a) {
  finish_row(y, n, s, b, a);
}

// AVX-512 by hand, in one pass: where matrix units make the product cheap (AMX), this
// epilogue took a third as long as the product. GCC's vectorization of finish_row
// divides (vdivps, about 10 cycles a vector on Intel cores) and runs the scale and the
// activation as two passes; here a reciprocal estimate with one Newton step (relative
// error about 2^-28, below float's rounding) replaces each division, vscalefps builds
// 2^n, and a row is read and written once.
// GCC 12's AVX-512 headers fill unused lanes from self-initialized "undefined" vectors
// and then warn about them (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
GEOALIGN_TARGET_AVX512 inline __m512 reciprocal_avx512(__m512 d) {
  const __m512 r = _mm512_rcp14_ps(d);
  return _mm512_mul_ps(r, _mm512_fnmadd_ps(d, r, _mm512_set1_ps(2.0f)));
}

// e^x for x <= 0, as fast_exp: clamped at -87, exp_reduced times 2^n.
GEOALIGN_TARGET_AVX512 inline __m512 exp_avx512(__m512 x) {
  x = _mm512_max_ps(x, _mm512_set1_ps(-87.0f));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  return _mm512_scalef_ps(exp_reduced(x, n), n);
}

// tanh(u) = sign(u) (1 - e) / (1 + e) with e = e^(-2|u|), as fast_tanh.
GEOALIGN_TARGET_AVX512 inline __m512 tanh_avx512(__m512 u) {
  const __m512 e = exp_avx512(_mm512_mul_ps(_mm512_abs_ps(u), _mm512_set1_ps(-2.0f)));
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 magnitude = _mm512_mul_ps(_mm512_sub_ps(one, e), reciprocal_avx512(_mm512_add_ps(one, e)));
  const __m512i sign = _mm512_and_si512(_mm512_castps_si512(u), _mm512_set1_epi32(INT32_MIN));
  return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(magnitude), sign));
}

// 0.5 v (1 + erf(v / sqrt 2)), erf as fast_erf (Abramowitz and Stegun 7.1.26):
// erf(x) = sign(x) (1 - w) with w = poly(t) e^(-x^2), so 1 + erf is 2 - w for x >= 0 and
// w below.
GEOALIGN_TARGET_AVX512 inline __m512 gelu_avx512(__m512 v) {
  const __m512 x = _mm512_mul_ps(v, _mm512_set1_ps(0.70710678118654752f));
  const __m512 z = _mm512_abs_ps(x);
  const __m512 t = reciprocal_avx512(_mm512_fmadd_ps(z, _mm512_set1_ps(0.3275911f), _mm512_set1_ps(1.0f)));
  __m512 poly = _mm512_fmadd_ps(_mm512_set1_ps(1.061405429f), t, _mm512_set1_ps(-1.453152027f));
  poly = _mm512_fmadd_ps(poly, t, _mm512_set1_ps(1.421413741f));
  poly = _mm512_fmadd_ps(poly, t, _mm512_set1_ps(-0.284496736f));
  poly = _mm512_fmadd_ps(poly, t, _mm512_set1_ps(0.254829592f));
  poly = _mm512_mul_ps(poly, t);
  const __m512 w = _mm512_mul_ps(poly, exp_avx512(_mm512_mul_ps(_mm512_sub_ps(_mm512_setzero_ps(), z), z)));
  const __mmask16 negative = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
  const __m512 one_plus_erf = _mm512_mask_blend_ps(negative, _mm512_sub_ps(_mm512_set1_ps(2.0f), w), w);
  return _mm512_mul_ps(_mm512_mul_ps(v, _mm512_set1_ps(0.5f)), one_plus_erf);
}

template <Activation A>
GEOALIGN_TARGET_AVX512 inline __m512 activate_avx512(__m512 v) {
  if constexpr (A == Activation::Gelu) return gelu_avx512(v);
  if constexpr (A == Activation::GeluTanh) {
    const __m512 inner = _mm512_mul_ps(_mm512_fmadd_ps(_mm512_mul_ps(_mm512_mul_ps(v, v), v), _mm512_set1_ps(0.044715f), v),
                                       _mm512_set1_ps(0.79788456080286536f));
    return _mm512_mul_ps(_mm512_mul_ps(v, _mm512_set1_ps(0.5f)), _mm512_add_ps(_mm512_set1_ps(1.0f), tanh_avx512(inner)));
  }
  if constexpr (A == Activation::Relu) return _mm512_max_ps(v, _mm512_setzero_ps());
  if constexpr (A == Activation::Tanh) return tanh_avx512(v);
  return v;
}

template <Activation A>
GEOALIGN_TARGET_AVX512 void finish_row_avx512(float* y, std::int64_t n, float scale, const float* bias) {
  const __m512 s = _mm512_set1_ps(scale);
  std::int64_t c = 0;
  for (; c + 16 <= n; c += 16) {
    const __m512 v = _mm512_fmadd_ps(_mm512_loadu_ps(y + c), s, _mm512_loadu_ps(bias + c));
    _mm512_storeu_ps(y + c, activate_avx512<A>(v));
  }
  if (c < n) {
    const auto m = static_cast<__mmask16>((1u << (n - c)) - 1);
    const __m512 v = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, y + c), s, _mm512_maskz_loadu_ps(m, bias + c));
    _mm512_mask_storeu_ps(y + c, m, activate_avx512<A>(v));
  }
}

GEOALIGN_TARGET_AVX512 void row_avx512(float* y, std::int64_t n, float s, const float* b, Activation a) {
  switch (a) {
    case Activation::Gelu: return finish_row_avx512<Activation::Gelu>(y, n, s, b);
    case Activation::GeluTanh: return finish_row_avx512<Activation::GeluTanh>(y, n, s, b);
    case Activation::Relu: return finish_row_avx512<Activation::Relu>(y, n, s, b);
    case Activation::Tanh: return finish_row_avx512<Activation::Tanh>(y, n, s, b);
    case Activation::None: return finish_row_avx512<Activation::None>(y, n, s, b);
  }
}
#pragma GCC diagnostic pop

}  // namespace

void scale_rows_add_bias_activate(float* y, std::int64_t rows, std::int64_t cols, const float* row_scales,
                                  const float* bias, Activation activation) {
  const RowKernel kernel = pick_kernel<RowKernel>(row_baseline, row_avx2, row_avx512);
  parallel_for(rows, [&](std::int64_t r) { kernel(y + r * cols, cols, row_scales[r], bias, activation); });
}

}  // namespace geoalign::cpu
