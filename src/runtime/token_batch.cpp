#include "runtime/token_batch.h"

#include <algorithm>

namespace geoalign::runtime {

TokenBatch TokenBatch::pack(std::span<const text::EncodedInput* const> inputs) {
  TokenBatch batch;
  batch.cu_seqlens.reserve(inputs.size() + 1);
  batch.cu_seqlens.push_back(0);
  std::int64_t total = 0;
  for (const text::EncodedInput* input : inputs) {
    const auto& in = *input;
    if (in.input_ids.empty() || in.input_ids.size() != in.token_type_ids.size()) {
      throw Error("TokenBatch: every sequence needs tokens, and one type id per token");
    }
    total += static_cast<std::int64_t>(in.input_ids.size());
    if (total > INT32_MAX) throw Error("TokenBatch: too many tokens in one batch");
    batch.cu_seqlens.push_back(static_cast<std::int32_t>(total));
  }
  batch.input_ids = Tensor({total}, DType::I32);
  batch.token_type_ids = Tensor({total}, DType::I32);
  batch.position_ids = Tensor({total}, DType::I32);
  auto* ids = batch.input_ids.data<std::int32_t>();
  auto* types = batch.token_type_ids.data<std::int32_t>();
  auto* positions = batch.position_ids.data<std::int32_t>();
  for (std::size_t s = 0; s < inputs.size(); ++s) {
    const auto& in = *inputs[s];
    const std::size_t first = static_cast<std::size_t>(batch.cu_seqlens[s]);
    std::copy(in.input_ids.begin(), in.input_ids.end(), ids + first);
    std::copy(in.token_type_ids.begin(), in.token_type_ids.end(), types + first);
    for (std::size_t i = 0; i < in.input_ids.size(); ++i) positions[first + i] = static_cast<std::int32_t>(i);
  }
  return batch;
}

}  // namespace geoalign::runtime
