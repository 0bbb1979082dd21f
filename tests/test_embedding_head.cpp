// The sentence-transformers embedding pipeline (modules.json) against the encoder's raw
// mean states, which test_model_parity checks against the PyTorch reference.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

#include "geoalign/error.h"
#include "geoalign/matcher.h"
#include "support/safetensors_writer.h"
#include "support/temp_dir.h"

namespace geoalign {
namespace {

using namespace geoalign::testing;
using nlohmann::json;

constexpr std::int64_t kHidden = 32;  // the fixture's hidden size

const std::vector<std::string>& addresses() {
  static const std::vector<std::string> a = {"北京市朝阳区建国路88号", "朝阳建国路88号北京", "杭州", "深圳市南山区科技园Ｂ栋３０１"};
  return a;
}

struct Dense {
  std::int64_t in, out;
  std::vector<float> weight, bias;
};

Dense random_dense(std::int64_t in, std::int64_t out, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 0.2f);
  Dense d{in, out, std::vector<float>(static_cast<std::size_t>(in * out)), std::vector<float>(static_cast<std::size_t>(out))};
  for (float& w : d.weight) w = normal(rng);
  for (float& b : d.bias) b = normal(rng);
  return d;
}

// Writes the modules of a sentence-transformers folder next to the fixture's encoder.
void write_modules(const std::filesystem::path& folder, const json& pooling, const std::vector<Dense>& dense,
                   bool normalize, const std::string& activation = "torch.nn.modules.linear.Identity") {
  json modules = json::array({{{"idx", 0}, {"name", "0"}, {"path", ""}, {"type", "sentence_transformers.models.Transformer"}},
                              {{"idx", 1}, {"name", "1"}, {"path", "1_Pooling"}, {"type", "sentence_transformers.models.Pooling"}}});
  std::filesystem::create_directories(folder / "1_Pooling");
  write_file(folder / "1_Pooling/config.json", pooling.dump());
  for (std::size_t i = 0; i < dense.size(); ++i) {
    const std::string dir = std::to_string(i + 2) + "_Dense";
    modules.push_back({{"idx", i + 2}, {"name", std::to_string(i + 2)}, {"path", dir}, {"type", "sentence_transformers.models.Dense"}});
    std::filesystem::create_directories(folder / dir);
    write_file(folder / dir / "config.json", json{{"in_features", dense[i].in}, {"out_features", dense[i].out},
                                                  {"bias", true}, {"activation_function", activation}}
                                                 .dump());
    write_file(folder / dir / "model.safetensors",
               safetensors_bytes({{"linear.weight", f32_tensor({dense[i].out, dense[i].in}, dense[i].weight)},
                                  {"linear.bias", f32_tensor({dense[i].out}, dense[i].bias)}}));
  }
  if (normalize) modules.push_back({{"path", "3_Normalize"}, {"type", "sentence_transformers.models.Normalize"}});
  write_file(folder / "modules.json", modules.dump());
}

json mean_pooling() { return {{"word_embedding_dimension", kHidden}, {"pooling_mode_mean_tokens", true}}; }

std::vector<float> dense_forward(const Dense& d, const std::vector<float>& x, bool tanh_activation = false) {
  std::vector<float> y(static_cast<std::size_t>(d.out));
  for (std::int64_t o = 0; o < d.out; ++o) {
    double sum = d.bias[static_cast<std::size_t>(o)];
    for (std::int64_t i = 0; i < d.in; ++i) sum += static_cast<double>(d.weight[static_cast<std::size_t>(o * d.in + i)]) * x[static_cast<std::size_t>(i)];
    y[static_cast<std::size_t>(o)] = static_cast<float>(tanh_activation ? std::tanh(sum) : sum);
  }
  return y;
}

std::vector<float> unit_length(std::vector<float> v) {
  double n = 0;
  for (float x : v) n += static_cast<double>(x) * x;
  for (float& x : v) x = static_cast<float>(x / std::sqrt(n));
  return v;
}

void expect_close(const std::vector<std::vector<float>>& got, const std::vector<std::vector<float>>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t r = 0; r < want.size(); ++r) {
    ASSERT_EQ(got[r].size(), want[r].size()) << "row " << r;
    for (std::size_t c = 0; c < want[r].size(); ++c) EXPECT_NEAR(got[r][c], want[r][c], 1e-4f) << "row " << r << " col " << c;
  }
}

TEST(EmbeddingHead, WithoutModulesTheModelPoolsTheMean) {
  const auto matcher = Matcher::load(fixture_model());
  expect_close(matcher.embed(addresses()), matcher.embed(addresses(), Pooling::Mean));
}

