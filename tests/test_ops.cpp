// Every op against a plain scalar reference written here, in the manner of llama.cpp's
// test-backend-ops: the CPU's kernels on every ISA level. The ops on every device are in
// test_device_ops.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "backend/cpu/bf16.h"
#include "backend/cpu/epilogue.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/linear_kernels.h"
#include "backend/cpu/quantize.h"
#include "backend/cpu/rank.h"
#include "backend/ops/attention.h"
#include "backend/ops/embedding.h"
#include "backend/ops/layer_norm.h"
#include "backend/ops/linear.h"
#include "backend/ops/pooling.h"
#include "backend/ops/softmax.h"
#include "support/numeric.h"

namespace geoalign::ops {
namespace {

using testing::activate;
using testing::expect_close;
using testing::random_values;

class OpsTest : public ::testing::TestWithParam<Device> {};

// x [rows, in] through a Linear with weight w [out, in] and bias b.
std::vector<float> run_linear(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& b,
                              std::int64_t rows, Activation a, MatmulPrecision precision = MatmulPrecision::FP32) {
  const auto out = static_cast<std::int64_t>(b.size()), in = static_cast<std::int64_t>(x.size()) / rows;
  const Linear linear(Tensor::from_vector({out, in}, w), Tensor::from_vector({out}, b), a, precision);
  Tensor y;
  linear(Tensor::from_vector({rows, in}, x), y);
  EXPECT_EQ(y.shape(), (Shape{rows, out}));
  return y.to_vector();
}

// The exact pre-activation x W^T + b, in double.
std::vector<double> exact_linear(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& b,
                                 std::int64_t rows) {
  const auto out = static_cast<std::int64_t>(b.size()), in = static_cast<std::int64_t>(x.size()) / rows;
  std::vector<double> acc(static_cast<std::size_t>(rows * out));
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t o = 0; o < out; ++o) {
      double sum = b[o];
      for (std::int64_t k = 0; k < in; ++k) sum += static_cast<double>(x[r * in + k]) * w[o * in + k];
      acc[r * out + o] = sum;
    }
  }
  return acc;
}

TEST_P(OpsTest, LinearWithEveryActivation) {
  const std::int64_t rows = 9, in = 37, out = 13;
  const auto x = random_values(rows * in, 1), w = random_values(out * in, 2, 0.3f), b = random_values(out, 3);
  const auto exact = exact_linear(x, w, b, rows);
  for (Activation a : {Activation::None, Activation::Gelu, Activation::GeluTanh, Activation::Relu, Activation::Tanh}) {
    std::vector<float> want;
    for (double v : exact) want.push_back(activate(static_cast<float>(v), a));
    expect_close(run_linear(x, w, b, rows, a), want, 1e-5f);
  }
}

// Int8 against the exact fp32 product: every output must lie within the error that
// rounding x and W to their quantization grids can cause, sum_k |x_k| dW + |W_k| dx + dx dW
// (dW, dx: half a grid step; x has one scale per row), times the activation's steepest slope.
TEST_P(OpsTest, Int8LinearStaysWithinItsQuantizationBound) {
  const std::int64_t rows = 11, in = 64, out = 24;
  const auto x = random_values(rows * in, 4), w = random_values(out * in, 5, 0.2f), b = random_values(out, 6);
  const auto exact = exact_linear(x, w, b, rows);
  for (Activation a : {Activation::None, Activation::Gelu}) {
    const auto got = run_linear(x, w, b, rows, a, MatmulPrecision::INT8);
    const double slope = a == Activation::Gelu ? 1.13 : 1.0;
    for (std::int64_t o = 0; o < out; ++o) {
      float w_max = 0;
      for (std::int64_t k = 0; k < in; ++k) w_max = std::max(w_max, std::abs(w[o * in + k]));
      const double dw = w_max / static_cast<double>(cpu::int8_weight_levels()) / 2.0;
      for (std::int64_t r = 0; r < rows; ++r) {
        float x_max = 0;
        for (std::int64_t k = 0; k < in; ++k) x_max = std::max(x_max, std::abs(x[r * in + k]));
        const double dx = x_max / 127.0 / 2.0;
        double bound = 0;
        for (std::int64_t k = 0; k < in; ++k) {
          bound += std::abs(x[r * in + k]) * dw + std::abs(w[o * in + k]) * dx + dx * dw;
        }
        const double want = activate(static_cast<float>(exact[r * out + o]), a);
        ASSERT_LE(std::abs(got[r * out + o] - want), slope * bound + 1e-5) << "row " << r << " col " << o;
      }
    }
  }
}

