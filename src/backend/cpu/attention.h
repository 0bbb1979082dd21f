#pragma once

#include <cstdint>
#include <span>

namespace geoalign::cpu {

// ops::attention on the CPU, over rows given by pointer: qkv [tokens, 3 * hidden], out
// [tokens, hidden], sequences as cu_seqlens says. Inside a parallel region it runs on the
// calling thread alone.
void attend_sequences(const float* qkv, std::span<const std::int32_t> cu_seqlens, std::int64_t num_heads,
                      std::int64_t hidden, float* out);

}  // namespace geoalign::cpu
