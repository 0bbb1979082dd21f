#pragma once

#include "backend/tensor.h"

namespace geoalign::ops {

// y = LayerNorm(x + residual) over the last dimension; residual may be null. Fusing the
// residual add saves one pass over the activations per sublayer.
void layer_norm(const Tensor& x, const Tensor* residual, const Tensor& gamma, const Tensor& beta, float eps, Tensor& y);

template <Device D>
void layer_norm(const Tensor& x, const Tensor* residual, const Tensor& gamma, const Tensor& beta, float eps, Tensor& y);

}  // namespace geoalign::ops
