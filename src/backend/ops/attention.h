#pragma once

#include <cstdint>
#include <span>

#include "backend/tensor.h"

namespace geoalign::ops {

// Multi-head self-attention over a padding-free batch. qkv is [tokens, 3 * hidden] with
// Q, K and V side by side; sequence s owns rows [cu_seqlens[s], cu_seqlens[s + 1]).
// Each token attends only within its own sequence, which is exactly what BERT's padding
// mask achieves on a padded batch. out is resized to [tokens, hidden].
void attention(const Tensor& qkv, std::span<const std::int32_t> cu_seqlens, std::int64_t num_heads, Tensor& out);

template <Device D>
void attention(const Tensor& qkv, std::span<const std::int32_t> cu_seqlens, std::int64_t num_heads, Tensor& out);

}  // namespace geoalign::ops
