#include "backend/ops/attention.h"

#include "backend/ops/checks.h"

namespace geoalign::ops {

void attention(const Tensor& qkv, std::span<const std::int32_t> cu_seqlens, std::int64_t num_heads, Tensor& out) {
  constexpr const char* op = "attention";
  require_rank(qkv, 2, op, "qkv");
  const std::int64_t hidden = qkv.dim(1) / 3;
  if (num_heads <= 0 || qkv.dim(1) % 3 != 0 || hidden % num_heads != 0) {
    throw Error("attention: qkv width " + std::to_string(qkv.dim(1)) + " does not split into 3 x " +
                std::to_string(num_heads) + " heads");
  }
  require_cu_seqlens(cu_seqlens, qkv.dim(0), op);
  out.resize({qkv.dim(0), hidden}, qkv.device());
  GEOALIGN_DISPATCH_DEVICE(qkv.device(), attention<D>(qkv, cu_seqlens, num_heads, out));
}

}  // namespace geoalign::ops
