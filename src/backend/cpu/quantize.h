#pragma once

#include <cstdint>

namespace geoalign::cpu {

// Each row of x [rows, cols] to s8 with its own symmetric scale: scales[r] = max|x_r| / levels
// (1 for an all-zero row), q = round-to-nearest-even(x * (levels / max|x_r|)), clamped to
// [-levels, levels], levels in [1, 127]. One scale per row (per token) keeps a token's
// result independent of the other tokens in the batch; weights take one per output
// channel the same way. Rows in parallel.
void quantize_rows_s8(const float* x, std::int64_t rows, std::int64_t cols, std::int8_t* q, float* scales,
                      int levels = 127);

}  // namespace geoalign::cpu
