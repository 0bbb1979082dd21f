#pragma once

#include <bit>
#include <cstdint>

namespace geoalign::cpu {

// fp32 -> bf16 with round-to-nearest-even (what AVX512-BF16's vcvtne2ps2bf16 does);
// NaN stays a quiet NaN.
std::uint16_t to_bf16(float value);
// Exact: a bf16 is the top half of an fp32. Inline, so readers such as the safetensors
// loader need no other backend code.
inline float from_bf16(std::uint16_t value) { return std::bit_cast<float>(static_cast<std::uint32_t>(value) << 16); }

// Converts n values, in parallel, with the best instructions the active ISA allows.
void to_bf16(const float* src, std::uint16_t* dst, std::int64_t n);

}  // namespace geoalign::cpu