// bf16 against the exact product: rounding x and W to 8 significant bits each moves a
// product by at most 2^-7 of its size, so every output lies within 2^-7 sum_k |x_k W_k|
// (plus fp32 accumulation), times the activation's steepest slope. Runs whichever bf16
// kernel this CPU has: oneDNN's native one, or fp32 on bf16-rounded weights.
TEST_P(OpsTest, Bf16LinearStaysWithinItsRoundingBound) {
  const std::int64_t rows = 13, in = 96, out = 40;
  const auto x = random_values(rows * in, 7), w = random_values(out * in, 8, 0.2f), b = random_values(out, 9);
  const auto exact = exact_linear(x, w, b, rows);
  for (Activation a : {Activation::None, Activation::Gelu}) {
    const auto got = run_linear(x, w, b, rows, a, MatmulPrecision::BF16);
    const double slope = a == Activation::Gelu ? 1.13 : 1.0;
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t o = 0; o < out; ++o) {
        double magnitude = 0;
        for (std::int64_t k = 0; k < in; ++k) magnitude += std::abs(static_cast<double>(x[r * in + k]) * w[o * in + k]);
        const double want = activate(static_cast<float>(exact[r * out + o]), a);
        ASSERT_LE(std::abs(got[r * out + o] - want), slope * magnitude * 0x1p-7 + 1e-5) << "row " << r << " col " << o;
      }
    }
  }
}

TEST_P(OpsTest, Bf16LinearUsesTheNativeKernelWhereTheCpuHasOne) {
  const Linear linear(Tensor::from_vector({8, 32}, random_values(8 * 32, 3)), Tensor({8}), Activation::None,
                      MatmulPrecision::BF16);
  const bool emulated = linear.kernel().rfind("bf16 weights on ", 0) == 0;
  EXPECT_EQ(emulated, !cpu::native_bf16_matmul()) << linear.kernel();
}

// The vector conversion must round exactly as the scalar reference does: to nearest,
// ties to even, NaN kept NaN. Denormals are left out: AVX512-BF16 flushes them to zero.
TEST(Bf16Conversion, EveryIsaRoundsToNearestEven) {
  std::vector<float> values = random_values(100003, 12, 1e3f);
  const float specials[] = {0.0f, -0.0f, 1.0f, 1.00390625f, 1.01171875f, 3.0e38f, -3.0e38f,
                            std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(), 65504.0f, 1e-30f};
  values.insert(values.begin() + 17, std::begin(specials), std::end(specials));
  EXPECT_EQ(cpu::to_bf16(1.00390625f), 0x3f80);  // a tie rounds to the even 1.0
  EXPECT_EQ(cpu::to_bf16(1.01171875f), 0x3f82);  // and this tie up to the even neighbour
  for (cpu::Isa isa : {cpu::Isa::Avx512Bf16, cpu::Isa::Avx2, cpu::Isa::Baseline}) {
    cpu::limit_isa(isa);
    std::vector<std::uint16_t> got(values.size());
    cpu::to_bf16(values.data(), got.data(), static_cast<std::int64_t>(values.size()));
    for (std::size_t i = 0; i < values.size(); ++i) {
      const float back = cpu::from_bf16(got[i]);
      if (std::isnan(values[i])) {
        ASSERT_TRUE(std::isnan(back)) << i;
        continue;
      }
      ASSERT_EQ(got[i], cpu::to_bf16(values[i])) << cpu::isa_name(isa) << " value " << values[i];
      if (std::isinf(values[i])) ASSERT_EQ(back, values[i]);
      else ASSERT_LE(std::abs(back - values[i]), std::abs(values[i]) * 0x1p-8f) << values[i];
    }
  }
  cpu::limit_isa(cpu::Isa::Avx512Bf16);
}

