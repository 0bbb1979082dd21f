#pragma once

#include <cstdint>

namespace geoalign::cpu {

// Each row of x [rows, cols] to s8 with its own symmetric scale: scales[r] = max|x_r| / 127
// (1 for an all-zero row), q = round-to-nearest-even(x * (127 / max|x_r|)), clamped to
// [-127, 127]. One scale per row (per token) keeps a token's result independent of the
// other tokens in the batch. Rows in parallel.
void quantize_rows_s8(const float* x, std::int64_t rows, std::int64_t cols, std::int8_t* q, float* scales);

}  // namespace geoalign::cpu
