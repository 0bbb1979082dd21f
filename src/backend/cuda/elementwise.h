#pragma once

#include <cstdint>

#include "backend/ops/linear.h"

// Elementwise kernels that host code (the linear layer) launches, on the default stream.
namespace geoalign::cuda {

// bf16 by round to nearest even, as the CPU's conversion (backend/cpu/bf16.h); stored as
// the raw 16 bits.
void to_bf16(const float* x, std::uint16_t* y, std::int64_t n);

// y = activation(y) for the activations cuBLASLt's epilogues lack (erf GELU, tanh).
void activate_in_place(float* y, std::int64_t n, ops::Activation activation);

}  // namespace geoalign::cuda