// Linear runs rows in fixed-size chunks with a padded remainder (RowChunkedMatmul); a
// row's result must not depend on how many rows share the call, in any precision (int8
// scales each row by itself). Row counts straddle the bucket edges (chunks of 256 rows,
// 64 for int8); from four chunks up each thread runs an equal share of the rows, each
// oneDNN call single-threaded, int8's quantization and epilogue on the same thread.
TEST_P(OpsTest, LinearRowsDoNotDependOnTheBatch) {
  const std::int64_t in = 48, out = 20, total = 1500;
  const auto x = random_values(total * in, 13), w = random_values(out * in, 14, 0.2f), b = random_values(out, 15);
  for (MatmulPrecision precision : {MatmulPrecision::FP32, MatmulPrecision::BF16, MatmulPrecision::INT8}) {
    const auto want = run_linear(x, w, b, total, Activation::Gelu, precision);
    for (std::int64_t rows : {1, 15, 16, 17, 63, 64, 65, 100, 193, 255, 256, 257, 513, 1024, 1100}) {
      const std::int64_t first = total - rows;
      const std::vector<float> part(x.begin() + first * in, x.end());
      const std::vector<float> expected(want.begin() + first * out, want.end());
      expect_close(run_linear(part, w, b, rows, Activation::Gelu, precision), expected, 1e-5f);
    }
  }
}

// int8 quantization, every ISA, against the scalar definition: each row gets its own
// scale (its maximum over the levels: 127 for activations, 63 for weights without
// VNNI), values round to nearest-even, an all-zero row gets scale 1.
TEST(Int8Quantization, EveryIsaMatchesTheScalarDefinition) {
  const std::int64_t rows = 37, cols = 300;
  std::vector<float> x = random_values(rows * cols, 16, 2.0f);
  std::fill(x.begin() + 5 * cols, x.begin() + 6 * cols, 0.0f);
  x[7 * cols + 3] = 127.0f;
  x[7 * cols + 4] = 2.5f;  // a tie at this row's scale of 1: rounds to the even 2
  for (const int levels : {127, 63}) {
    for (cpu::Isa isa : {cpu::Isa::Avx512Bf16, cpu::Isa::Avx2, cpu::Isa::Baseline}) {
      cpu::limit_isa(isa);
      std::vector<std::int8_t> q(x.size());
      std::vector<float> scales(rows);
      cpu::quantize_rows_s8(x.data(), rows, cols, q.data(), scales.data(), levels);
      const auto l = static_cast<float>(levels);
      for (std::int64_t r = 0; r < rows; ++r) {
        float max = 0;
        for (std::int64_t c = 0; c < cols; ++c) max = std::max(max, std::abs(x[r * cols + c]));
        ASSERT_EQ(scales[r], max > 0 ? max / l : 1.0f) << cpu::isa_name(isa) << " row " << r;
        for (std::int64_t c = 0; c < cols; ++c) {
          const float want = max > 0 ? std::nearbyint(x[r * cols + c] * (l / max)) : 0.0f;
          ASSERT_EQ(q[r * cols + c], static_cast<std::int8_t>(want))
              << cpu::isa_name(isa) << ", " << levels << " levels, at " << r << "," << c;
        }
      }
      if (levels == 127) {
        EXPECT_EQ(q[7 * cols + 4], 2);
      }
    }
  }
  cpu::limit_isa(cpu::Isa::Avx512Bf16);
}

// Ranks against counting with std::lower_bound over a sorted copy, and the distinct keys
// with their counts against sort, unique and count, every ISA, with keys repeated, keys whose top bit is set (an unsigned order) and every length up to the limit.
TEST(RankKeys, EveryIsaCountsTheSmallerKeys) {
  std::mt19937_64 rng(3);
  for (std::size_t n = 0; n <= cpu::kMaxRanked + 6; ++n) {  // past the limit: the sort
    std::vector<std::uint64_t> keys(n);
    for (auto& k : keys) k = rng() % 4 == 0 && n > 1 ? keys[rng() % n] : rng();
    std::vector<std::uint64_t> sorted(keys);
    std::sort(sorted.begin(), sorted.end());
    for (cpu::Isa isa : {cpu::Isa::Avx512Bf16, cpu::Isa::Avx2, cpu::Isa::Baseline}) {
      cpu::limit_isa(isa);
      std::vector<std::uint64_t> ranks(n);
      if (n <= cpu::kMaxRanked) cpu::rank_keys(keys.data(), n, ranks.data());
      for (std::size_t i = 0; i < n && n <= cpu::kMaxRanked; ++i) {
        const auto want = static_cast<std::uint64_t>(std::lower_bound(sorted.begin(), sorted.end(), keys[i]) - sorted.begin());
        ASSERT_EQ(ranks[i], want) << cpu::isa_name(isa) << ", n " << n << ", key " << i;
      }
      std::vector<std::uint64_t> distinct(keys);
      std::vector<std::size_t> counts(n);
      distinct.resize(cpu::sort_distinct(distinct.data(), n, counts.data()));
      std::vector<std::uint64_t> want_distinct(sorted);
      want_distinct.erase(std::unique(want_distinct.begin(), want_distinct.end()), want_distinct.end());
      ASSERT_EQ(distinct, want_distinct) << cpu::isa_name(isa) << ", n " << n;
      for (std::size_t d = 0; d < distinct.size(); ++d) {
        ASSERT_EQ(counts[d], static_cast<std::size_t>(std::count(keys.begin(), keys.end(), distinct[d])))
            << cpu::isa_name(isa) << ", n " << n;
      }
    }
  }
  cpu::limit_isa(cpu::Isa::Avx512Bf16);
}

