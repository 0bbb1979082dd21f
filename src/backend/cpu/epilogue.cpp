#include "backend/cpu/epilogue.h"

#include <algorithm>
#include <cmath>

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
GEOALIGN_TARGET_AVX512 void row_avx512(float* y, std::int64_t n, float s, const float* b, Activation a) {
  finish_row(y, n, s, b, a);
}

}  // namespace

void scale_rows_add_bias_activate(float* y, std::int64_t rows, std::int64_t cols, const float* row_scales,
                                  const float* bias, Activation activation) {
  const RowKernel kernel = pick_kernel<RowKernel>(row_baseline, row_avx2, row_avx512);
  parallel_for(rows, [&](std::int64_t r) { kernel(y + r * cols, cols, row_scales[r], bias, activation); });
}

}  // namespace geoalign::cpu
