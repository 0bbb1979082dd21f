#include <cmath>

#include "backend/cpu/parallel.h"
#include "backend/ops/layer_norm.h"

namespace geoalign::ops {

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
  cpu::parallel_for(rows, [&](std::int64_t r) {
    const float* xr = in + r * hidden;
    const float* rr = res != nullptr ? res + r * hidden : nullptr;
    float* yr = out + r * hidden;
    // y may alias x or the residual, so the sum is written first and read back.
    double sum = 0.0;
    for (std::int64_t h = 0; h < hidden; ++h) {
      const float v = rr != nullptr ? xr[h] + rr[h] : xr[h];
      yr[h] = v;
      sum += v;
    }
    const double mean = sum / static_cast<double>(hidden);
    double var = 0.0;
    for (std::int64_t h = 0; h < hidden; ++h) {
      const double d = yr[h] - mean;
      var += d * d;
    }
    var /= static_cast<double>(hidden);
    const auto inv = static_cast<float>(1.0 / std::sqrt(var + static_cast<double>(eps)));
    const auto m = static_cast<float>(mean);
    for (std::int64_t h = 0; h < hidden; ++h) yr[h] = (yr[h] - m) * inv * g[h] + b[h];
  });
}

}  // namespace geoalign::ops
