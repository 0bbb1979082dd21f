// Ops with a kernel on every device this build has, each against one plain reference,
// as llama.cpp's test-backend-ops does. Its own executable, linking no more than these ops
// need, so that tools/gpu/check.sh can carry it to a GPU machine with few libraries.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "backend/cpu/isa.h"
#include "backend/ops/attention.h"
#include "backend/ops/concat.h"
#include "backend/ops/embedding.h"
#include "backend/ops/layer_norm.h"
#include "backend/ops/linear.h"
#include "backend/ops/normalize.h"
#include "backend/ops/pooling.h"
#include "backend/ops/softmax.h"
#include "model/bert_encoder.h"
#include "model/config.h"
#include "model/safetensors.h"
#ifdef GEOALIGN_WITH_CUDA
#include "backend/cuda/device_probe.h"
#endif
#include "support/gpu.h"
#include "support/numeric.h"
#include "support/temp_dir.h"

namespace geoalign::ops {
namespace {

using testing::activate;
using testing::expect_close;
using testing::random_values;

// A device without its hardware here skips, saying why.
class DeviceOpsTest : public ::testing::TestWithParam<Device> {
 protected:
  void SetUp() override {
#ifdef GEOALIGN_WITH_CUDA
    if (GetParam() == Device::CUDA && cuda::probe().devices == 0) {
      GTEST_SKIP() << "no usable CUDA device: " << cuda::probe().reason;
    }
#endif
  }
  template <typename T>
  Tensor on_device(Shape shape, const std::vector<T>& values) const {
    return Tensor::from_vector(std::move(shape), values).to(GetParam());
  }
};

TEST_P(DeviceOpsTest, TensorCopiesToTheDeviceAndBack) {
  const std::vector<float> values = {1.5f, -2.0f, 3.25f, 0.0f, 7.0f, -8.5f};
  const Tensor host = Tensor::from_vector({2, 3}, values);
  const Tensor there = host.to(GetParam());
  EXPECT_EQ(there.device(), GetParam());
  EXPECT_EQ(there.shape(), host.shape());
  EXPECT_EQ(there.to_vector(), values);
  EXPECT_EQ(there.to(Device::CPU).to_vector(), values);
  EXPECT_EQ(there.to(GetParam()).to_vector(), values);
  EXPECT_EQ(Tensor({0, 3}, DType::F32, GetParam()).to_vector(), std::vector<float>{});
}

// fp32 to a relative 1e-5; bf16 within what rounding both operands to bf16 can move a
// sum (2^-8 each, times the sum of |x w|), times the activation's steepest slope.
TEST_P(DeviceOpsTest, LinearWithEveryActivationAndPrecision) {
  const std::int64_t rows = 13, in = 96, out = 40;
  const auto x = random_values(rows * in, 7), w = random_values(out * in, 8, 0.2f), b = random_values(out, 9);
  for (MatmulPrecision precision : {MatmulPrecision::FP32, MatmulPrecision::BF16}) {
    for (Activation a : {Activation::None, Activation::Gelu, Activation::GeluTanh, Activation::Relu, Activation::Tanh}) {
      const Linear linear(on_device({out, in}, w), on_device({out}, b), a, precision);
      Tensor y;
      linear(on_device({rows, in}, x), y);
      ASSERT_EQ(y.device(), GetParam());
      ASSERT_EQ(y.shape(), (Shape{rows, out}));
      const auto got = y.to_vector();
      for (std::int64_t r = 0; r < rows; ++r) {
        for (std::int64_t o = 0; o < out; ++o) {
          double exact = b[o], magnitude = 0;
          for (std::int64_t k = 0; k < in; ++k) {
            exact += double(x[r * in + k]) * w[o * in + k];
            magnitude += std::abs(double(x[r * in + k]) * w[o * in + k]);
          }
          const float want = activate(static_cast<float>(exact), a);
          // cuBLASLt's tanh-GELU epilogue may use the hardware's approximate tanh (2^-11); in
          // bf16 the GPU computes erf-GELU with it too, 4.7e-4 from erf's at most.
          const bool tanh_form = a == Activation::GeluTanh || (a == Activation::Gelu &&
                                                                precision == MatmulPrecision::BF16 &&
                                                                GetParam() == Device::CUDA);
          const double approximation = tanh_form ? 1e-3 + 4.8e-4 : 0.0;
          const double bound = approximation + (precision == MatmulPrecision::FP32 ? 1e-5 * (1.0 + magnitude)
                                                                                   : 1.13 * magnitude * 0x1p-7 + 1e-5);
          ASSERT_LE(std::abs(got[r * out + o] - want), bound)
              << matmul_precision_name(precision) << " activation " << int(a) << " row " << r << " col " << o << " "
              << linear.kernel();
        }
      }
    }
  }
}

TEST_P(DeviceOpsTest, LinearOfNoRowsIsEmpty) {
  const Linear linear(on_device({2, 3}, std::vector<float>(6, 1.0f)), on_device({2}, std::vector<float>{1, 2}));
  Tensor y;
  linear(on_device({0, 3}, std::vector<float>{}), y);
  EXPECT_EQ(y.shape(), (Shape{0, 2}));
}

#ifdef GEOALIGN_WITH_CUDA
TEST(CudaLinear, Int8IsAClearError) {
  if (cuda::probe().devices == 0) GTEST_SKIP() << "no usable CUDA device: " << cuda::probe().reason;
  try {
    Linear(Tensor::from_vector({2, 3}, std::vector<float>(6, 1.0f)).to(Device::CUDA),
           Tensor::from_vector({2}, std::vector<float>{1, 2}).to(Device::CUDA), Activation::None, MatmulPrecision::INT8);
    FAIL() << "an int8 linear layer was built on the GPU";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("int8 has no CUDA kernel"), std::string::npos) << e.what();
  }
}
#endif

// The whole encoder and its classifier on the device against the CPU's fp32 path, which
// ModelParity checks against PyTorch: the fixture model on random token ids in three
// sequences of different lengths.
TEST_P(DeviceOpsTest, BertClassifiesAsOnTheCpu) {
  const auto dir = testing::fixture_model();
  const model::BertConfig config = model::load_model_config(dir).bert;
  const model::SafetensorsFile file = model::SafetensorsFile::open(dir / "model.safetensors");
  const model::BertWeightReader weights(file);

  runtime::TokenBatch batch;
  batch.cu_seqlens = {0, 7, 8, 20};
  std::mt19937 rng(5);
  std::vector<std::int32_t> ids, types, positions;
  for (std::size_t s = 0; s + 1 < batch.cu_seqlens.size(); ++s) {
    for (std::int32_t t = batch.cu_seqlens[s]; t < batch.cu_seqlens[s + 1]; ++t) {
      ids.push_back(static_cast<std::int32_t>(rng() % static_cast<std::uint32_t>(config.vocab_size)));
      types.push_back(t - batch.cu_seqlens[s] > 3 ? 1 : 0);
      positions.push_back(t - batch.cu_seqlens[s]);
    }
  }
  const auto n = static_cast<std::int64_t>(ids.size());
  batch.input_ids = Tensor::from_vector({n}, ids);
  batch.token_type_ids = Tensor::from_vector({n}, types);
  batch.position_ids = Tensor::from_vector({n}, positions);

  const auto cpu = model::BertModel::load(weights, config);
  model::BertModel::Workspace cpu_ws;
  Tensor want;
  cpu.classify(batch, cpu_ws, want);
  const auto want_hidden = cpu_ws.hidden.to_vector();

  // bf16 against fp32: the fixture's logits are small, so 0.02 holds its rounding.
  for (auto [precision, tolerance] : {std::pair{MatmulPrecision::FP32, 1e-4f}, std::pair{MatmulPrecision::BF16, 2e-2f}}) {
    const auto there = model::BertModel::load(weights, config, precision, GetParam());
    EXPECT_EQ(there.device(), GetParam());
    model::BertModel::Workspace ws;
    Tensor got;
    there.classify(batch, ws, got);
    EXPECT_EQ(got.device(), GetParam());
    expect_close(got.to_vector(), want.to_vector(), tolerance);
    if (precision == MatmulPrecision::FP32) expect_close(ws.hidden.to_vector(), want_hidden, tolerance);
  }
}

// Shapes past one pass of a block's threads (256): a 1000-wide row, a 300-token sequence
// with 64-wide heads, and the classifier's narrow output (3 columns, 1 row).
TEST_P(DeviceOpsTest, WideRowsLongSequencesAndNarrowOutputs) {
  const std::int64_t cols = 1000;
  const auto x = random_values(2 * cols, 31, 2.0f), g = random_values(cols, 32), b = random_values(cols, 33);
  std::vector<float> norm(2 * cols), soft(2 * cols);
  for (std::int64_t r = 0; r < 2; ++r) {
    double mean = 0, var = 0, best = -1e300, total = 0;
    for (std::int64_t c = 0; c < cols; ++c) mean += x[r * cols + c], best = std::max(best, double(x[r * cols + c]));
    mean /= cols;
    for (std::int64_t c = 0; c < cols; ++c) var += std::pow(x[r * cols + c] - mean, 2), total += std::exp(x[r * cols + c] - best);
    var /= cols;
    for (std::int64_t c = 0; c < cols; ++c) {
      norm[r * cols + c] = float((x[r * cols + c] - mean) / std::sqrt(var + 1e-12) * g[c] + b[c]);
      soft[r * cols + c] = float(std::exp(x[r * cols + c] - best) / total);
    }
  }
  Tensor t = on_device({2, cols}, x);
  layer_norm(t, nullptr, on_device({cols}, g), on_device({cols}, b), 1e-12f, t);  // y aliasing x
  expect_close(t.to_vector(), norm, 1e-4f);
  Tensor y;
  softmax(on_device({2, cols}, x), y);
  expect_close(y.to_vector(), soft, 1e-5f);

  // 300 tokens of one sequence and 2 of another; each query attends only to its own.
  const std::int64_t heads = 2, head_dim = 64, hidden = heads * head_dim;
  const std::vector<std::int32_t> cu = {0, 300, 302};
  const auto qkv = random_values(302 * 3 * hidden, 34, 0.3f);
  Tensor on_cpu, there;
  attention(Tensor::from_vector({302, 3 * hidden}, qkv), cu, heads, on_cpu);
  attention(on_device({302, 3 * hidden}, qkv), cu, heads, there);
  expect_close(there.to_vector(), on_cpu.to_vector(), 1e-4f);

  const auto w = random_values(3 * 64, 35), bias = random_values(3, 36), row = random_values(64, 37);
  const Linear classifier(on_device({3, 64}, w), on_device({3}, bias));
  classifier(on_device({1, 64}, row), y);
  std::vector<float> want(3);
  for (int o = 0; o < 3; ++o) {
    double sum = bias[o];
    for (int k = 0; k < 64; ++k) sum += double(row[k]) * w[o * 64 + k];
    want[o] = float(sum);
  }
  expect_close(y.to_vector(), want, 1e-5f);
}

TEST_P(DeviceOpsTest, InputsOnMixedDevicesAreRejected) {
  if (GetParam() == Device::CPU) GTEST_SKIP() << "one device: nothing to mix";
  const Tensor ids = Tensor::from_vector({1}, std::vector<std::int32_t>{0});  // on the host
  const Tensor table = on_device({2, 4}, std::vector<float>(8, 1.0f));
  Tensor out;
  EXPECT_THROW(embed_tokens(ids, ids, ids, {table, table, table}, out), Error);
  const Linear linear(on_device({2, 4}, std::vector<float>(8, 1.0f)), on_device({2}, std::vector<float>{0, 0}));
  EXPECT_THROW(linear(Tensor::from_vector({1, 4}, std::vector<float>(4, 1.0f)), out), Error);
}

#ifdef GEOALIGN_WITH_CUDA
const Device kBuildDevices[] = {Device::CPU, Device::CUDA};
#else
const Device kBuildDevices[] = {Device::CPU};
#endif

// Three sequences of different lengths (one of a single token), two heads of 8.
TEST_P(DeviceOpsTest, AttentionStaysWithinEachSequence) {
  const std::int64_t heads = 2, head_dim = 8, hidden = heads * head_dim;
  const std::vector<std::int32_t> cu = {0, 5, 6, 13};
  const std::int64_t tokens = cu.back();
  const auto qkv = random_values(tokens * 3 * hidden, 11);
  std::vector<float> want(tokens * hidden);
  for (std::size_t s = 0; s + 1 < cu.size(); ++s) {
    for (std::int64_t h = 0; h < heads; ++h) {
      for (std::int64_t i = cu[s]; i < cu[s + 1]; ++i) {
        std::vector<double> p;
        double best = -1e300, total = 0;
        for (std::int64_t j = cu[s]; j < cu[s + 1]; ++j) {
          double dot = 0;
          for (std::int64_t d = 0; d < head_dim; ++d) {
            dot += double(qkv[i * 3 * hidden + h * head_dim + d]) * qkv[j * 3 * hidden + hidden + h * head_dim + d];
          }
          p.push_back(dot / std::sqrt(double(head_dim)));
          best = std::max(best, p.back());
        }
        for (double& v : p) total += v = std::exp(v - best);
        for (std::int64_t d = 0; d < head_dim; ++d) {
          double sum = 0;
          for (std::int64_t j = cu[s]; j < cu[s + 1]; ++j) {
            sum += p[j - cu[s]] * qkv[j * 3 * hidden + 2 * hidden + h * head_dim + d];
          }
          want[i * hidden + h * head_dim + d] = float(sum / total);
        }
      }
    }
  }
  Tensor out;
  attention(on_device({tokens, 3 * hidden}, qkv), cu, heads, out);
  EXPECT_EQ(out.device(), GetParam());
  expect_close(out.to_vector(), want, 1e-4f);
}

// Against the CPU's attention (checked above against a plain reference): 70 sequences of 1
// to 70 tokens with heads of 32 (queries past one block's chunk of 32), then one sequence
// too long for its keys and values to fit in a GPU block's shared memory (500 tokens of a
// 64-wide head: 267 KB, over Hopper's 227 KB), and heads of 6, both of which take the GPU's
// other kernel.
TEST_P(DeviceOpsTest, AttentionOverManySequencesAndOneTooLongForSharedMemory) {
  const auto check = [&](std::int64_t heads, std::int64_t head_dim, const std::vector<std::int32_t>& cu) {
    const std::int64_t hidden = heads * head_dim, tokens = cu.back();
    const auto qkv = random_values(tokens * 3 * hidden, 41, 0.5f);
    Tensor want, got;
    attention(Tensor::from_vector({tokens, 3 * hidden}, qkv), cu, heads, want);
    attention(on_device({tokens, 3 * hidden}, qkv), cu, heads, got);
    expect_close(got.to_vector(), want.to_vector(), 1e-4f);
  };
  std::vector<std::int32_t> cu = {0};
  for (std::int32_t len = 1; len <= 70; ++len) cu.push_back(cu.back() + (len * 37) % 70 + 1);
  check(3, 32, cu);
  check(2, 64, {0, 500, 503});
  check(2, 6, {0, 7, 9});  // a head size the shared-memory kernel does not read (not a multiple of 4)
}

TEST_P(DeviceOpsTest, EmbeddingSumsThreeTablesAndRejectsIdsOutside) {
  const std::int64_t hidden = 6;
  const auto word = random_values(10 * hidden, 21), position = random_values(8 * hidden, 22),
             type = random_values(2 * hidden, 23);
  const Tensor tw = on_device({10, hidden}, word), tp = on_device({8, hidden}, position), tt = on_device({2, hidden}, type);
  const std::vector<std::int32_t> ids = {3, 9, 0}, types = {0, 1, 1}, positions = {0, 1, 7};
  Tensor out;
  embed_tokens(on_device({3}, ids), on_device({3}, types), on_device({3}, positions), {tw, tp, tt}, out);
  std::vector<float> want;
  for (std::size_t t = 0; t < ids.size(); ++t) {
    for (std::int64_t h = 0; h < hidden; ++h) {
      want.push_back((word[ids[t] * hidden + h] + type[types[t] * hidden + h]) + position[positions[t] * hidden + h]);
    }
  }
  EXPECT_EQ(out.to_vector(), want);  // the same additions in the same order: bit for bit
  const std::vector<std::int32_t> bad_ids = {3, 10, 0};
  try {
    embed_tokens(on_device({3}, bad_ids), on_device({3}, types), on_device({3}, positions), {tw, tp, tt}, out);
    FAIL() << "token id 10 of a 10-row table was embedded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("token id"), std::string::npos) << e.what();
  }
}

TEST_P(DeviceOpsTest, LayerNormWithResidualInPlace) {
  const std::int64_t rows = 5, hidden = 40;
  const auto x = random_values(rows * hidden, 4, 3.0f), r = random_values(rows * hidden, 5);
  const auto g = random_values(hidden, 6), b = random_values(hidden, 7);
  std::vector<float> want(rows * hidden);
  for (std::int64_t i = 0; i < rows; ++i) {
    double mean = 0, var = 0;
    for (std::int64_t h = 0; h < hidden; ++h) mean += x[i * hidden + h] + r[i * hidden + h];
    mean /= hidden;
    for (std::int64_t h = 0; h < hidden; ++h) var += std::pow(x[i * hidden + h] + r[i * hidden + h] - mean, 2);
    var /= hidden;
    for (std::int64_t h = 0; h < hidden; ++h) {
      want[i * hidden + h] =
          static_cast<float>((x[i * hidden + h] + r[i * hidden + h] - mean) / std::sqrt(var + 1e-12) * g[h] + b[h]);
    }
  }
  for (cpu::Isa isa : {cpu::Isa::Avx512Bf16, cpu::Isa::Avx2, cpu::Isa::Baseline}) {
    cpu::limit_isa(isa);
    Tensor residual = on_device({rows, hidden}, r);
    // The model writes the result over the residual stream; that aliasing must be safe.
    layer_norm(on_device({rows, hidden}, x), &residual, on_device({hidden}, g),
               on_device({hidden}, b), 1e-12f, residual);
    expect_close(residual.to_vector(), want, 1e-5f);
  }
  cpu::limit_isa(cpu::Isa::Avx512Bf16);
}

TEST_P(DeviceOpsTest, PoolingClsAndMean) {
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};  // 5 tokens x 2
  const std::vector<std::int32_t> cu = {0, 2, 5};
  Tensor out;
  pool(on_device({5, 2}, x), cu, Pooling::Cls, out);
  EXPECT_EQ(out.to_vector(), (std::vector<float>{1, 2, 5, 6}));
  pool(on_device({5, 2}, x), cu, Pooling::Mean, out);
  expect_close(out.to_vector(), {2, 3, 7, 8}, 1e-6f);
}

