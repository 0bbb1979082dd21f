#include "index/inner_product_distance.h"

#include <immintrin.h>

#include "backend/cpu/kernel_targets.h"

namespace geoalign::index {

namespace {

float dot_baseline(const float* a, const float* b, std::size_t n) {
  float s = 0;
  for (std::size_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

GEOALIGN_TARGET_AVX2 float dot_avx2(const float* a, const float* b, std::size_t n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, _mm256_add_ps(s0, s1));
  float s = 0;
  for (float v : lanes) s += v;
  return s + dot_baseline(a + i, b + i, n - i);
}

GEOALIGN_TARGET_AVX512 float dot_avx512(const float* a, const float* b, std::size_t n) {
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
    s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), s1);
  }
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, _mm512_add_ps(s0, s1));
  float s = 0;
  for (float v : lanes) s += v;
  return s + dot_baseline(a + i, b + i, n - i);
}

template <float (*Dot)(const float*, const float*, std::size_t)>
float distance(const void* a, const void* b, const void* dim) {
  return 1.0f - Dot(static_cast<const float*>(a), static_cast<const float*>(b), *static_cast<const std::size_t*>(dim));
}

}  // namespace

DistanceFunction inner_product_distance() {
  return cpu::pick_kernel(&distance<dot_baseline>, &distance<dot_avx2>, &distance<dot_avx512>);
}

}  // namespace geoalign::index
