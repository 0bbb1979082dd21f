#include <cstdint>
#include <cstring>
#include <vector>

#include "backend/cpu/bf16.h"
#include "backend/cpu/linear_kernels.h"
#include "backend/cpu/onednn.h"

namespace geoalign::cpu {

namespace {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

std::vector<std::uint16_t> bf16_copy(const Tensor& t) {
  std::vector<std::uint16_t> out(static_cast<std::size_t>(t.numel()));
  to_bf16(t.data<float>(), out.data(), t.numel());
  return out;
}

// bf16 matmul: the weights are rounded once and repacked into the layout oneDNN's kernel
// wants (AMX tiles or AVX512-BF16 dot-product blocks); each call rounds the activations.
// oneDNN accumulates in fp32 and adds the fp32 bias and the activation as post-ops.
class OneDnnBf16Linear final : public ops::Linear::Impl {
 public:
  OneDnnBf16Linear(const Tensor& weight, const Tensor& bias, ops::Activation activation)
      : out_(weight.dim(0)), in_(weight.dim(1)), bias_(bias.shape()) {
    std::memcpy(bias_.data<float>(), bias.data<float>(), static_cast<std::size_t>(bias.numel()) * sizeof(float));
    auto& engine = onednn_engine();
    const memory::dim rows = DNNL_RUNTIME_DIM_VAL;
    const memory::desc src_md({rows, in_}, dt::bf16, memory::dims{in_, 1});
    const memory::desc any_weight_md({in_, out_}, dt::bf16, tag::any);
    const memory::desc bias_md({1, out_}, dt::f32, tag::ab);
    const memory::desc dst_md({rows, out_}, dt::f32, memory::dims{out_, 1});
    dnnl::primitive_attr attr;
    dnnl::post_ops post_ops;
    append_activation(post_ops, activation);
    attr.set_post_ops(post_ops);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src_md, any_weight_md, bias_md, dst_md), attr, engine);
    kernel_ = pd.impl_info_str();
    matmul_ = dnnl::matmul(pd);
    auto rounded = bf16_copy(weight);
    weight_mem_ = repack(memory({{in_, out_}, dt::bf16, tag::ba}, engine, rounded.data()), pd.weights_desc());
    bias_mem_ = memory(bias_md, engine, bias_.data<float>());
  }

  void forward(const Tensor& x, Tensor& y) const override {
    const memory::dim rows = x.dim(0);
    thread_local std::vector<std::uint16_t> rounded;
    rounded.resize(static_cast<std::size_t>(rows * in_));
    to_bf16(x.data<float>(), rounded.data(), rows * in_);

    auto& engine = onednn_engine();
    memory src({{rows, in_}, dt::bf16, tag::ab}, engine, rounded.data());
    memory dst({{rows, out_}, dt::f32, tag::ab}, engine, y.data<float>());
    auto& stream = onednn_stream();
    matmul_.execute(stream, {{DNNL_ARG_SRC, src},
                             {DNNL_ARG_WEIGHTS, weight_mem_},
                             {DNNL_ARG_BIAS, bias_mem_},
                             {DNNL_ARG_DST, dst}});
    stream.wait();
  }

  std::string kernel() const override { return kernel_; }

 private:
  memory::dim out_, in_;
  Tensor bias_;
  dnnl::matmul matmul_;
  memory weight_mem_, bias_mem_;
  std::string kernel_;
};

// Where oneDNN has no bf16 matmul (CPUs before AVX-512), bf16 still runs: the fp32 kernel
// multiplies the bf16-rounded weights, so results keep bf16's weight precision.
class Bf16WeightsOnFp32Linear final : public ops::Linear::Impl {
 public:
  Bf16WeightsOnFp32Linear(const Tensor& weight, const Tensor& bias, ops::Activation activation) {
    Tensor rounded(weight.shape());
    const auto bits = bf16_copy(weight);
    float* r = rounded.data<float>();
    for (std::size_t i = 0; i < bits.size(); ++i) r[i] = from_bf16(bits[i]);
    fp32_ = make_fp32_linear(rounded, bias, activation);
  }

  void forward(const Tensor& x, Tensor& y) const override { fp32_->forward(x, y); }
  std::string kernel() const override { return "bf16 weights on " + fp32_->kernel(); }

 private:
  std::unique_ptr<ops::Linear::Impl> fp32_;
};

}  // namespace

std::unique_ptr<ops::Linear::Impl> make_bf16_linear(const Tensor& weight, const Tensor& bias,
                                                    ops::Activation activation) {
  if (!ops::native_bf16_matmul()) return std::make_unique<Bf16WeightsOnFp32Linear>(weight, bias, activation);
  return std::make_unique<OneDnnBf16Linear>(weight, bias, activation);
}

}  // namespace geoalign::cpu
