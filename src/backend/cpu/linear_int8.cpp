#include <cstdint>
#include <optional>
#include <vector>

#include "backend/cpu/epilogue.h"
#include "backend/cpu/linear_kernels.h"
#include "backend/cpu/onednn.h"
#include "backend/cpu/quantize.h"
#include "backend/cpu/row_chunked_matmul.h"

namespace geoalign::cpu {

namespace {

using dnnl::memory;
using dt = memory::data_type;

// Dynamic int8: s8 weights with a scale per output channel, made once by the same row
// quantizer (in parallel, vectorized: BERT-base loads in 0.31 s, not 0.63); s8 activations
// with a scale per row (per token), made per call; oneDNN multiplies in int32 and
// rescales by the weight scales. The row scales, fp32 bias and activation follow in
// geoalign's own epilogue, because oneDNN 2.6 runs a per-row post-op only in its
// reference kernel (1000x slower). Only the product is quantized, and a token's result
// does not depend on the other tokens in the batch.
class OneDnnInt8Linear final : public RowLinear {
 public:
  // The epilogue reads each chunk's fp32 product back: at 64 rows (256 KB for a
  // 1024-wide layer, 768 KB for BERT-base's 3072) it is still in the core's L2. With
  // 256-row chunks, bench at batch 64 ran 3,461 pairs/s against 3,832 for the default
  // model and 196 against 223 for BERT-base (Xeon with AMX, medians of five and three
  // alternating runs); without AMX (oneDNN capped at AVX512_CORE_VNNI) both sizes ran
  // alike.
  static constexpr std::int64_t kChunkRows = 64;

  OneDnnInt8Linear(const Tensor& weight, const Tensor& bias, ops::Activation activation)
      : out_(weight.dim(0)), in_(weight.dim(1)), bias_(copy_of(bias)),
        weight_scales_(static_cast<std::size_t>(out_)),
        activation_(activation) {
    std::vector<std::int8_t> quantized(static_cast<std::size_t>(out_ * in_));
    quantize_rows_s8(weight.data<float>(), out_, in_, quantized.data(), weight_scales_.data(), int8_weight_levels());

    dnnl::primitive_attr attr;
    attr.set_output_scales(1 << 1, weight_scales_);
    matmul_.emplace(in_, out_, dt::s8, dt::s8, quantized.data(), false, attr, kChunkRows);
  }

  void forward_rows(const float* in, std::int64_t rows, float* out) const override {
    thread_local std::vector<float> row_scales;
    row_scales.resize(static_cast<std::size_t>(rows));
    float* scales = row_scales.data();
    // Each chunk is quantized just before its product and finished just after, on the
    // thread that multiplies it, while its rows are in that core's cache.
    matmul_->execute_staged(
        rows, out, {},
        [&](std::int64_t first, std::int64_t count, void* staged) {
          quantize_rows_s8(in + first * in_, count, in_, static_cast<std::int8_t*>(staged), scales + first);
        },
        [&](std::int64_t first, std::int64_t count) {
          scale_rows_add_bias_activate(out + first * out_, count, out_, scales + first, bias_.data<float>(),
                                       activation_);
        });
  }

  std::string kernel() const override { return matmul_->kernel(); }

 private:
  memory::dim out_, in_;
  Tensor bias_;
  std::vector<float> weight_scales_;
  ops::Activation activation_;
  std::optional<RowChunkedMatmul> matmul_;
};

}  // namespace

std::unique_ptr<RowLinear> make_int8_linear(const Tensor& weight, const Tensor& bias, ops::Activation activation) {
  return std::make_unique<OneDnnInt8Linear>(weight, bias, activation);
}

}  // namespace geoalign::cpu
