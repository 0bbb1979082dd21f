#include "backend/ops/attention.h"

#include "backend/cpu/row_blocks.h"
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

void self_attention(const Linear& qkv, const Linear& output, const Tensor& x, std::span<const std::int32_t> cu_seqlens,
                    std::int64_t num_heads, Tensor& projected, Tensor& context, Tensor& y) {
  const std::int64_t hidden = output.out_features();
  if (qkv.in_features() != hidden || qkv.out_features() != 3 * hidden || output.in_features() != hidden) {
    throw Error("self-attention: projections " + std::to_string(qkv.in_features()) + " -> " +
                std::to_string(qkv.out_features()) + " and " + std::to_string(output.in_features()) + " -> " +
                std::to_string(hidden) + " do not fit one hidden size");
  }
  require_rank(x, 2, "self-attention", "x");
  require_cu_seqlens(cu_seqlens, x.dim(0), "self-attention");
  if (x.device() == Device::CPU && x.dim(1) == hidden && x.dim(0) > 0 && num_heads > 0 && hidden % num_heads == 0) {
    y.resize({x.dim(0), hidden}, x.device());
    if (cpu::attention_in_sequence_blocks(qkv, output, x.data<float>(), cu_seqlens, num_heads, y.data<float>())) return;
  }
  qkv(x, projected);
  attention(projected, cu_seqlens, num_heads, context);
  output(context, y);
}

}  // namespace geoalign::ops