// The int8 epilogue (row scale, bias, activation) against std:: functions, every ISA.
TEST(LinearEpilogue, EveryIsaMatchesTheScalarDefinition) {
  const std::int64_t rows = 9, cols = 70;
  const auto y0 = random_values(rows * cols, 17, 3.0f), scales = random_values(rows, 18), bias = random_values(cols, 19);
  for (Activation a : {Activation::None, Activation::Gelu, Activation::GeluTanh, Activation::Relu, Activation::Tanh}) {
    for (cpu::Isa isa : {cpu::Isa::Avx512Bf16, cpu::Isa::Avx2, cpu::Isa::Baseline}) {
      cpu::limit_isa(isa);
      auto y = y0;
      cpu::scale_rows_add_bias_activate(y.data(), rows, cols, scales.data(), bias.data(), a);
      for (std::int64_t r = 0; r < rows; ++r) {
        for (std::int64_t c = 0; c < cols; ++c) {
          const float want = activate(y0[r * cols + c] * scales[r] + bias[c], a);
          ASSERT_NEAR(y[r * cols + c], want, 1e-6f * (1.0f + std::abs(want))) << cpu::isa_name(isa) << " " << r << "," << c;
        }
      }
    }
  }
  cpu::limit_isa(cpu::Isa::Avx512Bf16);
}

// GELU's erf is piecewise on AVX-512 (sixteen pieces on [0, 4)): every piece, each edge
// between pieces and the clamp at 4, on a dense grid, every ISA, against std::erf.
TEST(LinearEpilogue, GeluFollowsErfAcrossEveryPiece) {
  std::vector<float> v;
  for (int i = -60000; i <= 60000; ++i) v.push_back(static_cast<float>(i) * 2e-4f);  // [-12, 12]
  for (int piece = 0; piece <= 16; ++piece) {
    const float edge = static_cast<float>(piece) * 0.25f * 1.41421356f;
    for (float e : {std::nextafter(edge, 0.0f), edge, std::nextafter(edge, 10.0f)}) {
      v.push_back(e);
      v.push_back(-e);
    }
  }
  const std::vector<float> bias(v.size(), 0.0f);
  for (cpu::Isa isa : {cpu::Isa::Avx512Bf16, cpu::Isa::Avx2, cpu::Isa::Baseline}) {
    cpu::limit_isa(isa);
    auto y = v;
    const float scale = 1.0f;
    cpu::scale_rows_add_bias_activate(y.data(), 1, static_cast<std::int64_t>(y.size()), &scale, bias.data(),
                                      Activation::Gelu);
    for (std::size_t i = 0; i < v.size(); ++i) {
      const double x = v[i];
      const double want = 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
      ASSERT_NEAR(y[i], want, 2e-7 * std::max(1.0, std::abs(x))) << cpu::isa_name(isa) << " at " << v[i];
    }
  }
  cpu::limit_isa(cpu::Isa::Avx512Bf16);
}

TEST_P(OpsTest, LinearRejectsWrongWidth) {
  const Linear linear(Tensor({4, 3}), Tensor({4}));
  Tensor y;
  EXPECT_THROW(linear(Tensor({2, 5}), y), Error);
  EXPECT_THROW(Linear(Tensor({4, 3}), Tensor({3})), Error);
}

