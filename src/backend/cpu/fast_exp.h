#pragma once

#include <bit>
#include <cstdint>

namespace geoalign::cpu {

// e^(x - n ln2) for the integer n nearest x / ln2, so |x - n ln2| <= ln2/2: the reduced
// argument with ln2 split in two for exactness, then the degree-6 Taylor polynomial
// (relative error < 2e-7). On a float or on a GCC vector of floats.
template <typename T>
__attribute__((always_inline)) inline T exp_reduced(T x, T n) {
  const T r = x - n * 0.693145751953125f - n * 1.428606765330187e-06f;
  T p = r * (1.0f / 720.0f) + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  return p * r + 1.0f;
}

// e^x for softmax arguments (x <= 0 after subtracting the row maximum), written so a
// `omp simd` loop vectorizes it: exp_reduced times 2^n built in the exponent bits.
// Inputs below -87 give e^-87 instead of a denormal.
__attribute__((always_inline)) inline float fast_exp(float x) {
  x = x < -87.0f ? -87.0f : x;
  const float n = __builtin_nearbyintf(x * 1.44269504088896341f);
  return exp_reduced(x, n) * std::bit_cast<float>((static_cast<std::int32_t>(n) + 127) << 23);
}

}  // namespace geoalign::cpu
