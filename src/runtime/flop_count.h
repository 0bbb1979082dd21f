#pragma once

#include <cstdint>
#include <span>

#include "model/config.h"
#include "text/wordpiece_tokenizer.h"

namespace geoalign::runtime {

// Floating-point operations (multiply and add counted apart) of one classification
// batch: every linear layer over all tokens, plus attention's QK^T and PV per sequence.
inline double classification_flops(const model::BertConfig& c, std::span<const text::EncodedInput* const> batch) {
  const double h = static_cast<double>(c.hidden_size), inner = static_cast<double>(c.intermediate_size);
  double tokens = 0, attention = 0;
  for (const text::EncodedInput* input : batch) {
    const auto len = static_cast<double>(input->input_ids.size());
    tokens += len;
    attention += 4 * len * len * h;
  }
  const double per_token_layer = 2 * (3 * h * h + h * h + 2 * h * inner);
  const auto sequences = static_cast<double>(batch.size());
  const double head = sequences * 2 * (h * h + h * static_cast<double>(c.labels.size()));
  // The layers that run: [0, fusion_layer), all of them for a plain BERT.
  return static_cast<double>(c.fusion_layer) * (tokens * per_token_layer + attention) + head;
}

}  // namespace geoalign::runtime
