#include <algorithm>

#include "backend/cpu/parallel.h"
#include "backend/ops/pooling.h"

namespace geoalign::ops {

template <>
void pool<Device::CPU>(const Tensor& x, std::span<const std::int32_t> cu_seqlens, Pooling pooling, Tensor& out) {
  const std::int64_t hidden = x.dim(1);
  const float* in = x.data<float>();
  float* y = out.data<float>();
  cpu::parallel_for(out.dim(0), [&](std::int64_t s) {
    const std::int64_t first = cu_seqlens[s];
    const std::int64_t len = cu_seqlens[s + 1] - first;
    float* row = y + s * hidden;
    if (pooling == Pooling::Cls) {
      std::copy_n(in + first * hidden, hidden, row);
      return;
    }
    std::fill(row, row + hidden, 0.0f);
    for (std::int64_t t = 0; t < len; ++t) {
      const float* xr = in + (first + t) * hidden;
      for (std::int64_t h = 0; h < hidden; ++h) row[h] += xr[h];
    }
    const float inv = 1.0f / static_cast<float>(len);
    for (std::int64_t h = 0; h < hidden; ++h) row[h] *= inv;
  });
}

}  // namespace geoalign::ops
