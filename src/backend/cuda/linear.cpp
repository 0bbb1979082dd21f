// ops::Linear on the GPU through cuBLASLt: fp32 (true fp32 arithmetic, no TF32) or bf16
// operands with fp32 accumulation and output, the bias and ReLU or tanh-GELU fused into
// the GEMM's epilogue (in bf16, erf-GELU too); erf-GELU in fp32 and tanh, which no
// epilogue computes, run as one elementwise pass after it.
#include <cuda_runtime_api.h>

#include <bit>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>

#include "backend/cuda/cublaslt_library.h"
#include "backend/cuda/device_buffer.h"
#include "backend/cuda/elementwise.h"
#include "backend/ops/linear.h"

namespace geoalign::cuda {

namespace {

// cuBLASLt picks a kernel per shape within this scratch space; 32 MiB is what NVIDIA
// recommends for Hopper.
constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;

// One handle and workspace per thread: a thread's calls run in order on the default stream.
struct ThreadContext {
  cublasLtHandle_t handle = nullptr;
  DeviceBuffer workspace{kWorkspaceBytes};
  DeviceBuffer input;  // the bf16 copy of a layer's input
  ThreadContext() { check_blas(cublaslt().create(&handle), "cublasLtCreate"); }
  ~ThreadContext() { cublaslt().destroy(handle); }
};
ThreadContext& thread_context() {
  thread_local ThreadContext context;
  return context;
}

struct DescDestroy {
  void operator()(cublasLtMatmulDesc_t p) const { cublaslt().matmul_desc_destroy(p); }
};
struct LayoutDestroy {
  void operator()(cublasLtMatrixLayout_t p) const { cublaslt().matrix_layout_destroy(p); }
};
struct PreferenceDestroy {
  void operator()(cublasLtMatmulPreference_t p) const { cublaslt().preference_destroy(p); }
};
using MatmulDesc = std::unique_ptr<std::remove_pointer_t<cublasLtMatmulDesc_t>, DescDestroy>;
using Layout = std::unique_ptr<std::remove_pointer_t<cublasLtMatrixLayout_t>, LayoutDestroy>;
using Preference = std::unique_ptr<std::remove_pointer_t<cublasLtMatmulPreference_t>, PreferenceDestroy>;

Layout layout(cudaDataType type, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  cublasLtMatrixLayout_t l = nullptr;
  check_blas(cublaslt().matrix_layout_create(&l, type, static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(cols), ld),
             "cublasLtMatrixLayoutCreate");
  return Layout(l);
}

template <typename T>
void set(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute, const T& value) {
  check_blas(cublaslt().matmul_desc_set_attribute(desc, attribute, &value, sizeof(value)), "cublasLtMatmulDescSetAttribute");
}

// In bf16, BERT's erf-GELU is computed in the epilogue by cuBLASLt's tanh form: the two
// differ by at most 4.7e-4 (at x = -2.7), well under the rounding of the bf16 operands that
// the next layer reads anyway, and a separate pass over the widest activation goes. In fp32
// it stays exact, as a pass of its own.
ops::Activation epilogue_activation(ops::Activation activation, bool bf16) {
  return bf16 && activation == ops::Activation::Gelu ? ops::Activation::GeluTanh : activation;
}

cublasLtEpilogue_t epilogue_of(ops::Activation activation) {
  switch (activation) {
    case ops::Activation::Relu: return CUBLASLT_EPILOGUE_RELU_BIAS;
    case ops::Activation::GeluTanh: return CUBLASLT_EPILOGUE_GELU_BIAS;  // cuBLASLt's GELU is the tanh form
    default: return CUBLASLT_EPILOGUE_BIAS;
  }
}

class CublasLtLinear final : public ops::Linear::Impl {
 public:
  CublasLtLinear(const Tensor& weight, const Tensor& bias, ops::Activation activation, ops::MatmulPrecision precision)
      : out_(weight.dim(0)),
        in_(weight.dim(1)),
        bf16_(precision == ops::MatmulPrecision::BF16),
        activation_(epilogue_activation(activation, bf16_)),
        bias_(bias.to(Device::CUDA)) {
    if (precision == ops::MatmulPrecision::INT8) {
      throw Error("linear: int8 has no CUDA kernel; use bf16 (what auto picks on a GPU) or fp32");
    }
    if (bf16_) {
      weight_bf16_.reserve(static_cast<std::size_t>(out_ * in_) * 2);
      to_bf16(weight.data<float>(), reinterpret_cast<std::uint16_t*>(weight_bf16_.data()), out_ * in_);
    } else {
      weight_fp32_ = weight.to(Device::CUDA);
    }
    // Row-major y [rows, out] is column-major y^T [out, rows] = W x^T: W [out, in]
    // row-major is column-major [in, out], used transposed; x [rows, in] is column-major
    // [in, rows].
    cublasLtMatmulDesc_t raw = nullptr;
    check_blas(cublaslt().matmul_desc_create(&raw, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    desc_.reset(raw);
    set(raw, CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T);
    set(raw, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
    set(raw, CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue_of(activation_));
    set(raw, CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias_.data<float>());
    weight_layout_ = layout(operand(), in_, out_, in_);
  }

  void forward(const Tensor& x, Tensor& y) const override {
    ThreadContext& context = thread_context();
    const std::int64_t rows = x.dim(0);
    const void* input = x.data<float>();
    const void* weight = bf16_ ? static_cast<const void*>(weight_bf16_.data()) : weight_fp32_.data<float>();
    if (bf16_) {
      context.input.reserve(static_cast<std::size_t>(rows * in_) * 2);
      to_bf16(x.data<float>(), reinterpret_cast<std::uint16_t*>(context.input.data()), rows * in_);
      input = context.input.data();
    }
    const Layout b = layout(operand(), in_, rows, in_);
    const Layout d = layout(CUDA_R_32F, out_, rows, out_);
    const auto multiply = [&](const cublasLtMatmulAlgo_t& algo) {
      const float alpha = 1.0f, beta = 0.0f;
      return cublaslt().matmul(context.handle, desc_.get(), &alpha, weight, weight_layout_.get(), input, b.get(), &beta,
                               y.data<float>(), d.get(), y.data<float>(), d.get(), &algo, context.workspace.data(),
                               context.workspace.bytes(), nullptr);
    };
    // Asking cuBLASLt for a kernel costs more host time than a small batch's GEMM, so the
    // answer is kept per power of two of rows, asked for that bucket's largest size (its
    // workspace covers every smaller one). Should a kept kernel refuse a size, the exact
    // size is asked for.
    const auto bucket = static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>(rows)));
    if (const auto kept = kept_algo(bucket); !kept || multiply(*kept) != CUBLAS_STATUS_SUCCESS) {
      const cublasLtMatmulAlgo_t algo = find_algo(bucket, context);
      cublasStatus_t status = multiply(algo);
      if (status == CUBLAS_STATUS_SUCCESS) {
        keep_algo(bucket, algo);
      } else {
        status = multiply(find_algo(rows, context));
      }
      check_blas(status, "cublasLtMatmul");
    }
    if (activation_ == ops::Activation::Gelu || activation_ == ops::Activation::Tanh) {
      activate_in_place(y.data<float>(), rows * out_, activation_);
    }
  }

  std::string kernel() const override { return bf16_ ? "cublasLt:bf16" : "cublasLt:fp32"; }

 private:
  cudaDataType operand() const { return bf16_ ? CUDA_R_16BF : CUDA_R_32F; }

  cublasLtMatmulAlgo_t find_algo(std::int64_t rows, ThreadContext& context) const {
    const Layout b = layout(operand(), in_, rows, in_);
    const Layout d = layout(CUDA_R_32F, out_, rows, out_);
    cublasLtMatmulPreference_t raw_preference = nullptr;
    check_blas(cublaslt().preference_create(&raw_preference), "cublasLtMatmulPreferenceCreate");
    const Preference preference(raw_preference);
    const std::size_t workspace_bytes = context.workspace.bytes();
    check_blas(cublaslt().preference_set_attribute(raw_preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                    &workspace_bytes, sizeof(workspace_bytes)),
               "cublasLtMatmulPreferenceSetAttribute");
    cublasLtMatmulHeuristicResult_t heuristic{};
    int found = 0;
    check_blas(cublaslt().algo_get_heuristic(context.handle, desc_.get(), weight_layout_.get(), b.get(), d.get(),
                                              d.get(), raw_preference, 1, &heuristic, &found),
               "cublasLtMatmulAlgoGetHeuristic");
    if (found == 0) {
      throw Error("linear: cuBLASLt has no kernel for [" + std::to_string(rows) + ", " + std::to_string(in_) +
                  "] x [" + std::to_string(in_) + ", " + std::to_string(out_) + "]");
    }
    return heuristic.algo;
  }

  std::optional<cublasLtMatmulAlgo_t> kept_algo(std::int64_t bucket) const {
    std::lock_guard lock(algos_mutex_);
    const auto it = algos_.find(bucket);
    if (it == algos_.end()) return std::nullopt;
    return it->second;
  }

  void keep_algo(std::int64_t bucket, const cublasLtMatmulAlgo_t& algo) const {
    std::lock_guard lock(algos_mutex_);
    algos_[bucket] = algo;
  }

  std::int64_t out_, in_;
  bool bf16_;
  ops::Activation activation_;
  Tensor bias_;
  Tensor weight_fp32_;
  DeviceBuffer weight_bf16_;
  MatmulDesc desc_;
  Layout weight_layout_;
  mutable std::mutex algos_mutex_;
  mutable std::map<std::int64_t, cublasLtMatmulAlgo_t> algos_;  // by power of two of rows
};

}  // namespace

}  // namespace geoalign::cuda

namespace geoalign::ops {

// Tensor cores multiply bf16 at full rate and keep fp32's exponent range.
template <>
MatmulPrecision auto_matmul_precision<Device::CUDA>() {
  return MatmulPrecision::BF16;
}

template <>
std::unique_ptr<Linear::Impl> make_linear<Device::CUDA>(const Tensor& weight, const Tensor& bias, Activation activation,
                                                       MatmulPrecision precision) {
  return std::make_unique<cuda::CublasLtLinear>(weight, bias, activation, precision);
}

}  // namespace geoalign::ops
