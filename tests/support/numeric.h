#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "backend/ops/linear.h"

namespace geoalign::testing {

// n normally distributed values, the same for the same seed.
inline std::vector<float> random_values(std::size_t n, std::uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// Each value within tol of the reference, relative to its size (absolute near zero).
inline void expect_close(const std::vector<float>& got, const std::vector<float>& want, float tol) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * (1.0f + std::abs(want[i]))) << "at " << i;
  }
}

// What a linear layer's epilogue should compute.
inline float activate(float x, ops::Activation a) {
  switch (a) {
    case ops::Activation::Gelu: return 0.5f * x * (1.0f + std::erf(x / std::sqrt(2.0f)));
    case ops::Activation::GeluTanh:
      return 0.5f * x * (1.0f + std::tanh(std::sqrt(2.0f / 3.14159265f) * (x + 0.044715f * x * x * x)));
    case ops::Activation::Relu: return std::max(x, 0.0f);
    case ops::Activation::Tanh: return std::tanh(x);
    case ops::Activation::None: return x;
  }
  return x;
}

}  // namespace geoalign::testing