TEST_P(DeviceOpsTest, ConcatColumns) {
  std::vector<Tensor> parts;
  parts.push_back(on_device({2, 1}, std::vector<float>{1, 2}));
  parts.push_back(on_device({2, 3}, std::vector<float>{3, 4, 5, 6, 7, 8}));
  Tensor out;
  concat_columns(parts, out);
  EXPECT_EQ(out.shape(), (Shape{2, 4}));
  EXPECT_EQ(out.to_vector(), (std::vector<float>{1, 3, 4, 5, 2, 6, 7, 8}));

  parts.push_back(on_device({1, 1}, std::vector<float>{9}));
  EXPECT_THROW(concat_columns(parts, out), Error);
  EXPECT_THROW(concat_columns({}, out), Error);
}

TEST_P(DeviceOpsTest, L2NormalizeRows) {
  const std::int64_t rows = 5, cols = 37;
  auto values = random_values(static_cast<std::size_t>(rows * cols), 7, 3.0f);
  std::fill_n(values.begin() + 2 * cols, cols, 0.0f);  // a zero row stays zero, as in PyTorch
  std::vector<float> want(values.size());
  for (std::int64_t r = 0; r < rows; ++r) {
    double norm = 0;
    for (std::int64_t c = 0; c < cols; ++c) norm += double(values[r * cols + c]) * values[r * cols + c];
    norm = std::sqrt(norm);
    for (std::int64_t c = 0; c < cols; ++c) want[r * cols + c] = norm > 0 ? float(values[r * cols + c] / norm) : 0.0f;
  }
  Tensor x = on_device({rows, cols}, values);
  l2_normalize_rows(x);
  expect_close(x.to_vector(), want, 1e-6f);
  Tensor flat = on_device({3}, std::vector<float>{1, 2, 3});
  EXPECT_THROW(l2_normalize_rows(flat), Error);
}

