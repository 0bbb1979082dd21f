#include <cstdint>
#include <vector>

#include "backend/cpu/bf16.h"
#include "backend/cpu/linear_kernels.h"
#include "backend/cpu/onednn.h"
#include "backend/cpu/row_chunked_matmul.h"

namespace geoalign::cpu {

namespace {

using dnnl::memory;
using dt = memory::data_type;

std::vector<std::uint16_t> bf16_copy(const Tensor& t) {
  std::vector<std::uint16_t> out(static_cast<std::size_t>(t.numel()));
  to_bf16(t.data<float>(), out.data(), t.numel());
  return out;
}

// bf16 matmul: the weights are rounded once and packed in the layout oneDNN's kernel
// wants (AMX tiles or AVX512-BF16 dot-product blocks); each call rounds the activations.
// oneDNN accumulates in fp32 and adds the fp32 bias and the activation as post-ops.
class OneDnnBf16Linear final : public RowLinear {
 public:
  OneDnnBf16Linear(const Tensor& weight, const Tensor& bias, ops::Activation activation)
      : in_(weight.dim(1)),
        bias_(copy_of(bias)),
        matmul_(in_, weight.dim(0), dt::bf16, dt::bf16, bf16_copy(weight).data(), true, activation_attr(activation)),
        bias_mem_(bias_memory(bias_)) {}

  void forward_rows(const float* in, std::int64_t rows, float* out) const override {
    // Each chunk's rows are rounded just before its product, on the thread that
    // multiplies them, while they are in that core's cache.
    matmul_.execute_staged(
        rows, out, {{DNNL_ARG_BIAS, bias_mem_}},
        [&](std::int64_t first, std::int64_t count, void* staged) {
          to_bf16(in + first * in_, static_cast<std::uint16_t*>(staged), count * in_);
        },
        nullptr);
  }

  std::string kernel() const override { return matmul_.kernel(); }

 private:
  std::int64_t in_;
  Tensor bias_;
  RowChunkedMatmul matmul_;
  memory bias_mem_;
};

// Where oneDNN has no bf16 matmul (CPUs before AVX-512), bf16 still runs: the fp32 kernel
// multiplies the bf16-rounded weights, so results keep bf16's weight precision.
class Bf16WeightsOnFp32Linear final : public RowLinear {
 public:
  Bf16WeightsOnFp32Linear(const Tensor& weight, const Tensor& bias, ops::Activation activation) {
    Tensor rounded(weight.shape());
    const auto bits = bf16_copy(weight);
    float* r = rounded.data<float>();
    for (std::size_t i = 0; i < bits.size(); ++i) r[i] = from_bf16(bits[i]);
    fp32_ = make_fp32_linear(rounded, bias, activation);
  }

  void forward_rows(const float* x, std::int64_t rows, float* y) const override { fp32_->forward_rows(x, rows, y); }
  std::string kernel() const override { return "bf16 weights on " + fp32_->kernel(); }

 private:
  std::unique_ptr<RowLinear> fp32_;
};

}  // namespace

std::unique_ptr<RowLinear> make_bf16_linear(const Tensor& weight, const Tensor& bias, ops::Activation activation) {
  if (!native_bf16_matmul()) return std::make_unique<Bf16WeightsOnFp32Linear>(weight, bias, activation);
  return std::make_unique<OneDnnBf16Linear>(weight, bias, activation);
}

}  // namespace geoalign::cpu
