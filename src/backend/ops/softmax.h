#pragma once

#include "backend/tensor.h"

namespace geoalign::ops {

// Row-wise softmax over the last dimension of a [rows, cols] tensor.
void softmax(const Tensor& x, Tensor& y);

template <Device D>
void softmax(const Tensor& x, Tensor& y);

}  // namespace geoalign::ops
