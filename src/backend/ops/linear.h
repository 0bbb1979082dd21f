#pragma once

#include <memory>
#include <string>

#include "backend/tensor.h"

namespace geoalign::ops {

enum class Activation { None, Gelu, GeluTanh, Relu, Tanh };

// How a linear layer multiplies.
// BF16: weights rounded to bf16 once, activations per call; products accumulate in fp32,
//   and bias, activation and output stay fp32.
// INT8: weights quantized once per output channel (to 127 levels each side with VNNI, 63
//   without), activations quantized per call with one symmetric scale, int32
//   accumulation, then rescaled to fp32 before bias and activation.
enum class MatmulPrecision { FP32, BF16, INT8 };
const char* matmul_precision_name(MatmulPrecision precision);

// Wall time the calling threads spent inside linear layers (GEMMs with their fused
// epilogue, and for int8 the activations' quantization), counted only while enabled:
// bench and profile use it to show what the rest of the model costs. Off by default, so
// serving pays one relaxed load per layer.
struct LinearClock {
  static void enable(bool on);
  static void reset();
  static double seconds();
  // For steps that run linear layers inside a parallel region of their own: each adds
  // the time thread 0 spent in them (the threads run side by side, so one thread's time
  // is the wall time).
  static bool on();
  static void add(double seconds);
};

// The precision `auto` picks on a device: the fastest there that keeps fp32's labels
// within the accuracy bounds (docs/performance.md, "Precision").
MatmulPrecision auto_matmul_precision(Device device);
template <Device D>
MatmulPrecision auto_matmul_precision();

// y = activation(x W^T + b), with the activation fused into the GEMM's epilogue.
// The weight keeps PyTorch's [out_features, in_features] layout; a backend may repack
// it once here, at construction.
class Linear {
 public:
  class Impl {
   public:
    virtual ~Impl() = default;
    virtual void forward(const Tensor& x, Tensor& y) const = 0;
    // The kernel that runs, as its library names it (oneDNN: "brg:avx512_core_bf16").
    virtual std::string kernel() const = 0;
  };

  Linear(const Tensor& weight, const Tensor& bias, Activation activation = Activation::None,
         MatmulPrecision precision = MatmulPrecision::FP32);
  Linear(Linear&&) noexcept;
  Linear& operator=(Linear&&) noexcept;
  ~Linear();

  // x: [rows, in_features]; y is resized to [rows, out_features].
  void operator()(const Tensor& x, Tensor& y) const;

  std::int64_t in_features() const { return in_features_; }
  std::int64_t out_features() const { return out_features_; }
  std::string kernel() const { return impl_->kernel(); }
  // The backend's layer, for a backend's own steps over several layers (cpu/row_blocks).
  const Impl& impl() const { return *impl_; }

 private:
  friend void chain(const Linear&, const Linear&, const Tensor&, Tensor&, Tensor&);
  // Throws unless x is [rows, in_features] on the weights' device.
  void check_input(const Tensor& x) const;

  std::int64_t in_features_, out_features_;
  Device device_;  // the weights'; inputs must be there too
  std::unique_ptr<Impl> impl_;
};

// y = second(first(x)), as second(first(x)) with the rows between them in `between`,
// which a backend may skip: on the CPU, blocks of rows go through both layers on one
// thread each while the rows between are in its cache (a transformer's feed-forward).
void chain(const Linear& first, const Linear& second, const Tensor& x, Tensor& between, Tensor& y);

template <Device D>
std::unique_ptr<Linear::Impl> make_linear(const Tensor& weight, const Tensor& bias, Activation activation,
                                          MatmulPrecision precision);

}  // namespace geoalign::ops
