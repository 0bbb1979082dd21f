#pragma once

#include <span>

#include "backend/tensor.h"

namespace geoalign::ops {

// out = [parts[0] | parts[1] | ...] along the last dimension; every part is [rows, width_i]
// with the same rows (an embedding head pooling [CLS] and the mean side by side).
void concat_columns(std::span<const Tensor> parts, Tensor& out);

template <Device D>
void concat_columns(std::span<const Tensor> parts, Tensor& out);

}  // namespace geoalign::ops
