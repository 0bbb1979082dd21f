#include "backend/cpu/parallel.h"
#include "backend/ops/embedding.h"

namespace geoalign::ops {

namespace {

const float* table_row(const Tensor& table, std::int32_t index, const char* what) {
  if (index < 0 || index >= table.dim(0)) {
    throw Error(std::string("embed_tokens: ") + what + " " + std::to_string(index) + " is outside the table of " +
                std::to_string(table.dim(0)) + " rows");
  }
  return table.data<float>() + static_cast<std::int64_t>(index) * table.dim(1);
}

}  // namespace

template <>
void embed_tokens<Device::CPU>(const Tensor& ids, const Tensor& type_ids, const Tensor& positions,
                               const EmbeddingTables& tables, Tensor& out) {
  const std::int64_t tokens = ids.dim(0);
  const std::int64_t hidden = out.dim(1);
  const auto* id = ids.data<std::int32_t>();
  const auto* type = type_ids.data<std::int32_t>();
  const auto* pos = positions.data<std::int32_t>();
  // Rows are validated up front so the parallel loop cannot throw.
  for (std::int64_t t = 0; t < tokens; ++t) {
    table_row(tables.word, id[t], "token id");
    table_row(tables.token_type, type[t], "token type");
    table_row(tables.position, pos[t], "position");
  }
  float* y = out.data<float>();
  cpu::parallel_for(tokens, [&](std::int64_t t) {
    const float* w = tables.word.data<float>() + id[t] * hidden;
    const float* ty = tables.token_type.data<float>() + type[t] * hidden;
    const float* p = tables.position.data<float>() + pos[t] * hidden;
    float* row = y + t * hidden;
    // Same order of additions as Hugging Face: (word + token type) + position.
    for (std::int64_t h = 0; h < hidden; ++h) row[h] = (w[h] + ty[h]) + p[h];
  });
}

}  // namespace geoalign::ops
