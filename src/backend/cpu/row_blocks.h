#pragma once

#include <cstdint>
#include <span>

#include "backend/ops/linear.h"

// Steps of a transformer layer run over blocks of rows, each block through several steps
// on one thread while its rows are in that core's cache, every thread taking an equal
// run of the rows. Each returns false, having done nothing, where its layers are not the
// CPU's (RowLinear) or there are too few rows to share; the caller then runs the steps
// one after another over all rows.
namespace geoalign::cpu {

// y = second(first(x)) (the feed-forward).
bool chain_in_row_blocks(const ops::Linear& first, const ops::Linear& second, const float* x, std::int64_t rows,
                         float* y);

// y = output(attention(qkv(x))) (self-attention with its projections), in blocks of whole
// sequences.
bool attention_in_sequence_blocks(const ops::Linear& qkv, const ops::Linear& output, const float* x,
                                  std::span<const std::int32_t> cu_seqlens, std::int64_t num_heads, float* y);

}  // namespace geoalign::cpu
