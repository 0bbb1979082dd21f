#pragma once

#include <memory>

#include "backend/ops/linear.h"

// The CPU implementations of ops::Linear, one per precision (linear_*.cpp).
namespace geoalign::cpu {

std::unique_ptr<ops::Linear::Impl> make_fp32_linear(const Tensor& weight, const Tensor& bias,
                                                    ops::Activation activation);
std::unique_ptr<ops::Linear::Impl> make_int8_linear(const Tensor& weight, const Tensor& bias,
                                                    ops::Activation activation);
std::unique_ptr<ops::Linear::Impl> make_bf16_linear(const Tensor& weight, const Tensor& bias,
                                                    ops::Activation activation);

}  // namespace geoalign::cpu