TEST(EmbeddingHead, PoolingDenseLayersAndNormalizationChain) {
  TempDir dir;
  const auto folder = copy_fixture_model(dir);
  const Dense first = random_dense(kHidden, 48, 1), second = random_dense(48, 16, 2);
  write_modules(folder, mean_pooling(), {first, second}, true);
  const auto raw = Matcher::load(fixture_model()).embed(addresses(), Pooling::Mean);
  std::vector<std::vector<float>> want;
  for (const auto& v : raw) want.push_back(unit_length(dense_forward(second, dense_forward(first, v))));

  const auto matcher = Matcher::load(folder);
  expect_close(matcher.embed(addresses()), want);
  // The raw poolings stay available.
  expect_close(matcher.embed(addresses(), Pooling::Mean), raw);
}

TEST(EmbeddingHead, ClsAndMeanConcatenateInSentenceTransformersOrder) {
  TempDir dir;
  const auto folder = copy_fixture_model(dir);
  const Dense dense = random_dense(2 * kHidden, 8, 3);
  write_modules(folder, {{"word_embedding_dimension", kHidden}, {"pooling_mode_cls_token", true}, {"pooling_mode_mean_tokens", true}},
                {dense}, false, "torch.nn.modules.activation.Tanh");
  const auto fixture = Matcher::load(fixture_model());
  const auto cls = fixture.embed(addresses(), Pooling::Cls), mean = fixture.embed(addresses(), Pooling::Mean);
  std::vector<std::vector<float>> want;
  for (std::size_t i = 0; i < cls.size(); ++i) {
    std::vector<float> both = cls[i];
    both.insert(both.end(), mean[i].begin(), mean[i].end());
    want.push_back(dense_forward(dense, both, true));
  }
  expect_close(Matcher::load(folder).embed(addresses()), want);
}

// The shipped model's head: unit vectors in which a rewording of an address sits closer
// to it than another place does.
TEST(EmbeddingHead, ShippedModelEmbedsRewordingsNearby) {
  const auto matcher = Matcher::load(source_dir() / "models/default");
  const auto v = matcher.embed(std::vector<std::string>{"北京市朝阳区建国路88号", "北京朝阳建国路88号", "杭州市西湖区文三路478号"});
  ASSERT_EQ(v.size(), 3u);
  auto dot = [](const std::vector<float>& a, const std::vector<float>& b) {
    double sum = 0;
    for (std::size_t i = 0; i < a.size(); ++i) sum += static_cast<double>(a[i]) * b[i];
    return sum;
  };
  for (const auto& x : v) {
    EXPECT_EQ(x.size(), 256u);
    EXPECT_NEAR(dot(x, x), 1.0, 1e-5);
  }
  EXPECT_GT(dot(v[0], v[1]), dot(v[0], v[2]) + 0.1);
}

void expect_load_error(const std::filesystem::path& folder, const std::string& fragment) {
  try {
    Matcher::load(folder);
    FAIL() << "expected an error containing: " << fragment;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(EmbeddingHead, UnsupportedOrInconsistentModulesFailNamingTheFile) {
  TempDir dir;
  const auto folder = copy_fixture_model(dir);
  write_modules(folder, {{"word_embedding_dimension", kHidden}, {"pooling_mode_max_tokens", true}}, {}, false);
  expect_load_error(folder, "pooling_mode_max_tokens is not supported");

  write_modules(folder, {{"word_embedding_dimension", 64}, {"pooling_mode_mean_tokens", true}}, {}, false);
  expect_load_error(folder, "word_embedding_dimension 64");

  write_modules(folder, mean_pooling(), {random_dense(kHidden + 1, 8, 4)}, false);
  expect_load_error(folder, "in_features 33");

  write_modules(folder, mean_pooling(), {random_dense(kHidden, 8, 5)}, false, "torch.nn.modules.activation.Softplus");
  expect_load_error(folder, "Softplus");

  write_modules(folder, mean_pooling(), {random_dense(kHidden, 8, 6)}, false);
  std::filesystem::remove(folder / "2_Dense/model.safetensors");
  expect_load_error(folder, "2_Dense has no model.safetensors");

  write_file(folder / "modules.json", R"([{"type": "sentence_transformers.models.Transformer", "path": ""},
                                          {"type": "sentence_transformers.models.LSTM", "path": "1_LSTM"}])");
  expect_load_error(folder, "LSTM");

  write_file(folder / "modules.json", "[{\"type\": ");
  expect_load_error(folder, "modules.json");
}

}  // namespace
}  // namespace geoalign
