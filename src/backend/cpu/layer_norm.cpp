#include <cmath>

#include "backend/cpu/kernel_targets.h"
#include "backend/cpu/parallel.h"
#include "backend/ops/layer_norm.h"

namespace geoalign::ops {

namespace {

// One row: y = (v - mean) / sqrt(var + eps) * gamma + beta with v = x (+ residual).
// y may alias x or the residual, so v is written to y first and read back. Two passes
// (mean, then squared deviations) keep float sums accurate; `omp simd` splits them into
// vector-wide partial sums.
__attribute__((always_inline)) inline void normalize_row(const float* x, const float* residual, const float* gamma,
                                                         const float* beta, float eps, std::int64_t hidden, float* y) {
  float sum = 0.0f;
  if (residual != nullptr) {
#pragma omp simd reduction(+ : sum)
    for (std::int64_t h = 0; h < hidden; ++h) {
      y[h] = x[h] + residual[h];
      sum += y[h];
    }
  } else {
#pragma omp simd reduction(+ : sum)
    for (std::int64_t h = 0; h < hidden; ++h) {
      y[h] = x[h];
      sum += y[h];
    }
  }
  const float mean = sum / static_cast<float>(hidden);
  float var = 0.0f;
#pragma omp simd reduction(+ : var)
  for (std::int64_t h = 0; h < hidden; ++h) var += (y[h] - mean) * (y[h] - mean);
  const float inv = 1.0f / std::sqrt(var / static_cast<float>(hidden) + eps);
#pragma omp simd
  for (std::int64_t h = 0; h < hidden; ++h) y[h] = (y[h] - mean) * inv * gamma[h] + beta[h];
}

using RowKernel = void (*)(const float*, const float*, const float*, const float*, float, std::int64_t, float*);
void row_baseline(const float* x, const float* r, const float* g, const float* b, float eps, std::int64_t n, float* y) {
  normalize_row(x, r, g, b, eps, n, y);
}
GEOALIGN_TARGET_AVX2 void row_avx2(const float* x, const float* r, const float* g, const float* b, float eps,
                                   std::int64_t n, float* y) {
  normalize_row(x, r, g, b, eps, n, y);
}
GEOALIGN_TARGET_AVX512 void row_avx512(const float* x, const float* r, const float* g, const float* b, float eps,
                                       std::int64_t n, float* y) {
  normalize_row(x, r, g, b, eps, n, y);
}

}  // namespace

template <>
void layer_norm<Device::CPU>(const Tensor& x, const Tensor* residual, const Tensor& gamma, const Tensor& beta,
                             float eps, Tensor& y) {
  const std::int64_t rows = x.dim(0);
  const std::int64_t hidden = x.dim(1);
  const float* in = x.data<float>();
  const float* res = residual != nullptr ? residual->data<float>() : nullptr;
  const float* g = gamma.data<float>();
  const float* b = beta.data<float>();
  float* out = y.data<float>();
  const RowKernel kernel = cpu::pick_kernel<RowKernel>(row_baseline, row_avx2, row_avx512);
  cpu::parallel_for(rows, [&](std::int64_t r) {
    kernel(in + r * hidden, res != nullptr ? res + r * hidden : nullptr, g, b, eps, hidden, out + r * hidden);
  });
}

}  // namespace geoalign::ops
