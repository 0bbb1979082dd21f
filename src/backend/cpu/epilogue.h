#pragma once

#include <cstdint>

#include "backend/ops/linear.h"

namespace geoalign::cpu {

// y[r, c] = activation(y[r, c] * row_scales[r] + bias[c]), in place, rows in parallel:
// the end of a linear layer whose per-row scale oneDNN cannot apply itself.
void scale_rows_add_bias_activate(float* y, std::int64_t rows, std::int64_t cols, const float* row_scales,
                                  const float* bias, ops::Activation activation);

}  // namespace geoalign::cpu
