#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "backend/cpu/onednn.h"
#include "backend/ops/linear.h"

namespace geoalign::cpu {

dnnl::engine& onednn_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& onednn_stream() {
  thread_local dnnl::stream stream(onednn_engine());
  return stream;
}

}  // namespace geoalign::cpu

namespace geoalign::ops {

// Without VNNI, x86 multiplies int8 with vpmaddubsw, which adds two u8 x s8 products in a
// saturating int16: full-range weights overflow it. Seven-bit weights cannot.
int int8_weight_levels() {
  using isa = dnnl::cpu_isa;
  const isa best = dnnl::get_effective_cpu_isa();
  const bool vnni = best == isa::avx2_vnni || best == isa::avx512_core_vnni || best == isa::avx512_core_bf16 ||
                    best == isa::avx512_core_amx;
  return vnni ? 127 : 63;
}

namespace {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

dnnl::algorithm onednn_algorithm(Activation activation) {
  switch (activation) {
    case Activation::Gelu: return dnnl::algorithm::eltwise_gelu_erf;
    case Activation::GeluTanh: return dnnl::algorithm::eltwise_gelu_tanh;
    case Activation::Relu: return dnnl::algorithm::eltwise_relu;
    case Activation::Tanh: return dnnl::algorithm::eltwise_tanh;
    case Activation::None: break;
  }
  return dnnl::algorithm::undef;
}

// fp32 matmul through oneDNN with the row count left as a run-time dimension, so one
// primitive serves every batch shape.
class OneDnnLinear final : public Linear::Impl {
 public:
  OneDnnLinear(const Tensor& weight, const Tensor& bias, Activation activation)
      : out_(weight.dim(0)), in_(weight.dim(1)), weight_(weight.shape()), bias_(bias.shape()) {
    std::memcpy(weight_.data<float>(), weight.data<float>(), static_cast<std::size_t>(weight.numel()) * sizeof(float));
    std::memcpy(bias_.data<float>(), bias.data<float>(), static_cast<std::size_t>(bias.numel()) * sizeof(float));
    auto& engine = cpu::onednn_engine();
    const memory::dim rows = DNNL_RUNTIME_DIM_VAL;
    const memory::desc src_md({rows, in_}, dt::f32, memory::dims{in_, 1});
    // PyTorch's [out, in] weight is the [in, out] matrix in column-major ("ba") order.
    const memory::desc weight_md({in_, out_}, dt::f32, tag::ba);
    const memory::desc bias_md({1, out_}, dt::f32, tag::ab);
    const memory::desc dst_md({rows, out_}, dt::f32, memory::dims{out_, 1});
    dnnl::primitive_attr attr;
    if (activation != Activation::None) {
      dnnl::post_ops post_ops;
      post_ops.append_eltwise(1.0f, onednn_algorithm(activation), 0.0f, 0.0f);
      attr.set_post_ops(post_ops);
    }
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src_md, weight_md, bias_md, dst_md), attr, engine);
    matmul_ = dnnl::matmul(pd);
    weight_mem_ = memory(weight_md, engine, weight_.data<float>());
    bias_mem_ = memory(bias_md, engine, bias_.data<float>());
  }

  void forward(const Tensor& x, Tensor& y) const override {
    auto& engine = cpu::onednn_engine();
    const memory::dim rows = x.dim(0);
    memory src({{rows, in_}, dt::f32, tag::ab}, engine, const_cast<float*>(x.data<float>()));
    memory dst({{rows, out_}, dt::f32, tag::ab}, engine, y.data<float>());
    auto& stream = cpu::onednn_stream();
    matmul_.execute(stream, {{DNNL_ARG_SRC, src},
                             {DNNL_ARG_WEIGHTS, weight_mem_},
                             {DNNL_ARG_BIAS, bias_mem_},
                             {DNNL_ARG_DST, dst}});
    stream.wait();
  }

 private:
  memory::dim out_, in_;
  Tensor weight_, bias_;
  dnnl::matmul matmul_;
  memory weight_mem_, bias_mem_;
};

