#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/cpu/isa.h"
#include "backend/cpu/parallel.h"
#include "backend/ops/attention.h"

namespace geoalign::ops {

namespace {

// One head of one sequence: softmax(Q K^T * scale) V. Compiled twice below, for AVX2+FMA
// and for baseline x86-64. `omp simd` lets the compiler reorder the dot products' sums,
// which is what makes them vectorize.
__attribute__((always_inline)) inline void attend_one_head(
    const float* q0, const float* k0, const float* v0, std::int64_t stride, std::int64_t len, std::int64_t head_dim,
    float scale, float* probs, float* out, std::int64_t out_stride) {
  for (std::int64_t i = 0; i < len; ++i) {
    const float* q = q0 + i * stride;
    float max_score = -INFINITY;
    for (std::int64_t j = 0; j < len; ++j) {
      const float* k = k0 + j * stride;
      float dot = 0.0f;
#pragma omp simd reduction(+ : dot)
      for (std::int64_t d = 0; d < head_dim; ++d) dot += q[d] * k[d];
      probs[j] = dot * scale;
      max_score = std::max(max_score, probs[j]);
    }
    float total = 0.0f;
    for (std::int64_t j = 0; j < len; ++j) {
      probs[j] = std::exp(probs[j] - max_score);
      total += probs[j];
    }
    const float inv_total = 1.0f / total;
    float* ctx = out + i * out_stride;
    std::fill(ctx, ctx + head_dim, 0.0f);
    for (std::int64_t j = 0; j < len; ++j) {
      const float p = probs[j] * inv_total;
      const float* v = v0 + j * stride;
#pragma omp simd
      for (std::int64_t d = 0; d < head_dim; ++d) ctx[d] += p * v[d];
    }
  }
}

__attribute__((target("arch=x86-64-v3"))) void attend_one_head_avx2(const float* q0, const float* k0, const float* v0,
                                                                     std::int64_t stride, std::int64_t len,
                                                                     std::int64_t head_dim, float scale, float* probs,
                                                                     float* out, std::int64_t out_stride) {
  attend_one_head(q0, k0, v0, stride, len, head_dim, scale, probs, out, out_stride);
}

void attend_one_head_baseline(const float* q0, const float* k0, const float* v0, std::int64_t stride,
                              std::int64_t len, std::int64_t head_dim, float scale, float* probs, float* out,
                              std::int64_t out_stride) {
  attend_one_head(q0, k0, v0, stride, len, head_dim, scale, probs, out, out_stride);
}

}  // namespace

template <>
void attention<Device::CPU>(const Tensor& qkv, std::span<const std::int32_t> cu_seqlens, std::int64_t num_heads,
                            Tensor& out) {
  const std::int64_t hidden = out.dim(1);
  const std::int64_t head_dim = hidden / num_heads;
  const std::int64_t stride = 3 * hidden;
  const std::int64_t sequences = static_cast<std::int64_t>(cu_seqlens.size()) - 1;
  const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  const float* base = qkv.data<float>();
  float* y = out.data<float>();
  const auto kernel = cpu::isa_at_least(cpu::Isa::Avx2) ? attend_one_head_avx2 : attend_one_head_baseline;

  cpu::parallel_for(sequences * num_heads, [&](std::int64_t task) {
    const std::int64_t s = task / num_heads;
    const std::int64_t head = task % num_heads;
    const std::int64_t first = cu_seqlens[s];
    const std::int64_t len = cu_seqlens[s + 1] - first;
    thread_local std::vector<float> probs;
    probs.resize(static_cast<std::size_t>(len));
    const float* q0 = base + first * stride + head * head_dim;
    kernel(q0, q0 + hidden, q0 + 2 * hidden, stride, len, head_dim, scale, probs.data(),
                    y + first * hidden + head * head_dim, hidden);
  });
}

}  // namespace geoalign::ops
