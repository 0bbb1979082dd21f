#include <algorithm>
#include <cmath>

#include "backend/ops/softmax.h"

namespace geoalign::ops {

template <>
void softmax<Device::CPU>(const Tensor& x, Tensor& y) {
  const std::int64_t cols = x.dim(1);
  for (std::int64_t r = 0; r < x.dim(0); ++r) {
    const float* in = x.data<float>() + r * cols;
    float* out = y.data<float>() + r * cols;
    const float max_value = *std::max_element(in, in + cols);
    float total = 0.0f;
    for (std::int64_t c = 0; c < cols; ++c) total += out[c] = std::exp(in[c] - max_value);
    for (std::int64_t c = 0; c < cols; ++c) out[c] /= total;
  }
}

}  // namespace geoalign::ops
