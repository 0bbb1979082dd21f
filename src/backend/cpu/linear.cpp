#include <cstring>

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

}  // namespace

template <>
std::unique_ptr<Linear::Impl> make_linear<Device::CPU>(const Tensor& weight, const Tensor& bias,
                                                      Activation activation) {
  return std::make_unique<OneDnnLinear>(weight, bias, activation);
}

}  // namespace geoalign::ops
