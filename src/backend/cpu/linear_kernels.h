#pragma once

#include <memory>

#include "backend/ops/linear.h"

// The CPU implementations of ops::Linear, one per precision (linear_*.cpp).
namespace geoalign::cpu {

// A CPU linear layer over rows given by pointer: forward() is forward_rows() on the
// tensors. Called inside a parallel region, every step runs on the calling thread alone.
class RowLinear : public ops::Linear::Impl {
 public:
  virtual void forward_rows(const float* x, std::int64_t rows, float* y) const = 0;
  void forward(const Tensor& x, Tensor& y) const final { forward_rows(x.data<float>(), x.dim(0), y.data<float>()); }
};

// Facts about this CPU (as capped by ONEDNN_MAX_CPU_ISA).
int int8_weight_levels();
// AVX512-BF16 or AMX. Without them a bf16 layer runs fp32 arithmetic on bf16-rounded
// weights: bf16's accuracy at fp32's speed.
bool native_bf16_matmul();

std::unique_ptr<RowLinear> make_fp32_linear(const Tensor& weight, const Tensor& bias, ops::Activation activation);
std::unique_ptr<RowLinear> make_int8_linear(const Tensor& weight, const Tensor& bias, ops::Activation activation);
std::unique_ptr<RowLinear> make_bf16_linear(const Tensor& weight, const Tensor& bias, ops::Activation activation);

}  // namespace geoalign::cpu