// Dynamic int8: s8 weights with a scale per output channel, made once; s8 activations
// with one scale per call (their absolute maximum over 127); oneDNN multiplies in int32
// and rescales by activation scale x weight scale, then adds the fp32 bias and applies
// the activation as post-ops, so only the product is quantized.
class OneDnnInt8Linear final : public Linear::Impl {
 public:
  OneDnnInt8Linear(const Tensor& weight, const Tensor& bias, Activation activation)
      : out_(weight.dim(0)), in_(weight.dim(1)), bias_(bias.shape()), weight_scales_(static_cast<std::size_t>(out_)) {
    std::memcpy(bias_.data<float>(), bias.data<float>(), static_cast<std::size_t>(bias.numel()) * sizeof(float));
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

    auto& engine = cpu::onednn_engine();
    const memory::dim rows = DNNL_RUNTIME_DIM_VAL;
    const memory::desc src_md({rows, in_}, dt::s8, memory::dims{in_, 1});
    const memory::desc any_weight_md({in_, out_}, dt::s8, tag::any);
    const memory::desc dst_md({rows, out_}, dt::f32, memory::dims{out_, 1});
    const memory::desc bias_md({1, out_}, dt::f32, tag::ab);
    dnnl::primitive_attr attr;
    attr.set_output_scales(1 << 1, {DNNL_RUNTIME_F32_VAL});
    dnnl::post_ops post_ops;
    post_ops.append_binary(dnnl::algorithm::binary_add, bias_md);
    if (activation != Activation::None) post_ops.append_eltwise(1.0f, onednn_algorithm(activation), 0.0f, 0.0f);
    attr.set_post_ops(post_ops);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src_md, any_weight_md, dst_md), attr, engine);
    matmul_ = dnnl::matmul(pd);

    // Repacked once into whatever layout the chosen kernel wants.
    memory plain({{in_, out_}, dt::s8, tag::ba}, engine, quantized.data());
    weight_mem_ = memory(pd.weights_desc(), engine);
    auto& stream = cpu::onednn_stream();
    dnnl::reorder(plain, weight_mem_).execute(stream, plain, weight_mem_);
    stream.wait();
    bias_mem_ = memory(bias_md, engine, bias_.data<float>());
  }

  void forward(const Tensor& x, Tensor& y) const override {
    const memory::dim rows = x.dim(0);
    const auto count = static_cast<std::size_t>(rows * in_);
    const float* xs = x.data<float>();
    float max_abs = 0.0f;
    for (std::size_t i = 0; i < count; ++i) max_abs = std::max(max_abs, std::fabs(xs[i]));
    const float x_scale = max_abs > 0.0f ? max_abs / 127.0f : 1.0f;
    const float inverse = 1.0f / x_scale;
    thread_local std::vector<std::int8_t> quantized;
    thread_local std::vector<float> output_scales;
    quantized.resize(count);
    for (std::size_t i = 0; i < count; ++i) quantized[i] = static_cast<std::int8_t>(std::lrintf(xs[i] * inverse));
    output_scales.resize(weight_scales_.size());
    for (std::size_t o = 0; o < weight_scales_.size(); ++o) output_scales[o] = x_scale * weight_scales_[o];

    auto& engine = cpu::onednn_engine();
    memory src({{rows, in_}, dt::s8, tag::ab}, engine, quantized.data());
    memory dst({{rows, out_}, dt::f32, tag::ab}, engine, y.data<float>());
    memory scales({{out_}, dt::f32, tag::a}, engine, output_scales.data());
    auto& stream = cpu::onednn_stream();
    matmul_.execute(stream, {{DNNL_ARG_SRC, src},
                             {DNNL_ARG_WEIGHTS, weight_mem_},
                             {DNNL_ARG_DST, dst},
                             {DNNL_ARG_ATTR_OUTPUT_SCALES, scales},
                             {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, bias_mem_}});
    stream.wait();
  }

 private:
  memory::dim out_, in_;
  Tensor bias_;
  std::vector<float> weight_scales_;
  dnnl::matmul matmul_;
  memory weight_mem_, bias_mem_;
};

}  // namespace

template <>
std::unique_ptr<Linear::Impl> make_linear<Device::CPU>(const Tensor& weight, const Tensor& bias, Activation activation,
                                                      MatmulPrecision precision) {
  if (precision == MatmulPrecision::INT8) return std::make_unique<OneDnnInt8Linear>(weight, bias, activation);
  return std::make_unique<OneDnnLinear>(weight, bias, activation);
}

}  // namespace geoalign::ops
