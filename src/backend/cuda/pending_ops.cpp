// The ops that have no CUDA kernel yet. Each fails naming itself, so a CUDA build links
// and a model placed on a GPU stops at its first such op with a clear error, never a
// wrong answer. A kernel that lands replaces its entry here.
#include <string>

#include "backend/ops/attention.h"
#include "backend/ops/concat.h"
#include "backend/ops/embedding.h"
#include "backend/ops/layer_norm.h"
#include "backend/ops/linear.h"
#include "backend/ops/normalize.h"
#include "backend/ops/pooling.h"
#include "backend/ops/softmax.h"

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
std::unique_ptr<Linear::Impl> make_linear<Device::CUDA>(const Tensor&, const Tensor&, Activation, MatmulPrecision) {
  pending("linear");
}

template <>
void layer_norm<Device::CUDA>(const Tensor&, const Tensor*, const Tensor&, const Tensor&, float, Tensor&) {
  pending("layer_norm");
}

template <>
void attention<Device::CUDA>(const Tensor&, std::span<const std::int32_t>, std::int64_t, Tensor&) {
  pending("attention");
}

template <>
void embed_tokens<Device::CUDA>(const Tensor&, const Tensor&, const Tensor&, const EmbeddingTables&, Tensor&) {
  pending("embed_tokens");
}

template <>
void pool<Device::CUDA>(const Tensor&, std::span<const std::int32_t>, Pooling, Tensor&) {
  pending("pool");
}

template <>
void softmax<Device::CUDA>(const Tensor&, Tensor&) {
  pending("softmax");
}

template <>
void concat_columns<Device::CUDA>(std::span<const Tensor>, Tensor&) {
  pending("concat_columns");
}

template <>
void l2_normalize_rows<Device::CUDA>(Tensor&) {
  pending("l2_normalize_rows");
}

}  // namespace geoalign::ops
