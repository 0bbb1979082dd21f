#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "backend/cpu/epilogue.h"
#include "backend/cpu/linear_kernels.h"
#include "backend/cpu/onednn.h"
#include "backend/cpu/quantize.h"
#include "backend/cpu/row_chunked_matmul.h"

namespace geoalign::cpu {

namespace {

using dnnl::memory;
using dt = memory::data_type;

// Dynamic int8: s8 weights with a scale per output channel, made once; s8 activations
// with a scale per row (per token), made per call; oneDNN multiplies in int32 and
// rescales by the weight scales. The row scales, fp32 bias and activation follow in
// geoalign's own epilogue, because oneDNN 2.6 runs a per-row post-op only in its
// reference kernel (1000x slower). Only the product is quantized, and a token's result
// does not depend on the other tokens in the batch.
class OneDnnInt8Linear final : public ops::Linear::Impl {
 public:
  OneDnnInt8Linear(const Tensor& weight, const Tensor& bias, ops::Activation activation)
      : out_(weight.dim(0)), in_(weight.dim(1)), bias_(copy_of(bias)),
        weight_scales_(static_cast<std::size_t>(out_)),
        activation_(activation) {
    std::vector<std::int8_t> quantized(static_cast<std::size_t>(out_ * in_));
    const float* w = weight.data<float>();
    const auto levels = static_cast<float>(int8_weight_levels());
    for (memory::dim o = 0; o < out_; ++o) {
      float max_abs = 0.0f;
      for (memory::dim i = 0; i < in_; ++i) max_abs = std::max(max_abs, std::fabs(w[o * in_ + i]));
      const float scale = max_abs > 0.0f ? max_abs / levels : 1.0f;
      weight_scales_[static_cast<std::size_t>(o)] = scale;
      for (memory::dim i = 0; i < in_; ++i) {
        quantized[static_cast<std::size_t>(o * in_ + i)] =
            static_cast<std::int8_t>(std::lrintf(std::clamp(w[o * in_ + i] / scale, -levels, levels)));
      }
    }

    dnnl::primitive_attr attr;
    attr.set_output_scales(1 << 1, weight_scales_);
    matmul_.emplace(in_, out_, dt::s8, dt::s8, quantized.data(), false, attr);
  }

  void forward(const Tensor& x, Tensor& y) const override {
    const memory::dim rows = x.dim(0);
    thread_local std::vector<std::int8_t> quantized;
    thread_local std::vector<float> row_scales;
    quantized.resize(static_cast<std::size_t>(rows * in_));
    row_scales.resize(static_cast<std::size_t>(rows));
    cpu::quantize_rows_s8(x.data<float>(), rows, in_, quantized.data(), row_scales.data());
    matmul_->execute(quantized.data(), rows, y.data<float>(), {});
    scale_rows_add_bias_activate(y.data<float>(), rows, out_, row_scales.data(), bias_.data<float>(), activation_);
  }

  std::string kernel() const override { return matmul_->kernel(); }

 private:
  memory::dim out_, in_;
  Tensor bias_;
  std::vector<float> weight_scales_;
  ops::Activation activation_;
  std::optional<RowChunkedMatmul> matmul_;
};

}  // namespace

std::unique_ptr<ops::Linear::Impl> make_int8_linear(const Tensor& weight, const Tensor& bias,
                                                    ops::Activation activation) {
  return std::make_unique<OneDnnInt8Linear>(weight, bias, activation);
}

}  // namespace geoalign::cpu
