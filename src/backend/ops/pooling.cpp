#include "backend/ops/pooling.h"

#include "backend/ops/checks.h"

namespace geoalign::ops {

void pool(const Tensor& x, std::span<const std::int32_t> cu_seqlens, Pooling pooling, Tensor& out) {
  constexpr const char* op = "pool";
  require_rank(x, 2, op, "x");
  require_cu_seqlens(cu_seqlens, x.dim(0), op);
  for (std::size_t s = 1; s < cu_seqlens.size(); ++s) {
    if (cu_seqlens[s] == cu_seqlens[s - 1]) throw Error("pool: sequence " + std::to_string(s - 1) + " is empty");
  }
  out.resize({static_cast<std::int64_t>(cu_seqlens.size()) - 1, x.dim(1)}, x.device());
  GEOALIGN_DISPATCH_DEVICE(x.device(), pool<D>(x, cu_seqlens, pooling, out));
}

}  // namespace geoalign::ops
