#include "backend/cuda/launch.cuh"
#include "backend/ops/concat.h"

namespace geoalign::ops {

template <>
void concat_columns<Device::CUDA>(std::span<const Tensor> parts, Tensor& out) {
  const std::int64_t rows = out.dim(0);
  const auto pitch = static_cast<std::size_t>(out.dim(1)) * sizeof(float);
  std::int64_t column = 0;
  for (const Tensor& part : parts) {
    const auto width = static_cast<std::size_t>(part.dim(1)) * sizeof(float);
    if (rows > 0 && width > 0) {
      cuda::check(cudaMemcpy2DAsync(out.data<float>() + column, pitch, part.data<float>(), width, width,
                                    static_cast<std::size_t>(rows), cudaMemcpyDeviceToDevice),
                  "concat_columns");
    }
    column += part.dim(1);
  }
}

}  // namespace geoalign::ops
