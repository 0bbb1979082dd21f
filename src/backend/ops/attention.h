#pragma once

#include <cstdint>
#include <span>

#include "backend/ops/linear.h"
#include "backend/tensor.h"

namespace geoalign::ops {

// Multi-head self-attention over a padding-free batch. qkv is [tokens, 3 * hidden] with
// Q, K and V side by side; sequence s owns rows [cu_seqlens[s], cu_seqlens[s + 1]).
// Each token attends only within its own sequence, which is exactly what BERT's padding
// mask achieves on a padded batch. out is resized to [tokens, hidden].
void attention(const Tensor& qkv, std::span<const std::int32_t> cu_seqlens, std::int64_t num_heads, Tensor& out);

// y = output(attention(qkv(x))): self-attention with its input and output projections,
// with Q, K, V and the attention's result in `projected` and `context`, which a backend
// may skip: on the CPU, blocks of whole sequences go through all three steps on one
// thread each while their rows are in its cache.
void self_attention(const Linear& qkv, const Linear& output, const Tensor& x, std::span<const std::int32_t> cu_seqlens,
                    std::int64_t num_heads, Tensor& projected, Tensor& context, Tensor& y);

template <Device D>
void attention(const Tensor& qkv, std::span<const std::int32_t> cu_seqlens, std::int64_t num_heads, Tensor& out);

}  // namespace geoalign::ops
