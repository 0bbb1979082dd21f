// The fp32 CPU path against golden outputs of the PyTorch reference
// (tools/reference/make_fixture.py), plus model-folder loading errors.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>

#include "geoalign/matcher.h"
#include "model/model_folder.h"
#include "support/safetensors_writer.h"
#include "support/load_error.h"
#include "support/temp_dir.h"

namespace geoalign {
namespace {

using namespace geoalign::testing;

constexpr float kLogitTolerance = 1e-4f;

const nlohmann::json& golden() {
  static const auto g = nlohmann::json::parse(read_file(source_dir() / "tests/golden/tiny_bert_outputs.json"));
  return g;
}

std::vector<text::EncodedInput> encode_golden_pairs(const model::ModelFolder& m) {
  std::vector<text::EncodedInput> inputs;
  for (const auto& p : golden()["pairs"]) {
    inputs.push_back(m.tokenizer.encode_pair(m.normalizer.normalize(p[0].get<std::string>()),
                                             m.normalizer.normalize(p[1].get<std::string>()), 128));
  }
  return inputs;
}

void expect_rows_close(const Tensor& got, const nlohmann::json& want, float tol) {
  ASSERT_EQ(static_cast<std::size_t>(got.dim(0)), want.size());
  for (std::size_t r = 0; r < want.size(); ++r) {
    ASSERT_EQ(static_cast<std::size_t>(got.dim(1)), want[r].size());
    for (std::size_t c = 0; c < want[r].size(); ++c) {
      EXPECT_NEAR(got.data<float>()[r * want[r].size() + c], want[r][c].get<float>(), tol) << "row " << r << " col " << c;
    }
  }
}

Tensor logits_of(const std::filesystem::path& folder) {
  const auto m = model::ModelFolder::load(folder);
  const auto inputs = encode_golden_pairs(m);
  std::vector<const text::EncodedInput*> pointers;
  for (const auto& in : inputs) pointers.push_back(&in);
  const auto batch = runtime::TokenBatch::pack(pointers);
  model::BertModel::Workspace ws;
  Tensor probs;
  m.model.classify(batch, ws, probs);
  return std::move(ws.logits);
}

TEST(ModelParity, LogitsMatchPyTorchReference) {
  expect_rows_close(logits_of(fixture_model()), golden()["logits"], kLogitTolerance);
}

TEST(ModelParity, EmbeddingsMatchPyTorchReference) {
  const auto matcher = Matcher::load(fixture_model(), {.precision = Precision::FP32});
  const auto addresses = golden()["addresses"].get<std::vector<std::string>>();
  for (const auto& [pooling, key] : {std::pair{Pooling::Mean, "mean_embeddings"}, std::pair{Pooling::Cls, "cls_embeddings"}}) {
    const auto vectors = matcher.embed(addresses, pooling, 5);
    ASSERT_EQ(vectors.size(), addresses.size());
    for (std::size_t i = 0; i < vectors.size(); ++i) {
      const auto want = golden()[key][i].get<std::vector<float>>();
      ASSERT_EQ(vectors[i].size(), want.size());
      for (std::size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(vectors[i][k], want[k], kLogitTolerance) << key << i;
    }
  }
}

TEST(ModelParity, MatcherProbabilitiesAndScore) {
  const auto matcher = Matcher::load(fixture_model(), {.precision = Precision::FP32, .threads = 2});
  std::vector<AddressPair> pairs;
  for (const auto& p : golden()["pairs"]) pairs.push_back({p[0], p[1]});
  const auto results = matcher.score(pairs, 4);
  ASSERT_EQ(results.size(), pairs.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto want = golden()["probabilities"][i].get<std::vector<float>>();
    EXPECT_NEAR(results[i].p_not_match, want[0], 1e-5);
    EXPECT_NEAR(results[i].p_partial_match, want[1], 1e-5);
    EXPECT_NEAR(results[i].p_exact_match, want[2], 1e-5);
    EXPECT_NEAR(results[i].score, want[2] + 0.5f * want[1], 1e-5);
    const auto argmax = static_cast<std::size_t>(std::max_element(want.begin(), want.end()) - want.begin());
    EXPECT_EQ(results[i].label, matcher.labels()[argmax]);
  }
}

// bf16 and int8 approximate fp32. On this random 2-layer, 32-wide fixture bf16 (8
// significant bits per input, fp32 sums) moves probabilities by less than 0.02 and int8
// by up to ~0.04; on the shipped model both keep at least 99.5% of fp32's labels on real
// pairs (README, "Precision").
TEST(ModelParity, ReducedPrecisionProbabilitiesStayCloseToFp32) {
  std::vector<AddressPair> pairs;
  for (const auto& p : golden()["pairs"]) pairs.push_back({p[0], p[1]});
  const auto want = Matcher::load(fixture_model(), {.precision = Precision::FP32}).score(pairs);
  for (const auto& [precision, tolerance] : {std::pair{Precision::BF16, 0.02}, std::pair{Precision::INT8, 0.06}}) {
    const auto matcher = Matcher::load(fixture_model(), {.precision = precision});
    EXPECT_EQ(matcher.precision(), precision);
    const auto got = matcher.score(pairs);
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      for (std::size_t k = 0; k < 3; ++k) {
        EXPECT_NEAR(got[i].probabilities[k], want[i].probabilities[k], tolerance) << precision_name(precision) << " " << i;
      }
    }
  }
}

// Property: a pair's result does not depend on the batch it shares or on batch size.
// In every precision: int8 scales each token by itself, so it holds there too.
TEST(ModelParity, ResultsAreIndependentOfBatching) {
  std::vector<AddressPair> pairs;
  for (const auto& p : golden()["pairs"]) pairs.push_back({p[0], p[1]});
  for (Precision precision : {Precision::FP32, Precision::BF16, Precision::INT8}) {
    const auto matcher = Matcher::load(fixture_model(), {.precision = precision});
    const auto together = matcher.score(pairs, 64);
    for (std::size_t batch_size : {1, 3, 7}) {
      const auto split = matcher.score(pairs, batch_size);
      for (std::size_t i = 0; i < pairs.size(); ++i) {
        for (std::size_t k = 0; k < 3; ++k) {
          EXPECT_NEAR(split[i].probabilities[k], together[i].probabilities[k], 1e-6)
              << precision_name(precision) << " pair " << i;
        }
      }
    }
  }
}

TEST(ModelParity, NormalizationFromConfigMatchesReference) {
  TempDir dir;
  const auto folder = copy_fixture_model(dir);
  auto config = nlohmann::json::parse(read_file(folder / "config.json"));
  config["geoalign"] = {{"normalize", {{"fullwidth_to_halfwidth", true}, {"clean_whitespace", true}}}};
  write_file(folder / "config.json", config.dump());
  expect_rows_close(logits_of(folder), golden()["normalized_logits"], kLogitTolerance);
}

void rewrite_weights(const std::filesystem::path& folder,
                     const std::function<void(std::map<std::string, RawTensor>&)>& edit) {
  auto tensors = read_safetensors(folder / "model.safetensors");
  edit(tensors);
  write_file(folder / "model.safetensors", safetensors_bytes(tensors));
}

TEST(ModelParity, AcceptsMgeoPrefixAndGammaBetaNames) {
  TempDir dir;
  const auto folder = copy_fixture_model(dir);
  rewrite_weights(folder, [](auto& tensors) {
    std::map<std::string, RawTensor> renamed;
    for (auto& [name, t] : tensors) {
      std::string n = name.rfind("bert.", 0) == 0 ? "bert.text_encoder." + name.substr(5) : name;
      if (n.size() > 16 && n.compare(n.size() - 16, 16, "LayerNorm.weight") == 0) n = n.substr(0, n.size() - 6) + "gamma";
      renamed[n] = t;
    }
    tensors = renamed;
  });
  expect_rows_close(logits_of(folder), golden()["logits"], kLogitTolerance);
}

TEST(ModelParity, Bf16StoredWeightsEqualTheirF32Values) {
  TempDir dir;
  const auto bf16_folder = copy_fixture_model(dir);
  const auto f32_folder = dir / "f32";
  std::filesystem::copy(bf16_folder, f32_folder, std::filesystem::copy_options::recursive);
  auto tensors = read_safetensors(bf16_folder / "model.safetensors");
  auto rounded = tensors;
  for (auto& [name, t] : tensors) {
    const std::size_t n = t.bytes.size() / 4;
    std::string bf16(2 * n, '\0');
    for (std::size_t i = 0; i < n; ++i) {
      float v;
      std::memcpy(&v, t.bytes.data() + 4 * i, 4);
      const std::uint16_t b = to_bf16(v);
      std::memcpy(bf16.data() + 2 * i, &b, 2);
      const float back = std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
      std::memcpy(rounded[name].bytes.data() + 4 * i, &back, 4);
    }
    t = RawTensor{"BF16", t.shape, bf16};
  }
  write_file(bf16_folder / "model.safetensors", safetensors_bytes(tensors));
  write_file(f32_folder / "model.safetensors", safetensors_bytes(rounded));
  const Tensor a = logits_of(bf16_folder), b = logits_of(f32_folder);
  EXPECT_EQ(a.to_vector(), b.to_vector());
}

TEST(ModelFolder, MissingTensorIsNamed) {
  TempDir dir;
  const auto folder = copy_fixture_model(dir);
  rewrite_weights(folder, [](auto& t) { t.erase("bert.encoder.layer.1.intermediate.dense.bias"); });
  EXPECT_NE(load_error(folder).find("missing tensor \"bert.encoder.layer.1.intermediate.dense.bias\""), std::string::npos)
      << load_error(folder);
}

TEST(ModelFolder, WrongShapeIsNamed) {
  TempDir dir;
  const auto folder = copy_fixture_model(dir);
  rewrite_weights(folder, [](auto& t) {
    auto& w = t["bert.pooler.dense.bias"];
    w.shape = {16};
    w.bytes.resize(64);
  });
  const std::string e = load_error(folder);
  EXPECT_NE(e.find("bert.pooler.dense.bias"), std::string::npos) << e;
  EXPECT_NE(e.find("[16]"), std::string::npos) << e;
}

TEST(ModelFolder, TruncatedWeightsFile) {
  TempDir dir;
  const auto folder = copy_fixture_model(dir);
  const std::string bytes = read_file(folder / "model.safetensors");
  write_file(folder / "model.safetensors", bytes.substr(0, bytes.size() / 2));
  EXPECT_NE(load_error(folder).find("truncated"), std::string::npos) << load_error(folder);
}

TEST(ModelFolder, MissingFilesAreNamed) {
  TempDir dir;
  const auto folder = copy_fixture_model(dir);
  std::filesystem::rename(folder / "model.safetensors", folder / "pytorch_model.bin");
  EXPECT_NE(load_error(folder).find("convert_to_safetensors"), std::string::npos);
  std::filesystem::remove(folder / "vocab.txt");
  EXPECT_NE(load_error(folder).find("no vocab.txt"), std::string::npos);
  EXPECT_NE(load_error(dir / "nowhere").find("does not exist"), std::string::npos);
}

TEST(ModelFolder, LabelRoles) {
  using model::LabelRoles;
  const auto named = LabelRoles::from_labels({"exact_match", "not_match", "partial_match"});
  EXPECT_EQ(named.exact_match, 0u);
  EXPECT_EQ(named.not_match, 1u);
  EXPECT_EQ(named.partial_match, 2u);
  const auto chinese = LabelRoles::from_labels({"不匹配", "完全匹配"});
  EXPECT_EQ(chinese.exact_match, 1u);
  EXPECT_FALSE(chinese.partial_match.has_value());
  const auto positional = LabelRoles::from_labels({"LABEL_0", "LABEL_1", "LABEL_2"});
  EXPECT_EQ(positional.partial_match, 1u);
  EXPECT_FALSE(LabelRoles::from_labels({"a", "b", "c", "d"}).exact_match.has_value());
}

TEST(Matcher, UnknownPrecisionIsAClearError) {
  EXPECT_THROW(parse_precision("fp64"), Error);
}

TEST(Matcher, InvalidUtf8NamesThePair) {
  const auto matcher = Matcher::load(fixture_model());
  const std::vector<AddressPair> pairs = {{"北京", "上海"}, {"北京", "\xE4\xB8"}};
  try {
    matcher.score(pairs);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pair 1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace geoalign
