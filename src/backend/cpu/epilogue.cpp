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
// activation as two passes; here GELU's erf is a piecewise polynomial (below), tanh's
// division a reciprocal estimate with one Newton step (relative error about 2^-28,
// below float's rounding), vscalefps builds 2^n, and a row is read and written once.
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

// erf on [0, 4) as sixteen pieces of a quarter each, a degree-5 polynomial in the
// offset into its piece (Lawson-weighted least squares; largest error 6.1e-8 evaluated
// in float, against 1.5e-7 for fast_erf); erf(4) rounds to 1 in float. Each
// coefficient's sixteen values fill one register, and vpermps picks a lane's piece, so
// a vector takes six permutes and five FMAs where Abramowitz and Stegun's formula takes
// a reciprocal, an exponential and 2^n.
constexpr float kErfPieces[6][16] = {
    {2.69209521e-09f, 0.276326388f, 0.520499885f, 0.711155653f, 0.842700779f, 0.92290014f, 0.966105163f,
     0.986671686f, 0.995322287f, 0.998537302f, 0.999593019f, 0.999899387f, 0.999977887f, 0.999995708f,
     0.999999285f, 0.999999881f},
    {1.12837839f, 1.06001246f, 0.87878114f, 0.642930686f, 0.415107995f, 0.236521885f, 0.118930794f,
     0.0527751446f, 0.0206669271f, 0.00714221271f, 0.00217820611f, 0.000586237176f, 0.000139236989f,
     2.91837787e-05f, 5.39799703e-06f, 8.81102949e-07f},
    {3.26364752e-05f, -0.264924794f, -0.439323574f, -0.482178956f, -0.415130645f, -0.295686811f, -0.178419337f,
     -0.0923636109f, -0.0413314067f, -0.0160652548f, -0.00544201909f, -0.00161035277f, -0.000416989322f,
     -9.46115033e-05f, -1.88287813e-05f, -3.28935926e-06f},
    {-0.376644045f, -0.310502708f, -0.147638619f, 0.0264294632f, 0.138747215f, 0.168140709f, 0.13916944f,
     0.0902910978f, 0.0481826626f, 0.0216398761f, 0.00828604866f, 0.00272692717f, 0.000775507186f,
     0.000191315354f, 4.10575703e-05f, 7.68157315e-06f},
    {0.00353150512f, 0.137098402f, 0.192357242f, 0.153801933f, 0.0664746687f, -0.0108273262f, -0.0479268506f,
     -0.0492311977f, -0.0341759771f, -0.0184315685f, -0.0081163384f, -0.00298963999f, -0.00093403738f,
     -0.000249706121f, -5.74685873e-05f, -1.14353315e-05f},
    {0.103435658f, 0.0453049317f, -0.0269814152f, -0.0666379109f, -0.0610239692f, -0.0306492243f, -0.00232714019f,
     0.011308915f, 0.0124369618f, 0.00836101174f, 0.00423904601f, 0.00172976556f, 0.000585304806f,
     0.000166981466f, 4.05839965e-05f, 8.4622352e-06f},
};

// Coefficient k of each lane's piece.
GEOALIGN_TARGET_AVX512 inline __m512 erf_coefficient(int k, __m512i piece) {
  return _mm512_permutexvar_ps(piece, _mm512_loadu_ps(kErfPieces[k]));
}

// 0.5 v (1 + erf(v / sqrt 2)), with erf's sign taken from v.
GEOALIGN_TARGET_AVX512 inline __m512 gelu_avx512(__m512 v) {
  const __m512 x = _mm512_mul_ps(v, _mm512_set1_ps(0.70710678118654752f));
  const __m512 z = _mm512_min_ps(_mm512_abs_ps(x), _mm512_set1_ps(4.0f));
  const __m512i piece = _mm512_min_epi32(_mm512_cvttps_epi32(_mm512_mul_ps(z, _mm512_set1_ps(4.0f))),
                                         _mm512_set1_epi32(15));
  const __m512 u = _mm512_fnmadd_ps(_mm512_cvtepi32_ps(piece), _mm512_set1_ps(0.25f), z);
  __m512 erf = erf_coefficient(5, piece);
  for (int k = 4; k >= 0; --k) erf = _mm512_fmadd_ps(erf, u, erf_coefficient(k, piece));
  const __m512i sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN));
  const __m512 signed_erf = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(erf), sign));
  const __m512 half_v = _mm512_mul_ps(v, _mm512_set1_ps(0.5f));
  return _mm512_fmadd_ps(half_v, signed_erf, half_v);
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