// bench and profile read LinearClock: it counts linear layers' time only while enabled.
TEST(LinearClock, CountsOnlyWhileEnabled) {
  const Linear linear(Tensor({64, 64}), Tensor({64}));
  Tensor y;
  LinearClock::reset();
  linear(Tensor({256, 64}), y);
  EXPECT_EQ(LinearClock::seconds(), 0.0);
  LinearClock::enable(true);
  for (int i = 0; i < 20; ++i) linear(Tensor({256, 64}), y);
  LinearClock::enable(false);
  const double counted = LinearClock::seconds();
  EXPECT_GT(counted, 0.0);
  linear(Tensor({256, 64}), y);
  EXPECT_EQ(LinearClock::seconds(), counted);
  LinearClock::reset();
  EXPECT_EQ(LinearClock::seconds(), 0.0);
}

// Attention over a padded batch with Hugging Face's additive mask, the reference for
// the padding-free kernel.
std::vector<float> padded_attention(const std::vector<float>& qkv, const std::vector<std::int32_t>& cu, int heads,
                                    int hidden) {
  const int d = hidden / heads;
  std::vector<float> out(qkv.size() / 3);
  const std::size_t seqs = cu.size() - 1;
  int max_len = 0;
  for (std::size_t s = 0; s < seqs; ++s) max_len = std::max(max_len, cu[s + 1] - cu[s]);
  for (std::size_t s = 0; s < seqs; ++s) {
    const int len = cu[s + 1] - cu[s];
    for (int h = 0; h < heads; ++h) {
      for (int i = 0; i < len; ++i) {
        std::vector<double> scores(max_len);
        double mx = -1e300;
        for (int j = 0; j < max_len; ++j) {
          double dot = 0;
          if (j < len) {
            for (int k = 0; k < d; ++k) {
              dot += static_cast<double>(qkv[(cu[s] + i) * 3 * hidden + h * d + k]) *
                     qkv[(cu[s] + j) * 3 * hidden + hidden + h * d + k];
            }
          }
          scores[j] = dot / std::sqrt(static_cast<double>(d)) + (j < len ? 0.0 : std::numeric_limits<float>::lowest());
          mx = std::max(mx, scores[j]);
        }
        double total = 0;
        for (double& v : scores) total += v = std::exp(v - mx);
        for (int k = 0; k < d; ++k) {
          double acc = 0;
          for (int j = 0; j < len; ++j) acc += scores[j] / total * qkv[(cu[s] + j) * 3 * hidden + 2 * hidden + h * d + k];
          out[(cu[s] + i) * hidden + h * d + k] = static_cast<float>(acc);
        }
      }
    }
  }
  return out;
}

// Head sizes that are and are not multiples of the kernels' 16-lane blocks (64, 32, 20),
// and sequence lengths on both sides of them.
TEST_P(OpsTest, RaggedAttentionEqualsPaddedMaskedAttentionOnEveryIsa) {
  const std::vector<std::int32_t> cu = {0, 3, 4, 11, 18, 75, 91, 124};
  for (const auto& [heads, hidden] : {std::pair{4, 128}, std::pair{2, 128}, std::pair{3, 60}}) {
    const auto qkv = random_values(124 * 3 * hidden, 8);
    const auto want = padded_attention(qkv, cu, heads, hidden);
    for (cpu::Isa isa : {cpu::Isa::Avx512Bf16, cpu::Isa::Avx2, cpu::Isa::Baseline}) {
      cpu::limit_isa(isa);
      Tensor out;
      attention(Tensor::from_vector({124, 3 * hidden}, qkv), cu, heads, out);
      expect_close(out.to_vector(), want, 1e-5f);
    }
  }
  cpu::limit_isa(cpu::Isa::Avx512Bf16);
}

// chain and self_attention may run their steps over blocks of rows, each block through
// every step on one thread (the CPU, from two 64-row blocks per thread up); the result
// must be the steps' one after another, in every precision, below and above that size.
TEST_P(OpsTest, ChainedLinearLayersEqualTheLayersOneAfterAnother) {
  const std::int64_t in = 40, between = 96, out = 24, total = 700;
  const auto x = random_values(total * in, 21), w1 = random_values(between * in, 22, 0.2f),
             b1 = random_values(between, 23), w2 = random_values(out * between, 24, 0.2f),
             b2 = random_values(out, 25);
  for (MatmulPrecision precision : {MatmulPrecision::FP32, MatmulPrecision::BF16, MatmulPrecision::INT8}) {
    const Linear first(Tensor::from_vector({between, in}, w1), Tensor::from_vector({between}, b1), Activation::Gelu,
                       precision);
    const Linear second(Tensor::from_vector({out, between}, w2), Tensor::from_vector({out}, b2), Activation::None,
                        precision);
    for (std::int64_t rows : {1, 100, 127, 128, 129, 300, 700}) {
      const Tensor input = Tensor::from_vector({rows, in}, std::vector<float>(x.begin(), x.begin() + rows * in));
      Tensor mid, want, got, unused;
      first(input, mid);
      second(mid, want);
      chain(first, second, input, unused, got);
      ASSERT_EQ(got.shape(), (Shape{rows, out}));
      expect_close(got.to_vector(), want.to_vector(), 1e-5f);
    }
  }
}

