// Passing 64-byte vectors by value would differ between the targets' ABIs; every helper
// here (and cpu::exp_reduced) is always inlined, so no such call exists and GCC's ABI
// note does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "backend/cpu/fast_exp.h"
#include "backend/cpu/kernel_targets.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/attention.h"
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
constexpr std::int64_t kLanes = 16;

__attribute__((always_inline)) inline Floats16 load16(const float* p) {
  Floats16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
__attribute__((always_inline)) inline void store16(float* p, const Floats16& v) { std::memcpy(p, &v, sizeof v); }

typedef std::int32_t Ints16 __attribute__((vector_size(64)));
__attribute__((always_inline)) inline Floats16 splat(float v) { return Floats16{} + v; }

// cpu::fast_exp on sixteen lanes at once (the scalar one, vectorized by GCC, left every
// row's last len % 16 lanes to scalar code). n is rounded by the 1.5 * 2^23 trick, which
// equals nearbyint for the |n| <= 126 that softmax arguments reach.
__attribute__((always_inline)) inline Floats16 fast_exp16(Floats16 x) {
  x = x < splat(-87.0f) ? splat(-87.0f) : x;
  const Floats16 shift = splat(12582912.0f);
  const Floats16 n = (x * 1.44269504088896341f + shift) - shift;
  const Ints16 bits = (__builtin_convertvector(n, Ints16) + 127) << 23;
  Floats16 scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return cpu::exp_reduced(x, n) * scale;
}

__attribute__((always_inline)) inline Floats16 max16(Floats16 a, Floats16 b) { return a > b ? a : b; }

// The maximum (in every lane) and the sum of a vector's lanes, in four halving steps.
__attribute__((always_inline)) inline Floats16 lane_max(Floats16 v) {
  v = max16(v, __builtin_shuffle(v, Ints16{8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7}));
  v = max16(v, __builtin_shuffle(v, Ints16{4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11}));
  v = max16(v, __builtin_shuffle(v, Ints16{2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13}));
  return max16(v, __builtin_shuffle(v, Ints16{1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14}));
}
__attribute__((always_inline)) inline float lane_sum(Floats16 v) {
  v += __builtin_shuffle(v, Ints16{8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7});
  v += __builtin_shuffle(v, Ints16{4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11});
  v += __builtin_shuffle(v, Ints16{2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13});
  v += __builtin_shuffle(v, Ints16{1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14});
  return v[0];
}

// Lanes of a row's last block past its length: `exclude` adds -inf there, `keep`
// multiplies by zero there, so whole vectors serve throughout.
struct TailMask {
  Floats16 exclude = {}, keep = {};
  TailMask(std::int64_t len, std::int64_t padded) {
    for (int l = 0; l < kLanes; ++l) {
      const bool inside = padded - kLanes + l < len;
      exclude[l] = inside ? 0.0f : -std::numeric_limits<float>::infinity();
      keep[l] = inside ? 1.0f : 0.0f;
    }
  }
};

// The unnormalized softmax of a row's first len scores, in place, of `padded` (a
// multiple of 16); the lanes past len come out zero. Returns 1 / the row's sum, which
// the context applies.
__attribute__((always_inline)) inline float exp_row(float* row, std::int64_t padded, const TailMask& tail) {
  const std::int64_t last = padded - kLanes;
  Floats16 row_max = load16(row + last) + tail.exclude;
  for (std::int64_t j = 0; j < last; j += kLanes) row_max = max16(row_max, load16(row + j));
  const Floats16 max_score = lane_max(row_max);
  Floats16 total = {};
  for (std::int64_t j = 0; j < padded; j += kLanes) {
    Floats16 e = fast_exp16(load16(row + j) - max_score);
    if (j == last) e *= tail.keep;
    store16(row + j, e);
    total += e;
  }
  return 1.0f / lane_sum(total);
}

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
__attribute__((always_inline)) inline void context_tile(const HeadView& h, const float* probs, const float* inverse,
                                                        std::int64_t padded, std::int64_t i0, int rows, std::int64_t d0) {
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
    for (int b = 0; b < B; ++b) store16(h.out + (i0 + r) * h.out_stride + d0 + b * kLanes, acc[r][b] * inverse[r]);
  }
}

// Rows i and i + s of the block swap their off-diagonal s x s blocks, for s = 8, 4, 2, 1:
// a 16 x 16 transpose in 64 two-source shuffles.
__attribute__((always_inline)) inline void transpose16x16(Floats16 (&m)[kLanes]) {
  auto stage = [&](int s, const Ints16& low, const Ints16& high) {
    for (int i = 0; i < kLanes; ++i) {
      if (i & s) continue;
      const Floats16 a = m[i], b = m[i + s];
      m[i] = __builtin_shuffle(a, b, low);
      m[i + s] = __builtin_shuffle(a, b, high);
    }
  };
  // low[l] = l's own lane of a where bit s of l is clear, else b's lane l - s;
  // high[l] = a's lane l + s where bit s is clear, else b's own lane l.
  stage(8, Ints16{0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23},
        Ints16{8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31});
  stage(4, Ints16{0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27},
        Ints16{4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31});
  stage(2, Ints16{0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29},
        Ints16{2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31});
  stage(1, Ints16{0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30},
        Ints16{1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31});
}

