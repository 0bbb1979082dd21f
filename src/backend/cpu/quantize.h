#pragma once

#include <cstdint>

namespace geoalign::cpu {

// Largest |x_i| over n values, in parallel.
float max_abs(const float* x, std::int64_t n);

// q_i = round(x_i * inverse_scale) to nearest-even, clamped to [-127, 127], in parallel.
void quantize_s8(const float* x, std::int64_t n, float inverse_scale, std::int8_t* q);

}  // namespace geoalign::cpu
