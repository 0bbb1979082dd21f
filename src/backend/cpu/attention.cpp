#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "backend/cpu/fast_exp.h"
#include "backend/cpu/kernel_targets.h"
#include "backend/cpu/parallel.h"
#include "backend/ops/attention.h"

namespace geoalign::ops {

namespace {

struct HeadView {
  const float *q, *k, *v;  // first row of this sequence's Q, K and V for this head
  std::int64_t stride;      // between rows of q, k, v
  std::int64_t len, head_dim;
  float scale;
  float* out;
  std::int64_t out_stride;
};

// 16 floats as one value: GCC lowers it to one zmm register, two ymm or four xmm,
// whichever the function's target allows, and keeps accumulators in registers.
typedef float Floats16 __attribute__((vector_size(64)));
// Passing Floats16 by value would differ between the targets' ABIs; every helper below
// is always inlined, so no such call exists and GCC's ABI note does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"
constexpr std::int64_t kLanes = 16;

__attribute__((always_inline)) inline Floats16 load16(const float* p) {
  Floats16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
__attribute__((always_inline)) inline void store16(float* p, const Floats16& v) { std::memcpy(p, &v, sizeof v); }

// softmax(Q K^T * scale) V for one head of one sequence. K is first copied transposed
// and scaled into `kt` (head_dim rows of `padded` keys), so sixteen scores at a time are
// a sum over head_dim of a broadcast query value times a row of kt: no horizontal sums,
// the accumulator stays in a register. The context is accumulated the same way, sixteen
// of head_dim at a time, over the keys. `scores` holds `padded` floats.
__attribute__((always_inline)) inline void attend_one_head(const HeadView& h, float* kt, float* scores) {
  const std::int64_t len = h.len, dim = h.head_dim;
  const std::int64_t padded = (len + kLanes - 1) / kLanes * kLanes;
  for (std::int64_t d = 0; d < dim; ++d) {
    float* row = kt + d * padded;
    for (std::int64_t j = 0; j < len; ++j) row[j] = h.k[j * h.stride + d] * h.scale;
    std::fill(row + len, row + padded, 0.0f);
  }
  for (std::int64_t i = 0; i < len; ++i) {
    const float* q = h.q + i * h.stride;
    for (std::int64_t block = 0; block < padded; block += kLanes) {
      const float* column = kt + block;
      // Four partial sums: one FMA chain would wait on its own latency every step.
      Floats16 acc[4] = {};
      std::int64_t d = 0;
      for (; d + 4 <= dim; d += 4) {
        for (int u = 0; u < 4; ++u) acc[u] += q[d + u] * load16(column + (d + u) * padded);
      }
      for (; d < dim; ++d) acc[0] += q[d] * load16(column + d * padded);
      store16(scores + block, (acc[0] + acc[1]) + (acc[2] + acc[3]));
    }
    float max_score = scores[0];
    for (std::int64_t j = 1; j < len; ++j) max_score = std::max(max_score, scores[j]);
    float total = 0.0f;
#pragma omp simd reduction(+ : total)
    for (std::int64_t j = 0; j < len; ++j) {
      scores[j] = cpu::fast_exp(scores[j] - max_score);
      total += scores[j];
    }
    const float inv_total = 1.0f / total;
    float* ctx = h.out + i * h.out_stride;
    std::int64_t d0 = 0;
    for (; d0 + kLanes <= dim; d0 += kLanes) {
      const float* v = h.v + d0;
      Floats16 acc[4] = {};
      std::int64_t j = 0;
      for (; j + 4 <= len; j += 4) {
        for (int u = 0; u < 4; ++u) acc[u] += scores[j + u] * load16(v + (j + u) * h.stride);
      }
      for (; j < len; ++j) acc[0] += scores[j] * load16(v + j * h.stride);
      store16(ctx + d0, ((acc[0] + acc[1]) + (acc[2] + acc[3])) * inv_total);
    }
    for (std::int64_t d = d0; d < dim; ++d) {
      float acc = 0.0f;
      for (std::int64_t j = 0; j < len; ++j) acc += scores[j] * h.v[j * h.stride + d];
      ctx[d] = acc * inv_total;
    }
  }
}

using HeadKernel = void (*)(const HeadView&, float*, float*);
void attend_baseline(const HeadView& h, float* kt, float* scores) { attend_one_head(h, kt, scores); }
GEOALIGN_TARGET_AVX2 void attend_avx2(const HeadView& h, float* kt, float* scores) { attend_one_head(h, kt, scores); }
GEOALIGN_TARGET_AVX512 void attend_avx512(const HeadView& h, float* kt, float* scores) {
  attend_one_head(h, kt, scores);
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
  const HeadKernel kernel = cpu::pick_kernel<HeadKernel>(attend_baseline, attend_avx2, attend_avx512);

  cpu::parallel_for(sequences * num_heads, [&](std::int64_t task) {
    const std::int64_t s = task / num_heads;
    const std::int64_t head = task % num_heads;
    const std::int64_t first = cu_seqlens[s];
    const std::int64_t len = cu_seqlens[s + 1] - first;
    if (len == 0) return;
    const std::int64_t padded = (len + 15) / 16 * 16;
    thread_local std::vector<float> scratch;
    scratch.resize(static_cast<std::size_t>(padded * (head_dim + 1)));
    const float* q0 = base + first * stride + head * head_dim;
    const HeadView view{q0, q0 + hidden, q0 + 2 * hidden, stride, len, head_dim, scale,
                        y + first * hidden + head * head_dim, hidden};
    kernel(view, scratch.data(), scratch.data() + padded * head_dim);
  });
}

}  // namespace geoalign::ops
