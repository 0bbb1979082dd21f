#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "backend/cpu/linear_kernels.h"
#include "backend/cpu/onednn.h"
#include "backend/cpu/quantize.h"
#include "backend/cpu/row_chunked_matmul.h"

namespace geoalign::cpu {

namespace {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

// Dynamic int8: s8 weights with a scale per output channel, made once; s8 activations
// with one scale per call (their absolute maximum over 127); oneDNN multiplies in int32
// and rescales by activation scale x weight scale, then adds the fp32 bias and applies
// the activation as post-ops, so only the product is quantized.
class OneDnnInt8Linear final : public ops::Linear::Impl {
 public:
  OneDnnInt8Linear(const Tensor& weight, const Tensor& bias, ops::Activation activation)
      : out_(weight.dim(0)), in_(weight.dim(1)), bias_(copy_of(bias)), weight_scales_(static_cast<std::size_t>(out_)) {
    std::vector<std::int8_t> quantized(static_cast<std::size_t>(out_ * in_));
    const float* w = weight.data<float>();
    const auto levels = static_cast<float>(ops::int8_weight_levels());
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
    attr.set_output_scales(1 << 1, {DNNL_RUNTIME_F32_VAL});
    dnnl::post_ops post_ops;
    post_ops.append_binary(dnnl::algorithm::binary_add, memory::desc({1, out_}, dt::f32, tag::ab));
    append_activation(post_ops, activation);
    attr.set_post_ops(post_ops);
    matmul_.emplace(in_, out_, dt::s8, dt::s8, quantized.data(), false, attr);
    bias_mem_ = bias_memory(bias_);
  }

  void forward(const Tensor& x, Tensor& y) const override {
    const memory::dim rows = x.dim(0);
    const auto count = static_cast<std::size_t>(rows * in_);
    const float x_max = cpu::max_abs(x.data<float>(), rows * in_);
    const float x_scale = x_max > 0.0f ? x_max / 127.0f : 1.0f;
    thread_local std::vector<std::int8_t> quantized;
    thread_local std::vector<float> output_scales;
    quantized.resize(count);
    cpu::quantize_s8(x.data<float>(), rows * in_, 1.0f / x_scale, quantized.data());
    output_scales.resize(weight_scales_.size());
    for (std::size_t o = 0; o < weight_scales_.size(); ++o) output_scales[o] = x_scale * weight_scales_[o];

    const memory scales({{out_}, dt::f32, tag::a}, onednn_engine(), output_scales.data());
    matmul_->execute(quantized.data(), rows, y.data<float>(),
                     {{DNNL_ARG_ATTR_OUTPUT_SCALES, scales},
                      {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, bias_mem_}});
  }

  std::string kernel() const override { return matmul_->kernel(); }

 private:
  memory::dim out_, in_;
  Tensor bias_;
  std::vector<float> weight_scales_;
  std::optional<RowChunkedMatmul> matmul_;
  memory bias_mem_;
};

}  // namespace

std::unique_ptr<ops::Linear::Impl> make_int8_linear(const Tensor& weight, const Tensor& bias,
                                                    ops::Activation activation) {
  return std::make_unique<OneDnnInt8Linear>(weight, bias, activation);
}

}  // namespace geoalign::cpu
