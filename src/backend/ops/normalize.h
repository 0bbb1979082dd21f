#pragma once

#include "backend/tensor.h"

namespace geoalign::ops {

// Scales each row of x [rows, cols] to unit L2 norm in place, as
// torch.nn.functional.normalize does: a zero row stays zero.
void l2_normalize_rows(Tensor& x);

template <Device D>
void l2_normalize_rows(Tensor& x);

}  // namespace geoalign::ops
