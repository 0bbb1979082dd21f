#pragma once

#include "backend/tensor.h"

namespace geoalign::ops {

// out[t] = word[ids[t]] + type[type_ids[t]] + position[positions[t]], for a flat
// (padding-free) batch of tokens. Index tensors are I32 [tokens]; tables are [rows, hidden].
struct EmbeddingTables {
  const Tensor& word;
  const Tensor& position;
  const Tensor& token_type;
};

void embed_tokens(const Tensor& ids, const Tensor& type_ids, const Tensor& positions, const EmbeddingTables& tables,
                  Tensor& out);

template <Device D>
void embed_tokens(const Tensor& ids, const Tensor& type_ids, const Tensor& positions, const EmbeddingTables& tables,
                  Tensor& out);

}  // namespace geoalign::ops
