#include <algorithm>
#include <cmath>

#include "backend/ops/normalize.h"

namespace geoalign::ops {

template <>
void l2_normalize_rows<Device::CPU>(Tensor& x) {
  const std::int64_t rows = x.dim(0), cols = x.dim(1);
  float* data = x.data<float>();
  for (std::int64_t r = 0; r < rows; ++r) {
    float* v = data + r * cols;
    double sum = 0;
    for (std::int64_t c = 0; c < cols; ++c) sum += static_cast<double>(v[c]) * v[c];
    // torch.nn.functional.normalize's epsilon.
    const float scale = static_cast<float>(1.0 / std::max(std::sqrt(sum), 1e-12));
    for (std::int64_t c = 0; c < cols; ++c) v[c] *= scale;
  }
}

}  // namespace geoalign::ops
