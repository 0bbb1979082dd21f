// The ops that have no CUDA kernel yet. Each fails naming itself, so a CUDA build links
// and a model placed on a GPU stops at its first such op with a clear error, never a
// wrong answer. A kernel that lands replaces its entry here.
#include <string>

#include "backend/ops/attention.h"
#include "backend/ops/embedding.h"
#include "backend/ops/linear.h"

namespace geoalign::ops {

namespace {
[[noreturn]] void pending(const char* op) {
  throw Error(std::string(op) + " has no CUDA kernel yet; run this model with --device cpu");
}
}  // namespace

// Tensor cores multiply bf16 at full rate and keep fp32's exponent range.
template <>
MatmulPrecision auto_matmul_precision<Device::CUDA>() {
  return MatmulPrecision::BF16;
}

template <>
void attention<Device::CUDA>(const Tensor&, std::span<const std::int32_t>, std::int64_t, Tensor&) {
  pending("attention");
}

template <>
void embed_tokens<Device::CUDA>(const Tensor&, const Tensor&, const Tensor&, const EmbeddingTables&, Tensor&) {
  pending("embed_tokens");
}

}  // namespace geoalign::ops
