#pragma once

#include <cstdint>

namespace geoalign::cpu {

// fp32 -> bf16 with round-to-nearest-even (what AVX512-BF16's vcvtne2ps2bf16 does);
// NaN stays a quiet NaN.
std::uint16_t to_bf16(float value);
float from_bf16(std::uint16_t value);

// Converts n values, in parallel, with the best instructions the active ISA allows.
void to_bf16(const float* src, std::uint16_t* dst, std::int64_t n);

}  // namespace geoalign::cpu
