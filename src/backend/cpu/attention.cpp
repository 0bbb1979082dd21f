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

// Scores of `rows` queries (rows <= R) against sixteen keys per block, for blocks
// [block, block + B * 16): a sum over head_dim of a broadcast query value times a row
// of kt. Each kt row loaded serves R queries and each broadcast B blocks, so the loop
// runs on FMAs rather than loads, and the R * B accumulators are independent chains.
template <int R, int B>
__attribute__((always_inline)) inline void score_tile(const HeadView& h, const float* kt, std::int64_t padded,
                                                      std::int64_t i0, int rows, std::int64_t block, float* scores) {
  Floats16 acc[R][B] = {};
  const float* q[R];
  for (int r = 0; r < R; ++r) q[r] = h.q + (i0 + std::min(r, rows - 1)) * h.stride;
  for (std::int64_t d = 0; d < h.head_dim; ++d) {
    Floats16 keys[B];
    for (int b = 0; b < B; ++b) keys[b] = load16(kt + d * padded + block + b * kLanes);
    for (int r = 0; r < R; ++r) {
      for (int b = 0; b < B; ++b) acc[r][b] += q[r][d] * keys[b];
    }
  }
  for (int r = 0; r < rows; ++r) {
    for (int b = 0; b < B; ++b) store16(scores + r * padded + block + b * kLanes, acc[r][b]);
  }
}

// The context of `rows` queries (rows <= R) for head dimensions [d0, d0 + B * 16):
// a sum over keys of a broadcast probability times a row of V, tiled as score_tile.
template <int R, int B>
__attribute__((always_inline)) inline void context_tile(const HeadView& h, const float* probs, std::int64_t padded,
                                                        std::int64_t i0, int rows, std::int64_t d0) {
  Floats16 acc[R][B] = {};
  const float* p[R];
  for (int r = 0; r < R; ++r) p[r] = probs + std::min(r, rows - 1) * padded;
  for (std::int64_t j = 0; j < h.len; ++j) {
    Floats16 values[B];
    for (int b = 0; b < B; ++b) values[b] = load16(h.v + j * h.stride + d0 + b * kLanes);
    for (int r = 0; r < R; ++r) {
      for (int b = 0; b < B; ++b) acc[r][b] += p[r][j] * values[b];
    }
  }
  for (int r = 0; r < rows; ++r) {
    for (int b = 0; b < B; ++b) store16(h.out + (i0 + r) * h.out_stride + d0 + b * kLanes, acc[r][b]);
  }
}

// softmax(Q K^T * scale) V for one head of one sequence, R queries at a time. K is first
// copied transposed and scaled into `kt` (head_dim rows of `padded` keys), so scores
// come sixteen keys at a time with no horizontal sums. `scores` holds R * padded floats;
// each row is normalized before the context sum, so the context needs no final scaling.
template <int R>
__attribute__((always_inline)) inline void attend_one_head(const HeadView& h, float* kt, float* scores) {
  const std::int64_t len = h.len, dim = h.head_dim;
  const std::int64_t padded = (len + kLanes - 1) / kLanes * kLanes;
  for (std::int64_t d = 0; d < dim; ++d) {
    float* row = kt + d * padded;
    for (std::int64_t j = 0; j < len; ++j) row[j] = h.k[j * h.stride + d] * h.scale;
    std::fill(row + len, row + padded, 0.0f);
  }
  for (std::int64_t i0 = 0; i0 < len; i0 += R) {
    const int rows = static_cast<int>(std::min<std::int64_t>(R, len - i0));
    std::int64_t block = 0;
    for (; block + 2 * kLanes <= padded; block += 2 * kLanes) score_tile<R, 2>(h, kt, padded, i0, rows, block, scores);
    if (block < padded) score_tile<R, 1>(h, kt, padded, i0, rows, block, scores);

    for (int r = 0; r < rows; ++r) {
      float* row = scores + r * padded;
      float max_score = row[0];
      for (std::int64_t j = 1; j < len; ++j) max_score = std::max(max_score, row[j]);
      float total = 0.0f;
#pragma omp simd reduction(+ : total)
      for (std::int64_t j = 0; j < len; ++j) {
        row[j] = cpu::fast_exp(row[j] - max_score);
        total += row[j];
      }
      const float inv_total = 1.0f / total;
#pragma omp simd
      for (std::int64_t j = 0; j < len; ++j) row[j] *= inv_total;
    }

    std::int64_t d0 = 0;
    for (; d0 + 2 * kLanes <= dim; d0 += 2 * kLanes) context_tile<R, 2>(h, scores, padded, i0, rows, d0);
    if (d0 + kLanes <= dim) {
      context_tile<R, 1>(h, scores, padded, i0, rows, d0);
      d0 += kLanes;
    }
    for (int r = 0; r < rows; ++r) {
      for (std::int64_t d = d0; d < dim; ++d) {
        float acc = 0.0f;
        for (std::int64_t j = 0; j < len; ++j) acc += scores[r * padded + j] * h.v[j * h.stride + d];
        h.out[(i0 + r) * h.out_stride + d] = acc;
      }
    }
  }
}

// Queries per tile: AVX-512 has 32 vector registers for 4 x 2 accumulators plus loads;
// AVX2's 16 (each Floats16 takes two) and SSE's hold fewer.
constexpr int kQueriesAvx512 = 4, kQueriesNarrow = 2;

using HeadKernel = void (*)(const HeadView&, float*, float*);
void attend_baseline(const HeadView& h, float* kt, float* scores) { attend_one_head<kQueriesNarrow>(h, kt, scores); }
GEOALIGN_TARGET_AVX2 void attend_avx2(const HeadView& h, float* kt, float* scores) {
  attend_one_head<kQueriesNarrow>(h, kt, scores);
}
GEOALIGN_TARGET_AVX512 void attend_avx512(const HeadView& h, float* kt, float* scores) {
  attend_one_head<kQueriesAvx512>(h, kt, scores);
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

  // Whole sequences at a time: a batch comes sorted by length, so equal shares would
  // leave one thread all the long sequences.
  cpu::parallel_for_dynamic(sequences * num_heads, num_heads, [&](std::int64_t task) {
    const std::int64_t s = task / num_heads;
    const std::int64_t head = task % num_heads;
    const std::int64_t first = cu_seqlens[s];
    const std::int64_t len = cu_seqlens[s + 1] - first;
    if (len == 0) return;
    const std::int64_t padded = (len + 15) / 16 * 16;
    thread_local std::vector<float> scratch;
    scratch.resize(static_cast<std::size_t>(padded * (head_dim + kQueriesAvx512)));
    const float* q0 = base + first * stride + head * head_dim;
    const HeadView view{q0, q0 + hidden, q0 + 2 * hidden, stride, len, head_dim, scale,
                        y + first * hidden + head * head_dim, hidden};
    kernel(view, scratch.data(), scratch.data() + padded * head_dim);
  });
}

}  // namespace geoalign::ops