TEST_P(OpsTest, SelfAttentionEqualsItsStepsOneAfterAnother) {
  const std::int64_t hidden = 48, heads = 4;
  const auto w_in = random_values(3 * hidden * hidden, 31, 0.2f), b_in = random_values(3 * hidden, 32),
             w_out = random_values(hidden * hidden, 33, 0.2f), b_out = random_values(hidden, 34);
  // One sequence; a few short ones; many sequences of mixed length, past two blocks per
  // thread; a sequence longer than a block.
  const std::vector<std::vector<std::int32_t>> batches = {
      {0, 40}, {0, 3, 4, 11}, {0, 3, 4, 11, 18, 75, 91, 124, 160, 199, 240, 281, 300, 341, 390, 431, 470},
      {0, 5, 300, 310}};
  for (MatmulPrecision precision : {MatmulPrecision::FP32, MatmulPrecision::BF16, MatmulPrecision::INT8}) {
    const Linear qkv(Tensor::from_vector({3 * hidden, hidden}, w_in), Tensor::from_vector({3 * hidden}, b_in),
                     Activation::None, precision);
    const Linear output(Tensor::from_vector({hidden, hidden}, w_out), Tensor::from_vector({hidden}, b_out),
                        Activation::None, precision);
    for (const auto& cu : batches) {
      const std::int64_t rows = cu.back();
      const Tensor x = Tensor::from_vector({rows, hidden}, random_values(rows * hidden, 35));
      Tensor projected, context, want, got;
      qkv(x, projected);
      attention(projected, cu, heads, context);
      output(context, want);
      self_attention(qkv, output, x, cu, heads, projected, context, got);
      ASSERT_EQ(got.shape(), (Shape{rows, hidden}));
      expect_close(got.to_vector(), want.to_vector(), 1e-5f);
    }
  }
}

TEST_P(OpsTest, AttentionRejectsBadSeqlens) {
  Tensor out;
  const std::vector<std::int32_t> bad = {0, 5, 3};
  EXPECT_THROW(attention(Tensor({3, 24}), bad, 2, out), Error);
  const std::vector<std::int32_t> short_total = {0, 2};
  EXPECT_THROW(attention(Tensor({3, 24}), short_total, 2, out), Error);
}

TEST_P(OpsTest, EmbeddingSumsThreeTables) {
  const std::int64_t hidden = 6;
  const auto word = random_values(10 * hidden, 9), pos = random_values(4 * hidden, 10), type = random_values(2 * hidden, 11);
  const Tensor tw = Tensor::from_vector({10, hidden}, word), tp = Tensor::from_vector({4, hidden}, pos),
               tt = Tensor::from_vector({2, hidden}, type);
  const std::vector<std::int32_t> ids = {3, 9, 0}, types = {0, 1, 1}, positions = {0, 1, 2};
  Tensor out;
  embed_tokens(Tensor::from_vector({3}, ids), Tensor::from_vector({3}, types), Tensor::from_vector({3}, positions),
               {tw, tp, tt}, out);
  std::vector<float> want;
  for (int t = 0; t < 3; ++t) {
    for (int h = 0; h < hidden; ++h) want.push_back(word[ids[t] * hidden + h] + type[types[t] * hidden + h] + pos[positions[t] * hidden + h]);
  }
  expect_close(out.to_vector(), want, 1e-6f);

  const std::vector<std::int32_t> bad_ids = {3, 10, 0};
  EXPECT_THROW(embed_tokens(Tensor::from_vector({3}, bad_ids), Tensor::from_vector({3}, types),
                            Tensor::from_vector({3}, positions), {tw, tp, tt}, out),
               Error);
}

INSTANTIATE_TEST_SUITE_P(Devices, OpsTest, ::testing::Values(Device::CPU),
                         [](const auto& param_info) { return std::string(device_name(param_info.param)); });

}  // namespace
}  // namespace geoalign::ops
