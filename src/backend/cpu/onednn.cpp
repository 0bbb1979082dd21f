#include "backend/cpu/onednn.h"

#include <cstring>

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

}  // namespace geoalign::cpu
