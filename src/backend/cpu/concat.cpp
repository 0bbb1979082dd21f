#include <algorithm>

#include "backend/ops/concat.h"

namespace geoalign::ops {

template <>
void concat_columns<Device::CPU>(std::span<const Tensor> parts, Tensor& out) {
  const std::int64_t rows = out.dim(0), width = out.dim(1);
  float* y = out.data<float>();
  std::int64_t column = 0;
  for (const Tensor& part : parts) {
    const std::int64_t w = part.dim(1);
    const float* x = part.data<float>();
    for (std::int64_t r = 0; r < rows; ++r) std::copy_n(x + r * w, w, y + r * width + column);
    column += w;
  }
}

}  // namespace geoalign::ops
