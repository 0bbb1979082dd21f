#pragma once

#include <memory>

#include "backend/tensor.h"

namespace geoalign::ops {

enum class Activation { None, Gelu, GeluTanh, Relu, Tanh };

// y = activation(x W^T + b), with the activation fused into the GEMM's epilogue.
// The weight keeps PyTorch's [out_features, in_features] layout; a backend may repack
// it once here, at construction.
class Linear {
 public:
  class Impl {
   public:
    virtual ~Impl() = default;
    virtual void forward(const Tensor& x, Tensor& y) const = 0;
  };

  Linear(const Tensor& weight, const Tensor& bias, Activation activation = Activation::None);
  Linear(Linear&&) noexcept;
  Linear& operator=(Linear&&) noexcept;
  ~Linear();

  // x: [rows, in_features]; y is resized to [rows, out_features].
  void operator()(const Tensor& x, Tensor& y) const;

  std::int64_t in_features() const { return in_features_; }
  std::int64_t out_features() const { return out_features_; }

 private:
  std::int64_t in_features_, out_features_;
  std::unique_ptr<Impl> impl_;
};

template <Device D>
std::unique_ptr<Linear::Impl> make_linear(const Tensor& weight, const Tensor& bias, Activation activation);

}  // namespace geoalign::ops
