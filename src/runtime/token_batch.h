#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "backend/tensor.h"
#include "text/wordpiece_tokenizer.h"

namespace geoalign::runtime {

// A padding-free batch: the tokens of every sequence laid end to end, as
// text-embeddings-inference and FlashAttention do. Sequence s owns token rows
// [cu_seqlens[s], cu_seqlens[s + 1]).
struct TokenBatch {
  Tensor input_ids;       // I32 [tokens]
  Tensor token_type_ids;  // I32 [tokens]
  Tensor position_ids;    // I32 [tokens], restarting at 0 for each sequence
  std::vector<std::int32_t> cu_seqlens;

  std::size_t sequences() const { return cu_seqlens.empty() ? 0 : cu_seqlens.size() - 1; }
  std::int64_t tokens() const { return cu_seqlens.empty() ? 0 : cu_seqlens.back(); }

  static TokenBatch pack(std::span<const text::EncodedInput* const> inputs);
};

}  // namespace geoalign::runtime
