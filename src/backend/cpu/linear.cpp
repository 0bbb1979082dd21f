#include <cstring>

#include "backend/cpu/linear_kernels.h"
#include "backend/cpu/onednn.h"

namespace geoalign::cpu {

dnnl::engine& onednn_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& onednn_stream() {
  thread_local dnnl::stream stream(onednn_engine());
  return stream;
}

void append_activation(dnnl::post_ops& post_ops, ops::Activation activation) {
  using ops::Activation;
  dnnl::algorithm algorithm = dnnl::algorithm::undef;
  switch (activation) {
    case Activation::Gelu: algorithm = dnnl::algorithm::eltwise_gelu_erf; break;
    case Activation::GeluTanh: algorithm = dnnl::algorithm::eltwise_gelu_tanh; break;
    case Activation::Relu: algorithm = dnnl::algorithm::eltwise_relu; break;
    case Activation::Tanh: algorithm = dnnl::algorithm::eltwise_tanh; break;
    case Activation::None: return;
  }
  post_ops.append_eltwise(1.0f, algorithm, 0.0f, 0.0f);
}

dnnl::memory repack(dnnl::memory plain, const dnnl::memory::desc& wanted) {
  dnnl::memory packed(wanted, onednn_engine());
  auto& stream = onednn_stream();
  dnnl::reorder(plain, packed).execute(stream, plain, packed);
  stream.wait();
  return packed;
}

namespace {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

// fp32 matmul through oneDNN with the row count left as a run-time dimension, so one
// primitive serves every batch shape.
class OneDnnLinear final : public ops::Linear::Impl {
 public:
  OneDnnLinear(const Tensor& weight, const Tensor& bias, ops::Activation activation)
      : out_(weight.dim(0)), in_(weight.dim(1)), weight_(weight.shape()), bias_(bias.shape()) {
    std::memcpy(weight_.data<float>(), weight.data<float>(), static_cast<std::size_t>(weight.numel()) * sizeof(float));
    std::memcpy(bias_.data<float>(), bias.data<float>(), static_cast<std::size_t>(bias.numel()) * sizeof(float));
    auto& engine = onednn_engine();
    const memory::dim rows = DNNL_RUNTIME_DIM_VAL;
    const memory::desc src_md({rows, in_}, dt::f32, memory::dims{in_, 1});
    // PyTorch's [out, in] weight is the [in, out] matrix in column-major ("ba") order.
    const memory::desc weight_md({in_, out_}, dt::f32, tag::ba);
    const memory::desc bias_md({1, out_}, dt::f32, tag::ab);
    const memory::desc dst_md({rows, out_}, dt::f32, memory::dims{out_, 1});
    dnnl::primitive_attr attr;
    dnnl::post_ops post_ops;
    append_activation(post_ops, activation);
    attr.set_post_ops(post_ops);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src_md, weight_md, bias_md, dst_md), attr, engine);
    kernel_ = pd.impl_info_str();
    matmul_ = dnnl::matmul(pd);
    weight_mem_ = memory(weight_md, engine, weight_.data<float>());
    bias_mem_ = memory(bias_md, engine, bias_.data<float>());
  }

  void forward(const Tensor& x, Tensor& y) const override {
    auto& engine = onednn_engine();
    const memory::dim rows = x.dim(0);
    memory src({{rows, in_}, dt::f32, tag::ab}, engine, const_cast<float*>(x.data<float>()));
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
  Tensor weight_, bias_;
  dnnl::matmul matmul_;
  memory weight_mem_, bias_mem_;
  std::string kernel_;
};

}  // namespace

std::unique_ptr<ops::Linear::Impl> make_fp32_linear(const Tensor& weight, const Tensor& bias,
                                                    ops::Activation activation) {
  return std::make_unique<OneDnnLinear>(weight, bias, activation);
}

}  // namespace geoalign::cpu

namespace geoalign::ops {

namespace {

dnnl::cpu_isa onednn_isa() { return dnnl::get_effective_cpu_isa(); }

}  // namespace

// Without VNNI, x86 multiplies int8 with vpmaddubsw, which adds two u8 x s8 products in a
// saturating int16: full-range weights overflow it. Seven-bit weights cannot.
int int8_weight_levels() {
  using isa = dnnl::cpu_isa;
  const isa best = onednn_isa();
  const bool vnni = best == isa::avx2_vnni || best == isa::avx512_core_vnni || best == isa::avx512_core_bf16 ||
                    best == isa::avx512_core_amx;
  return vnni ? 127 : 63;
}

bool native_bf16_matmul() {
  const dnnl::cpu_isa best = onednn_isa();
  return best == dnnl::cpu_isa::avx512_core_bf16 || best == dnnl::cpu_isa::avx512_core_amx;
}

template <>
std::unique_ptr<Linear::Impl> make_linear<Device::CPU>(const Tensor& weight, const Tensor& bias, Activation activation,
                                                      MatmulPrecision precision) {
  switch (precision) {
    case MatmulPrecision::INT8: return cpu::make_int8_linear(weight, bias, activation);
    case MatmulPrecision::BF16: return cpu::make_bf16_linear(weight, bias, activation);
    case MatmulPrecision::FP32: break;
  }
  return cpu::make_fp32_linear(weight, bias, activation);
}

}  // namespace geoalign::ops