TEST_P(DeviceOpsTest, SoftmaxRows) {
  Tensor y;
  softmax(on_device({2, 3}, std::vector<float>{1, 2, 3, 1000, 1000, 1000}), y);
  EXPECT_EQ(y.device(), GetParam());  // an output follows its input to the device
  const float e1 = std::exp(-2.0f), e2 = std::exp(-1.0f), total = e1 + e2 + 1.0f;
  expect_close(y.to_vector(), {e1 / total, e2 / total, 1.0f / total, 1.0f / 3, 1.0f / 3, 1.0f / 3}, 1e-6f);
}

INSTANTIATE_TEST_SUITE_P(Devices, DeviceOpsTest, ::testing::ValuesIn(kBuildDevices),
                         [](const auto& param_info) { return std::string(device_name(param_info.param)); });

// A CUDA tensor where this build or this machine has no CUDA is a clear error.
TEST(DeviceTensor, ACudaTensorWithoutCudaIsAClearError) {
  const std::string expected = testing::gpu_refusal();
  if (expected.empty()) GTEST_SKIP() << "this machine has a usable GPU";
  try {
    Tensor t({2, 2}, DType::F32, Device::CUDA);
    FAIL() << "a CUDA tensor was created";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
  EXPECT_THROW(Tensor({0}, DType::F32, Device::CUDA), Error);  // even when nothing would be allocated
}

}  // namespace
}  // namespace geoalign::ops
