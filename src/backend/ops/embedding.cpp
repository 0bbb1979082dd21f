#include "backend/ops/embedding.h"

#include "backend/ops/checks.h"

namespace geoalign::ops {

void embed_tokens(const Tensor& ids, const Tensor& type_ids, const Tensor& positions, const EmbeddingTables& tables,
                  Tensor& out) {
  constexpr const char* op = "embed_tokens";
  require_rank(ids, 1, op, "ids");
  require_rank(tables.word, 2, op, "word table");
  const std::int64_t tokens = ids.dim(0);
  const std::int64_t hidden = tables.word.dim(1);
  require_dim(type_ids, 0, tokens, op, "type_ids");
  require_dim(positions, 0, tokens, op, "positions");
  require_dim(tables.position, 1, hidden, op, "position table");
  require_dim(tables.token_type, 1, hidden, op, "token type table");
  for (const Tensor* t : {&ids, &type_ids, &positions, &tables.position, &tables.token_type}) {
    require_device_of(*t, tables.word.device(), op);
  }
  out.resize({tokens, hidden}, tables.word.device());
  GEOALIGN_DISPATCH_DEVICE(tables.word.device(), embed_tokens<D>(ids, type_ids, positions, tables, out));
}

}  // namespace geoalign::ops