// kt[d][j] = K[j][d] * scale for j < len, zero up to `padded`: sixteen keys by sixteen
// dimensions at a time through registers (a scalar copy reads K down its columns); the
// dimensions past the last multiple of 16 one by one.
__attribute__((always_inline)) inline void transpose_scaled_keys(const HeadView& h, std::int64_t padded, float* kt) {
  const std::int64_t len = h.len, dim = h.head_dim;
  const std::int64_t whole_dims = dim / kLanes * kLanes;
  for (std::int64_t j0 = 0; j0 < padded; j0 += kLanes) {
    for (std::int64_t d0 = 0; d0 < whole_dims; d0 += kLanes) {
      Floats16 block[kLanes];
      for (int l = 0; l < kLanes; ++l) {
        block[l] = j0 + l < len ? load16(h.k + (j0 + l) * h.stride + d0) * h.scale : Floats16{};
      }
      transpose16x16(block);
      for (int l = 0; l < kLanes; ++l) store16(kt + (d0 + l) * padded + j0, block[l]);
    }
  }
  for (std::int64_t d = whole_dims; d < dim; ++d) {
    float* row = kt + d * padded;
    for (std::int64_t j = 0; j < len; ++j) row[j] = h.k[j * h.stride + d] * h.scale;
    std::fill(row + len, row + padded, 0.0f);
  }
}

// softmax(Q K^T * scale) V for one head of one sequence, R queries at a time. K is first
// copied transposed and scaled into `kt` (head_dim rows of `padded` keys), so scores
// come sixteen keys at a time with no horizontal sums. `scores` holds R * padded floats;
// the context sums unnormalized exponentials and scales each result by 1 / the row's sum.
template <int R>
__attribute__((always_inline)) inline void attend_one_head(const HeadView& h, float* kt, float* scores) {
  const std::int64_t len = h.len, dim = h.head_dim;
  const std::int64_t padded = (len + kLanes - 1) / kLanes * kLanes;
  transpose_scaled_keys(h, padded, kt);
  const TailMask tail(len, padded);
  for (std::int64_t i0 = 0; i0 < len; i0 += R) {
    const int rows = static_cast<int>(std::min<std::int64_t>(R, len - i0));
    std::int64_t block = 0;
    for (; block + 2 * kLanes <= padded; block += 2 * kLanes) score_tile<R, 2>(h, kt, padded, i0, rows, block, scores);
    if (block < padded) score_tile<R, 1>(h, kt, padded, i0, rows, block, scores);

    float inverse[R];
    for (int r = 0; r < rows; ++r) inverse[r] = exp_row(scores + r * padded, padded, tail);

    std::int64_t d0 = 0;
    for (; d0 + 2 * kLanes <= dim; d0 += 2 * kLanes) context_tile<R, 2>(h, scores, inverse, padded, i0, rows, d0);
    if (d0 + kLanes <= dim) {
      context_tile<R, 1>(h, scores, inverse, padded, i0, rows, d0);
      d0 += kLanes;
    }
    for (int r = 0; r < rows; ++r) {
      for (std::int64_t d = d0; d < dim; ++d) {
        float acc = 0.0f;
        for (std::int64_t j = 0; j < len; ++j) acc += scores[r * padded + j] * h.v[j * h.stride + d];
        h.out[(i0 + r) * h.out_stride + d] = acc * inverse[r];
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

}  // namespace geoalign::ops

namespace geoalign::cpu {

void attend_sequences(const float* qkv, std::span<const std::int32_t> cu_seqlens, std::int64_t num_heads,
                      std::int64_t hidden, float* y) {
  const std::int64_t head_dim = hidden / num_heads;
  const std::int64_t stride = 3 * hidden;
  const std::int64_t sequences = static_cast<std::int64_t>(cu_seqlens.size()) - 1;
  const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  const auto kernel = pick_kernel<ops::HeadKernel>(ops::attend_baseline, ops::attend_avx2, ops::attend_avx512);

  // Whole sequences at a time: a batch comes sorted by length, so equal shares would
  // leave one thread all the long sequences.
  parallel_for_dynamic(sequences * num_heads, num_heads, [&](std::int64_t task) {
    const std::int64_t s = task / num_heads;
    const std::int64_t head = task % num_heads;
    const std::int64_t first = cu_seqlens[s];
    const std::int64_t len = cu_seqlens[s + 1] - first;
    if (len == 0) return;
    const std::int64_t padded = (len + 15) / 16 * 16;
    // Grown, never shrunk: resizing up again would zero the new part for nothing.
    thread_local std::vector<float> scratch;
    const auto needed = static_cast<std::size_t>(padded * (head_dim + ops::kQueriesAvx512));
    if (scratch.size() < needed) scratch.resize(needed);
    const float* q0 = qkv + first * stride + head * head_dim;
    const ops::HeadView view{q0, q0 + hidden, q0 + 2 * hidden, stride, len, head_dim, scale,
                        y + first * hidden + head * head_dim, hidden};
    kernel(view, scratch.data(), scratch.data() + padded * head_dim);
  });
}

}  // namespace geoalign::cpu

namespace geoalign::ops {

template <>
void attention<Device::CPU>(const Tensor& qkv, std::span<const std::int32_t> cu_seqlens, std::int64_t num_heads,
                            Tensor& out) {
  cpu::attend_sequences(qkv.data<float>(), cu_seqlens, num_heads, out.dim(1), out.data<float>());
}

}  // namespace geoalign::ops
