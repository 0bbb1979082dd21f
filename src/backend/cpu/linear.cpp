#include "backend/cpu/linear_kernels.h"
#include "backend/cpu/onednn.h"
#include "backend/cpu/row_chunked_matmul.h"

namespace geoalign::cpu {

namespace {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

// fp32 matmul through oneDNN, bias and activation fused as post-ops.
class OneDnnLinear final : public RowLinear {
 public:
  OneDnnLinear(const Tensor& weight, const Tensor& bias, ops::Activation activation)
      : bias_(copy_of(bias)),
        matmul_(weight.dim(1), weight.dim(0), dt::f32, dt::f32, weight.data<float>(), true, activation_attr(activation)),
        bias_mem_(bias_memory(bias_)) {}

  void forward_rows(const float* x, std::int64_t rows, float* y) const override {
    matmul_.execute(x, rows, y, {{DNNL_ARG_BIAS, bias_mem_}});
  }

  std::string kernel() const override { return matmul_.kernel(); }

 private:
  Tensor bias_;
  RowChunkedMatmul matmul_;
  memory bias_mem_;
};

}  // namespace

std::unique_ptr<RowLinear> make_fp32_linear(const Tensor& weight, const Tensor& bias, ops::Activation activation) {
  return std::make_unique<OneDnnLinear>(weight, bias, activation);
}

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

}  // namespace geoalign::cpu

namespace geoalign::ops {

// int8 and bf16 both keep fp32's labels within the accuracy bounds on real pairs; each
// pays only where the CPU multiplies it natively. Where both are native, int8 measured
// fastest (geoalign bench, Zen 5: 4x256 and BERT-base shapes, batch 1 and 64). On plain
// AVX2 both are slower than fp32.
template <>
MatmulPrecision auto_matmul_precision<Device::CPU>() {
  if (cpu::int8_weight_levels() == 127) return MatmulPrecision::INT8;
  return cpu::native_bf16_matmul() ? MatmulPrecision::BF16 : MatmulPrecision::FP32;
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
