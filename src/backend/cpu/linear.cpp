#include <cstring>

#include "backend/cpu/linear_kernels.h"
#include "backend/cpu/onednn.h"
#include "backend/cpu/row_chunked_matmul.h"

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

dnnl::primitive_attr activation_attr(ops::Activation activation) {
  dnnl::primitive_attr attr;
  dnnl::post_ops post_ops;
  append_activation(post_ops, activation);
  attr.set_post_ops(post_ops);
  return attr;
}

Tensor copy_of(const Tensor& t) {
  Tensor out(t.shape());
  std::memcpy(out.data<float>(), t.data<float>(), static_cast<std::size_t>(t.numel()) * sizeof(float));
  return out;
}

dnnl::memory bias_memory(Tensor& bias) {
  return dnnl::memory({{1, bias.dim(0)}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::ab}, onednn_engine(),
                      bias.data<float>());
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

// fp32 matmul through oneDNN, bias and activation fused as post-ops.
class OneDnnLinear final : public ops::Linear::Impl {
 public:
  OneDnnLinear(const Tensor& weight, const Tensor& bias, ops::Activation activation)
      : bias_(copy_of(bias)),
        matmul_(weight.dim(1), weight.dim(0), dt::f32, dt::f32, weight.data<float>(), true, activation_attr(activation)),
        bias_mem_(bias_memory(bias_)) {}

  void forward(const Tensor& x, Tensor& y) const override {
    matmul_.execute(x.data<float>(), x.dim(0), y.data<float>(), {{DNNL_ARG_BIAS, bias_mem_}});
  }

  std::string kernel() const override { return matmul_.kernel(); }

 private:
  Tensor bias_;
  RowChunkedMatmul matmul_;
  memory bias_mem_;
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
